// Package jobspectest helps test job specs: the tests of internal/jobspec
// and those of each connector's spec section, which live next to the
// connector.
package jobspectest

import (
	"strings"
	"testing"
)

// Spec joins lines into a YAML document, so that a test's spec keeps its
// indentation readable and its line numbers countable.
func Spec(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

// AssertLines checks that err has one line per fragment of want, in order,
// each containing its fragment: the test fails on a missing message as on
// an extra one.
func AssertLines(t testing.TB, err error, want []string) {
	t.Helper()
	if err == nil {
		t.Errorf("no error, want lines containing:\n%s", strings.Join(want, "\n"))
		return
	}
	got := strings.Split(err.Error(), "\n")
	ok := len(got) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = strings.Contains(got[i], want[i])
	}
	if !ok {
		t.Errorf("error:\n%s\nwant lines containing:\n%s", err, strings.Join(want, "\n"))
	}
}
