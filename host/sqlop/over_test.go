package sqlop

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/timer"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
	"github.com/floe-stream/floe/storage/kv/memkv"
	"github.com/floe-stream/floe/storage/state"
)

// timed is an operator of this package whose event-time timers fire.
type timed interface {
	Process(ctx context.Context, in, out *record.Batch) error
	FireTimer(ctx context.Context, d udf.TimeDomain, ts int64, kg uint16, key []byte, out *record.Batch) error
	SetWatermark(wm int64)
}

// advance does what a task does at a watermark: tells op, then fires its
// timers due, in order, into out.
func advance(t *testing.T, op timed, q *timer.Queue, wm int64, out *record.Batch) {
	t.Helper()
	op.SetWatermark(wm)
	for {
		tm, ok, err := q.Pop(udf.EventTime, wm)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return
		}
		if err := op.FireTimer(context.Background(), udf.EventTime, tm.Timestamp, tm.KeyGroup, tm.Key, out); err != nil {
			t.Fatal(err)
		}
	}
}

// overRow is an input row of TestOverMatchesBruteForce: (k, t, x).
type overRow struct {
	k    string
	t, x int64
}

// TestOverMatchesBruteForce feeds rows (k VARCHAR, t BIGINT, x BIGINT) of
// three keys, four rows to a t, shuffled within each batch, to SUM(x) over
// 2 PRECEDING, COUNT(*) over 1, MAX(x) over the current row, and MIN(x)
// and COUNT(*) over UNBOUNDED PRECEDING, ordered by t then x, in batches,
// the watermark after each just behind the next one's first t (a new
// operator over the same state each time, as after a restore), plus a
// late row. The output must be, row for row, a brute force's over each
// key's rows sorted by (t, x), each stamped with its t, and the late row
// counted, not applied.
func TestOverMatchesBruteForce(t *testing.T) {
	over := &sqlprog.Over{Input: []sqlrow.Type{sqlrow.Varchar, sqlrow.BigInt, sqlrow.BigInt}, Keys: 1, Time: 1,
		Order: []sqlprog.SortKey{{Col: 1}, {Col: 2}},
		Aggs: []sqlprog.OverAgg{{Fn: sqlprog.Sum, Arg: 2, Preceding: 2}, {Fn: sqlprog.Count, Arg: -1, Preceding: 1}, {Fn: sqlprog.Max, Arg: 2},
			{Fn: sqlprog.Min, Arg: 2, Preceding: sqlprog.Unbounded}, {Fn: sqlprog.Count, Arg: -1, Preceding: sqlprog.Unbounded}}}
	if err := over.Check(); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(6, 19))
	var rows []overRow
	for i := range 300 {
		rows = append(rows, overRow{string(rune('a' + r.IntN(3))), 1000 + int64(i/4)*10, r.Int64N(100)}) // ties in t
	}
	// Shuffle within each batch: the watermark trails to its first time.
	for s := 0; s < len(rows); s += 100 {
		r.Shuffle(100, func(i, j int) { rows[s+i], rows[s+j] = rows[s+j], rows[s+i] })
	}
	st := keyed{state.New(memkv.New())}
	ts, err := st.Map(timer.Namespace("o"))
	if err != nil {
		t.Fatal(err)
	}
	q := timer.New(ts)
	var out record.Batch
	var o *Over
	for s := 0; s < len(rows); s += 100 {
		if o, err = NewOver("o", over, st, q); err != nil {
			t.Fatal(err)
		}
		if err := o.Process(context.Background(), overBatch(rows[s:s+100]), &out); err != nil {
			t.Fatal(err)
		}
		advance(t, o, q, 1000+int64(s/4)*10-1, &out) // the rows of the batches before
	}
	// A row behind the watermark is late.
	if err := o.Process(context.Background(), overBatch([]overRow{{"a", 1000, 5}}), &out); err != nil {
		t.Fatal(err)
	}
	advance(t, o, q, 1<<40, &out)
	if o.Late() != 1 {
		t.Errorf("%d late rows, want 1", o.Late())
	}
	var got []string
	for _, rec := range out.Records {
		row, err := sqlrow.DecodeRow(nil, rec.Value, 8)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(sqlrow.AppendCSV(nil, row))+"@"+fmt.Sprint(rec.Timestamp))
	}
	slices.Sort(got)
	want := overBruteForce(rows)
	if !slices.Equal(got, want) {
		t.Errorf("%d rows, want %d\n got %q\nwant %q", len(got), len(want), got[:min(5, len(got))], want[:min(5, len(want))])
	}
}

// overBatch makes a keyed batch of rows.
func overBatch(rows []overRow) *record.Batch {
	var b record.Batch
	for _, x := range rows {
		v := sqlrow.AppendRow(nil, sqlrow.Row{sqlrow.Str(x.k), sqlrow.Int(x.t), sqlrow.Int(x.x)})
		n, _ := sqlrow.PrefixLen(v, 1)
		b.AppendKeyed(v[:n], v, x.t, 3)
	}
	return &b
}

// overBruteForce returns TestOverMatchesBruteForce's expected rows, sorted.
func overBruteForce(rows []overRow) []string {
	byKey := map[string][]overRow{}
	for _, x := range rows {
		byKey[x.k] = append(byKey[x.k], x)
	}
	var out []string
	for k, rs := range byKey {
		slices.SortStableFunc(rs, func(a, b overRow) int { return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.x, b.x)) })
		for i, x := range rs {
			var sum int64
			for j := max(0, i-2); j <= i; j++ {
				sum += rs[j].x
			}
			lo := x.x
			for _, y := range rs[:i] {
				lo = min(lo, y.x)
			}
			out = append(out, fmt.Sprintf("%s,%d,%d,%d,%d,%d,%d,%d@%d", k, x.t, x.x, sum, min(i+1, 2), x.x, lo, i+1, x.t))
		}
	}
	slices.Sort(out)
	return out
}
