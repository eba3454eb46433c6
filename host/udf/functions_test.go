package udf

import (
	"encoding/binary"
	"maps"
	"strings"
	"testing"
)

// table lays out name, kind pairs as floe_functions does, with count as
// the count it claims.
func table(count uint32, pairs ...string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, count)
	for _, s := range pairs {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	return b
}

// TestDecodeTable reads function tables, well and badly formed: a guest's
// table is untrusted input.
func TestDecodeTable(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want map[string]string
		err  string
	}{
		{"empty table", table(0), map[string]string{}, ""},
		{"two", table(2, "split", "flatMap", "count", "process"), map[string]string{"split": "flatMap", "count": "process"}, ""},
		{"no count", nil, nil, "cut short"},
		{"count too large", table(1 << 30), nil, "says 1073741824 functions in 0 bytes"},
		{"kind missing", table(1, "split"), nil, "cut short"},
		{"length past the end", append(table(1, "split"), 0xff, 0xff, 0xff, 0x0f), nil, "cut short"},
		{"twice", table(2, "split", "map", "split", "flatMap"), nil, `lists "split" twice`},
		{"trailing bytes", append(table(1, "a", "map"), 0), nil, "1 bytes after its last function"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeTable(tt.in)
			switch {
			case tt.err == "" && (err != nil || !maps.Equal(got, tt.want)):
				t.Errorf("decodeTable = %v, %v; want %v", got, err, tt.want)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("decodeTable = %v, %v; want an error saying %q", got, err, tt.err)
			}
		})
	}
}
