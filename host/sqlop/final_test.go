package sqlop

import (
	"context"
	"slices"
	"testing"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/timer"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
	"github.com/floe-stream/floe/storage/kv/memkv"
	"github.com/floe-stream/floe/storage/state"
)

// TestFinalGroupEmitsOnceAtTheBound groups (id BIGINT, bound BIGINT, x
// BIGINT) rows by id and bound with MAX(x), final at the bound: each
// group's row comes once, when the watermark passes its bound, stamped
// with it; a row whose bound the watermark passed is late. Worked out by
// hand. The rows of a step come after the last step's watermark, to a new
// operator over the same state.
func TestFinalGroupEmitsOnceAtTheBound(t *testing.T) {
	final := 1
	agg := &sqlprog.Aggregation{Input: []sqlrow.Type{sqlrow.BigInt, sqlrow.BigInt, sqlrow.BigInt}, Keys: 2,
		Aggs: []sqlprog.Agg{{Fn: sqlprog.Max, Arg: 2}}, FinalAt: &final}
	if err := agg.Check(); err != nil {
		t.Fatal(err)
	}
	st := keyed{state.New(memkv.New())}
	ts, err := st.Map(timer.Namespace("g"))
	if err != nil {
		t.Fatal(err)
	}
	q := timer.New(ts)
	var late, wm int64
	for _, step := range []struct {
		in   [][3]int64
		wm   int64
		want []string
		late int64
	}{
		// Groups 1 (bound 100) and 2 (bound 50): 2 is due at 60.
		{[][3]int64{{1, 100, 5}, {2, 50, 7}, {1, 100, 9}, {2, 50, 3}}, 60, []string{"2,50,7@50"}, 0},
		// 1 grows; a row of 2 is late now; nothing due before 100.
		{[][3]int64{{1, 100, 4}, {2, 50, 99}, {1, 100, 12}}, 99, nil, 1},
		{nil, 100, []string{"1,100,12@100"}, 1},
		// A new group 1 with a later bound is a new group: emitted alone.
		{[][3]int64{{1, 300, 1}}, 1 << 40, []string{"1,300,1@300"}, 1},
	} {
		// NB: a new operator over the same state each step, as after a restore.
		g, err := NewFinalGroup("g", agg, st, q)
		if err != nil {
			t.Fatal(err)
		}
		g.SetWatermark(wm)
		var in, out record.Batch
		for _, r := range step.in {
			v := sqlrow.AppendRow(nil, sqlrow.Row{sqlrow.Int(r[0]), sqlrow.Int(r[1]), sqlrow.Int(r[2])})
			n, _ := sqlrow.PrefixLen(v, 2)
			in.AppendKeyed(v[:n], v, r[1], 1)
		}
		if err := g.Process(context.Background(), &in, &out); err != nil {
			t.Fatal(err)
		}
		advance(t, g, q, step.wm, &out)
		var got []string
		for _, r := range out.Records {
			row, err := sqlrow.DecodeRow(nil, r.Value, 3)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(sqlrow.AppendCSV(nil, row))+"@"+sqlrow.Int(r.Timestamp).Text())
		}
		late, wm = late+g.Late(), step.wm
		if !slices.Equal(got, step.want) || late != step.late {
			t.Errorf("watermark %d: emitted %q, want %q; %d late, want %d", step.wm, got, step.want, late, step.late)
		}
	}
}
