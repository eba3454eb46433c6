package record

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// MaxQuoted is how many bytes of a record's value an error quotes at most.
const MaxQuoted = 64

// Excerpt returns the first bytes of v that an error quotes: all of v if it
// is at most MaxQuoted bytes long, else at most MaxQuoted bytes, cut before
// a character that would not fit whole. It does not copy.
func Excerpt(v []byte) []byte {
	if len(v) <= MaxQuoted {
		return v
	}
	for i := MaxQuoted; i > MaxQuoted-utf8.UTFMax; i-- {
		if utf8.RuneStart(v[i]) {
			return v[:i]
		}
	}
	return v[:MaxQuoted] // NB: not UTF-8 there, so no character to keep whole.
}

// Quote returns v as an error quotes it: its Excerpt as a Go string
// literal, followed by "… (N bytes)" when the excerpt is not all of v.
func Quote(v []byte) string { return QuoteExcerpt(Excerpt(v), len(v)) }

// QuoteExcerpt is Quote for an excerpt kept from a value of size bytes. A
// size that does not exceed the excerpt's length adds nothing.
func QuoteExcerpt(excerpt []byte, size int) string {
	q := strconv.Quote(string(excerpt))
	if size > len(excerpt) {
		q += fmt.Sprintf("… (%d bytes)", size)
	}
	return q
}
