package sqlop

import (
	"context"
	"slices"
	"testing"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
	"github.com/floe-stream/floe/storage/kv/memkv"
	"github.com/floe-stream/floe/storage/state"
)

// keyed serves a state.Backend as the udf.Keyed a task hands operators.
type keyed struct{ b *state.Backend }

func (k keyed) Value(ns string) (udf.ValueState, error) { return k.b.Value(ns) }
func (k keyed) List(ns string) (udf.ListState, error)   { return k.b.List(ns) }
func (k keyed) Map(ns string) (udf.MapState, error)     { return k.b.Map(ns) }

// TestGroupEmitsEachChangedKeyOncePerBatch feeds two batches of (key
// VARCHAR, x BIGINT) rows to COUNT(*), SUM(x) and checks the rows each
// batch emits, worked out by hand; the second batch runs on a new operator
// over the same state, as after a restore.
func TestGroupEmitsEachChangedKeyOncePerBatch(t *testing.T) {
	agg := &sqlprog.Aggregation{Input: []sqlrow.Type{sqlrow.Varchar, sqlrow.BigInt}, Keys: 1,
		Aggs: []sqlprog.Agg{{Fn: sqlprog.Count, Arg: -1}, {Fn: sqlprog.Sum, Arg: 1}}}
	st := keyed{state.New(memkv.New())}
	batch, emitted := keyedRows, func(op *Group, in *record.Batch) []string { return emittedRows(t, op, in) }
	g, err := NewGroup("g", agg, st)
	if err != nil {
		t.Fatal(err)
	}
	got := emitted(g, batch([2]any{"a", 1}, [2]any{"b", 5}, [2]any{"a", 2}))
	want := []string{"a,2,3@20", "b,1,5@10"}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("first batch: %q, want %q", got, want)
	}
	g2, err := NewGroup("g", agg, st)
	if err != nil {
		t.Fatal(err)
	}
	got = emitted(g2, batch([2]any{"a", 10}))
	if len(got) != 1 || got[0] != "a,3,13@0" {
		t.Errorf("second batch: %q, want [a,3,13@0]", got)
	}
}

// keyedRows is a batch of (VARCHAR key, BIGINT) rows keyed by their first
// column, each 10 ms after the last.
func keyedRows(rows ...[2]any) *record.Batch {
	var b record.Batch
	for i, r := range rows {
		v := sqlrow.AppendRow(nil, sqlrow.Row{sqlrow.Str(r[0].(string)), sqlrow.Int(int64(r[1].(int)))})
		n, _ := sqlrow.PrefixLen(v, 1)
		b.AppendKeyed(v[:n], v, int64(10*i), 7)
	}
	return &b
}

// emittedRows runs op over in and returns its output rows of three
// columns as CSV, each with "@" and its timestamp.
func emittedRows(t *testing.T, op interface {
	Process(ctx context.Context, in, out *record.Batch) error
}, in *record.Batch) []string {
	t.Helper()
	var out record.Batch
	if err := op.Process(context.Background(), in, &out); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range out.Records {
		row, err := sqlrow.DecodeRow(nil, r.Value, 3)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(sqlrow.AppendCSV(nil, row))+"@"+sqlrow.Int(r.Timestamp).Text())
	}
	return got
}

// TestGroupRetracts checks a GROUP BY whose aggregation Retracts: a key's
// first row is only inserted (TRUE); a later batch retracts its old row
// (FALSE) before inserting the new one, worked out by hand.
func TestGroupRetracts(t *testing.T) {
	agg := &sqlprog.Aggregation{Input: []sqlrow.Type{sqlrow.Varchar, sqlrow.BigInt}, Keys: 1,
		Aggs: []sqlprog.Agg{{Fn: sqlprog.Max, Arg: 1}}, Retracts: true}
	g, err := NewGroup("g", agg, keyed{state.New(memkv.New())})
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		in   *record.Batch
		want []string
	}{
		{keyedRows([2]any{"a", 3}, [2]any{"a", 5}), []string{"a,5,true"}},
		{keyedRows([2]any{"a", 9}, [2]any{"b", 1}), []string{"a,5,false", "a,9,true", "b,1,true"}},
	} {
		var out record.Batch
		if err := g.Process(context.Background(), step.in, &out); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range out.Records {
			row, err := sqlrow.DecodeRow(nil, r.Value, 3)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(sqlrow.AppendCSV(nil, row)))
		}
		if !slices.Equal(got, step.want) {
			t.Errorf("emitted %q, want %q", got, step.want)
		}
	}
}
