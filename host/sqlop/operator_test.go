package sqlop

import (
	"context"
	"strings"
	"testing"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// program reads "B,"-prefixed CSV lines of (a BIGINT, s VARCHAR), keeps
// a > 1 and writes s, a*2 as CSV.
func program(t *testing.T) *sqlprog.Program {
	t.Helper()
	a := sqlexpr.Col(0, sqlrow.BigInt)
	gt, _ := sqlexpr.New(sqlexpr.OpGt, "", 0, a, sqlexpr.Lit(sqlrow.Int(1)))
	dbl, _ := sqlexpr.New(sqlexpr.OpMul, "", 0, a, sqlexpr.Lit(sqlrow.Int(2)))
	p := &sqlprog.Program{In: sqlprog.FormatCSV, Prefix: "B,", Columns: []sqlprog.Column{{Name: "a", Type: sqlrow.BigInt}, {Name: "s", Type: sqlrow.Varchar}},
		Where: gt, Select: []*sqlexpr.Expr{sqlexpr.Col(1, sqlrow.Varchar), dbl}, Names: []string{"s", "d"}, Out: sqlprog.FormatCSV}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestOperatorKeepsKeysAndTimestamps(t *testing.T) {
	op := New("q", program(t))
	var in, out record.Batch
	in.Append([]byte("k1"), []byte("B,2,x"), 10)
	in.Append(nil, []byte("P,9,person"), 11) // another kind: skipped
	in.Append(nil, []byte("B,1,y"), 12)      // a > 1 does not hold
	in.Append([]byte("k2"), []byte("B,5,a b"), 13)
	if err := op.Process(context.Background(), &in, &out); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		key, value string
		ts         int64
	}{{"k1", "x,4", 10}, {"k2", "a b,10", 13}}
	if out.Len() != len(want) {
		t.Fatalf("%d records out, want %d", out.Len(), len(want))
	}
	for i, w := range want {
		r := out.Records[i]
		if string(r.Key) != w.key || string(r.Value) != w.value || r.Timestamp != w.ts {
			t.Errorf("record %d: %q %q %d, want %q %q %d", i, r.Key, r.Value, r.Timestamp, w.key, w.value, w.ts)
		}
	}
}

func TestOperatorNamesTheBadRecord(t *testing.T) {
	op := New("q", program(t))
	var in, out record.Batch
	in.Append(nil, []byte("B,two,x"), 1)
	err := op.Process(context.Background(), &in, &out)
	if err == nil || !strings.Contains(err.Error(), `sql operator q: record "B,two,x": field 1: "two" is not a BIGINT`) {
		t.Errorf("error %v", err)
	}
}
