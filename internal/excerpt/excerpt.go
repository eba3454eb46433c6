// Package excerpt cuts long messages for the places that keep or send
// them under a size limit (exceptions, kept log lines, task reports),
// in the one form Floe writes everywhere: the head of the message, then
// "… (N bytes)" with the whole message's length.
package excerpt

import (
	"strconv"
	"unicode/utf8"
)

// Cut returns s if it is at most n bytes, and otherwise its first n bytes
// or fewer, ending on a character boundary, followed by "… (N bytes)".
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := max(n, 0)
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "… (" + strconv.Itoa(len(s)) + " bytes)"
}
