package sqloracle

import (
	"bytes"
	"math"
	"testing"

	"github.com/floe-stream/floe/internal/sqlrow"
	floe "github.com/floe-stream/floe/sdk/go"
)

// The SDK's SQL values must read what the host writes and write what it
// reads (sdk/ABI.md, "SQL functions"): every kind of value, encoded by
// the host's internal/sqlrow, decodes to the same value, and encodes back
// to the same bytes.
func TestSQLValuesMatchTheHost(t *testing.T) {
	tests := []struct {
		host sqlrow.Value
		sdk  floe.SQLValue
	}{
		{sqlrow.Value{}, floe.SQLValue{}},
		{sqlrow.Bool(true), floe.SQLBool(true)},
		{sqlrow.Bool(false), floe.SQLBool(false)},
		{sqlrow.Int(0), floe.SQLInt(0)},
		{sqlrow.Int(-42), floe.SQLInt(-42)},
		{sqlrow.Int(math.MaxInt64), floe.SQLInt(math.MaxInt64)},
		{sqlrow.Float(2.5), floe.SQLFloat(2.5)},
		{sqlrow.Float(math.Inf(-1)), floe.SQLFloat(math.Inf(-1))},
		{sqlrow.Str(""), floe.SQLString("")},
		{sqlrow.Str("héllo, \"w\""), floe.SQLString("héllo, \"w\"")},
		{sqlrow.Str(string(bytes.Repeat([]byte("x"), 300))), floe.SQLString(string(bytes.Repeat([]byte("x"), 300)))},
	}
	var hostRow sqlrow.Row
	var want []floe.SQLValue
	for _, tc := range tests {
		b := sqlrow.AppendValue(nil, tc.host)
		if got := floe.AppendSQLValue(nil, tc.sdk); !bytes.Equal(got, b) {
			t.Errorf("%v: the SDK writes %x, the host %x", tc.host, got, b)
		}
		hostRow, want = append(hostRow, tc.host), append(want, tc.sdk)
	}
	got, err := floe.DecodeSQLRow(nil, sqlrow.AppendRow(nil, hostRow))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d values, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("value %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
