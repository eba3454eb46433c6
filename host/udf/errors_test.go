package udf

import (
	"errors"
	"strings"
	"testing"
)

// TestUDFErrorQuotesTheRecordCutAtACharacter checks the record that a
// failed call's error quotes: whole when short, else cut before a
// character that would not fit whole, with "…" and the record's length.
// (record.Quote's own test covers the cutting in detail.)
func TestUDFErrorQuotesTheRecordCutAtACharacter(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	for _, tc := range []struct {
		name, value, want string
	}{
		{"short", "poison", `(record 0: "poison")`},
		{"long", a(100), `(record 0: "` + a(64) + `"… (100 bytes))`},
		{"character across the cut", a(63) + "é" + a(36), `(record 0: "` + a(63) + `"… (101 bytes))`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &Instance{m: &Module{name: "m"}, cfg: InstanceConfig{Function: "f"}, stderr: &head{}, cur: batchOf(tc.value)}
			err := in.wrap("floe_process", 0, errors.New("bad record"), nil)
			if got, want := err.Error(), `module "m" function "f": bad record `+tc.want; got != want {
				t.Errorf("error\n%s\nwant\n%s", got, want)
			}
		})
	}
}
