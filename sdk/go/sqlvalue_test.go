package floe_test

import (
	"bytes"
	"errors"
	"testing"

	floe "github.com/floe-stream/floe/sdk/go"
)

// The encoding of sdk/ABI.md, "SQL functions", worked out by hand: the
// host's side is checked against the same values in tests/sqloracle.
func TestSQLValueEncoding(t *testing.T) {
	tests := []struct {
		v    floe.SQLValue
		want []byte
	}{
		{floe.SQLValue{}, []byte{0}},
		{floe.SQLBool(true), []byte{1, 1}},
		{floe.SQLInt(-2), []byte{2, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{floe.SQLFloat(1), []byte{3, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f}},
		{floe.SQLString("hé"), []byte{4, 3, 'h', 0xc3, 0xa9}},
	}
	var row []byte
	for _, tc := range tests {
		if got := floe.AppendSQLValue(nil, tc.v); !bytes.Equal(got, tc.want) {
			t.Errorf("%+v: %x, want %x", tc.v, got, tc.want)
		}
		row = append(row, tc.want...)
	}
	got, err := floe.DecodeSQLRow(nil, row)
	if err != nil || len(got) != len(tests) {
		t.Fatalf("%+v, %v", got, err)
	}
	for i, tc := range tests {
		if got[i] != tc.v {
			t.Errorf("value %d: %+v, want %+v", i, got[i], tc.v)
		}
	}
}

func TestDecodeSQLRowRefusesBadBytes(t *testing.T) {
	for _, b := range [][]byte{
		{2, 1, 2, 3}, // a BIGINT cut short
		{4, 5, 'a'},  // a VARCHAR shorter than its length
		{9},          // no such tag
		{1},          // a BOOLEAN without its byte
		{4, 0x80},    // a length that does not end
	} {
		if _, err := floe.DecodeSQLRow(nil, b); !errors.Is(err, floe.ErrSQLValue) {
			t.Errorf("%x: %v, want ErrSQLValue", b, err)
		}
	}
}
