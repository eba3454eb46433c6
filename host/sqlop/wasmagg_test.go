package sqlop

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/window"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
	"github.com/floe-stream/floe/storage/kv/memkv"
	"github.com/floe-stream/floe/storage/state"
)

// fakeSum stands for a module's SQL aggregate: the sum of its BIGINT
// argument, its accumulator the sum's decimal text. It counts its calls
// by op, and fails a result over an accumulator that was never created.
type fakeSum struct{ adds, merges, fires int }

func (f *fakeSum) Aggregate() bool { return true }

func (f *fakeSum) Add(_ context.Context, groups []window.AddGroup) ([][]byte, error) {
	f.adds++
	out := make([][]byte, len(groups))
	for i, g := range groups {
		n := int64(0)
		if g.HasAcc {
			n, _ = strconv.ParseInt(string(g.Acc), 10, 64)
		}
		for _, e := range g.Elems {
			v, _, err := sqlrow.DecodeValue(e.Value)
			if err != nil {
				return nil, err
			}
			n += v.I
		}
		out[i] = []byte(strconv.FormatInt(n, 10))
	}
	return out, nil
}

func (f *fakeSum) Merge(_ context.Context, groups [][][]byte) ([][]byte, error) {
	f.merges++
	out := make([][]byte, len(groups))
	for i, accs := range groups {
		n := int64(0)
		for _, a := range accs {
			m, _ := strconv.ParseInt(string(a), 10, 64)
			n += m
		}
		out[i] = []byte(strconv.FormatInt(n, 10))
	}
	return out, nil
}

func (f *fakeSum) Fire(_ context.Context, groups []window.FireGroup, out *record.Batch) error {
	f.fires++
	for _, g := range groups {
		n, err := strconv.ParseInt(string(g.Acc), 10, 64)
		if err != nil {
			return fmt.Errorf("an accumulator that was never created: %q", g.Acc)
		}
		out.Append(nil, sqlrow.AppendValue(nil, sqlrow.Int(n)), 0)
	}
	return nil
}

// wasmSumAgg is COUNT(*) and the Wasm aggregate of column 1 over rows of
// (key VARCHAR, x BIGINT).
func wasmSumAgg() *sqlprog.Aggregation {
	return &sqlprog.Aggregation{Input: []sqlrow.Type{sqlrow.Varchar, sqlrow.BigInt}, Keys: 1,
		Aggs: []sqlprog.Agg{{Fn: sqlprog.Count, Arg: -1},
			{Fn: sqlprog.Wasm, Arg: -1, Call: &sqlprog.WasmCall{Module: "m", Function: "sum", Args: []int{1}, Returns: sqlrow.BigInt}}}}
}

// TestGroupCallsAWasmAggregateOncePerBatch feeds random batches to an
// updating GROUP BY with a Wasm aggregate: each batch costs one add and one
// result call whatever its keys, and each changed key's row holds its
// count and sum over every row so far, computed here by brute force. The
// operator is made anew for each batch over the same state, as after a
// restore, so the accumulators must come from state.
func TestGroupCallsAWasmAggregateOncePerBatch(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 19))
	st := keyed{state.New(memkv.New())}
	fn := &fakeSum{}
	count, sum := map[string]int{}, map[string]int{}
	for b := range 5 {
		var rows [][2]any
		want := map[string]string{}
		for range 1 + r.IntN(30) {
			k, x := string(rune('a'+r.IntN(6))), r.IntN(100)-50
			rows = append(rows, [2]any{k, x})
			count[k], sum[k] = count[k]+1, sum[k]+x
		}
		for _, row := range rows {
			k := row[0].(string)
			want[k] = fmt.Sprintf("%s,%d,%d", k, count[k], sum[k])
		}
		g, err := NewGroup("g", wasmSumAgg(), st, fn)
		if err != nil {
			t.Fatal(err)
		}
		got := emittedRows(t, g, keyedRows(rows...))
		if len(got) != len(want) {
			t.Errorf("batch %d: %d rows, want one per key changed (%d)", b, len(got), len(want))
		}
		for _, line := range got {
			k := line[:1]
			if w := want[k] + "@"; line[:len(w)] != w {
				t.Errorf("batch %d: %s, want %s@...", b, line, want[k])
			}
		}
		if fn.adds != b+1 || fn.fires != b+1 {
			t.Errorf("after batch %d: %d adds and %d results, want %d of each", b, fn.adds, fn.fires, b+1)
		}
	}
}

// TestAggregateWithAWasmAggregate drives a SQL window's Aggregate with a
// Wasm aggregate as host/window does: two adds (one creating, one
// extending an accumulator), a merge of two sessions, a fire of two
// windows at once; each op is one call for all its groups.
func TestAggregateWithAWasmAggregate(t *testing.T) {
	fn := &fakeSum{}
	a, err := NewAggregate(wasmSumAgg(), []window.Function{fn})
	if err != nil {
		t.Fatal(err)
	}
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
	more, err := a.Add(ctx, []window.AddGroup{{Key: key, Acc: accs[1], HasAcc: true, Elems: []window.Elem{elem(-1), elem(5)}}})
	if err != nil {
		t.Fatal(err)
	}
	merged, err := a.Merge(ctx, [][][]byte{{accs[0], more[0]}})
	if err != nil {
		t.Fatal(err)
	}
	var out record.Batch
	fire := []window.FireGroup{{Key: key, W: window.W{Start: 0, End: 10}, Acc: merged[0]}, {Key: key, W: window.W{Start: 10, End: 20}, Acc: more[0]}}
	if err := a.Fire(ctx, fire, &out); err != nil {
		t.Fatal(err)
	}
	// The merged window: 5 rows, 3+4+10-1+5 = 21; the other 3 rows, 14.
	want := []string{"k,0,10,5,21", "k,10,20,3,14"}
	for i, r := range out.Records {
		row, err := sqlrow.DecodeRow(nil, r.Value, 5)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(sqlrow.AppendCSV(nil, row)); i >= len(want) || got != want[i] {
			t.Errorf("row %d: %s, want %v", i, got, want)
		}
	}
	if fn.adds != 2 || fn.merges != 1 || fn.fires != 1 {
		t.Errorf("%d adds, %d merges, %d fires; want 2, 1, 1", fn.adds, fn.merges, fn.fires)
	}
}

// TestWasmAggregateResultChecked refuses a result that is not one value of
// the declared type.
func TestWasmAggregateResultChecked(t *testing.T) {
	for _, tc := range []struct {
		name   string
		result []byte
		want   string
	}{
		{"type", sqlrow.AppendValue(nil, sqlrow.Str("x")), "aggregate sum of module m: the result is a VARCHAR, the function returns BIGINT"},
		{"trailing bytes", append(sqlrow.AppendValue(nil, sqlrow.Int(1)), 0), "aggregate sum of module m: the result holds 1 bytes after its value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, _ := newWasmAggs(wasmSumAgg(), []window.Function{&badResult{tc.result}})
			err := w.results(context.Background(), []sqlrow.Row{{sqlrow.Int(0), sqlrow.Str("1")}})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got %v, want %s...", err, tc.want)
			}
		})
	}
}

// badResult answers every result call with the same bytes.
type badResult struct{ b []byte }

func (f *badResult) Aggregate() bool { return true }
func (f *badResult) Add(context.Context, []window.AddGroup) ([][]byte, error) {
	return nil, nil
}
func (f *badResult) Merge(context.Context, [][][]byte) ([][]byte, error) { return nil, nil }
func (f *badResult) Fire(_ context.Context, groups []window.FireGroup, out *record.Batch) error {
	for range groups {
		out.Append(nil, f.b, 0)
	}
	return nil
}
