package sqlop

import (
	"context"
	"testing"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/window"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// TestAggregateAsAWindowFunction drives Aggregate as host/window does: add
// records to two accumulators, merge them (as two sessions that meet),
// fire the result. Rows are (key VARCHAR, x BIGINT); the aggregates are
// COUNT(*) and SUM(x).
func TestAggregateAsAWindowFunction(t *testing.T) {
	a := &Aggregate{Agg: &sqlprog.Aggregation{Input: []sqlrow.Type{sqlrow.Varchar, sqlrow.BigInt}, Keys: 1,
		Aggs: []sqlprog.Agg{{Fn: sqlprog.Count, Arg: -1}, {Fn: sqlprog.Sum, Arg: 1}}}}
	key := sqlrow.AppendRow(nil, sqlrow.Row{sqlrow.Str("k")})
	elem := func(x int64) window.Elem {
		return window.Elem{Value: sqlrow.AppendRow(nil, sqlrow.Row{sqlrow.Str("k"), sqlrow.Int(x)})}
	}
	ctx := context.Background()
	accs, err := a.Add(ctx, []window.AddGroup{
		{Key: key, Elems: []window.Elem{elem(3), elem(4)}},
		{Key: key, Elems: []window.Elem{elem(10)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	more, err := a.Add(ctx, []window.AddGroup{{Key: key, Acc: accs[1], HasAcc: true, Elems: []window.Elem{elem(-1)}}})
	if err != nil {
		t.Fatal(err)
	}
	merged, err := a.Merge(ctx, [][][]byte{{accs[0], more[0]}})
	if err != nil {
		t.Fatal(err)
	}
	var out record.Batch
	if err := a.Fire(ctx, []window.FireGroup{{Key: key, W: window.W{Start: 1000, End: 2000}, Acc: merged[0]}}, &out); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 1 {
		t.Fatalf("%d records fired, want 1", out.Len())
	}
	r := out.Records[0]
	row, err := sqlrow.DecodeRow(nil, r.Value, 5)
	if err != nil {
		t.Fatal(err)
	}
	// key "k", window [1000, 2000), 4 rows, 3+4+10-1 = 16; stamped with
	// the window's last instant.
	want := sqlrow.Row{sqlrow.Str("k"), sqlrow.Int(1000), sqlrow.Int(2000), sqlrow.Int(4), sqlrow.Int(16)}
	for i := range want {
		if row[i] != want[i] {
			t.Errorf("value %d: %v, want %v", i, row[i], want[i])
		}
	}
	if r.Timestamp != 1999 {
		t.Errorf("timestamp %d, want 1999", r.Timestamp)
	}
}
