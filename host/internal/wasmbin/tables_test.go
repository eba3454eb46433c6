package wasmbin

import (
	"bytes"
	"errors"
	"testing"
)

// withTables returns a module of only a table section with these tables,
// each given as its limits' bytes after a funcref element type.
func withTables(limits ...[]byte) []byte {
	sec := []byte{byte(len(limits))}
	for _, l := range limits {
		sec = append(append(sec, 0x70), l...)
	}
	return append(append([]byte("\x00asm\x01\x00\x00\x00"), secTable, byte(len(sec))), sec...)
}

func TestLimitTables(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		max  uint32
		want []byte
		err  bool
	}{
		{"no tables", []byte("\x00asm\x01\x00\x00\x00"), 10, []byte("\x00asm\x01\x00\x00\x00"), false},
		{"no maximum gets one", withTables([]byte{0, 1}), 10, withTables([]byte{1, 1, 10}), false},
		{"a lower maximum stays", withTables([]byte{1, 1, 3}), 10, withTables([]byte{1, 1, 3}), false},
		{"a higher maximum is lowered", withTables([]byte{1, 2, 0xff, 0xff, 0x03}), 10, withTables([]byte{1, 2, 10}), false},
		{"the slack is shared", withTables([]byte{0, 2}, []byte{0, 4}), 10, withTables([]byte{1, 2, 4}, []byte{1, 4, 6}), false},
		{"minimums over the cap", withTables([]byte{0, 6}, []byte{0, 5}), 10, nil, true},
		{"table64", withTables([]byte{4, 1}), 10, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := LimitTables(tc.in, tc.max)
			if tc.err {
				if err == nil {
					t.Fatalf("got % x, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tc.want) {
				t.Fatalf("got % x, want % x", got, tc.want)
			}
		})
	}
	_, err := LimitTables(withTables([]byte{0, 11}), 10)
	var le *LimitError
	if !errors.As(err, &le) || le.Count != 11 || le.Limit != 10 {
		t.Fatalf("got %v, want a LimitError of 11 entries over 10", err)
	}
}
