package sqlop

import (
	"context"
	"fmt"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/window"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// wasmAggs runs the Wasm aggregate functions of an Aggregation
// (sqlprog.WasmCall) for a batch of groups at once: one floe_window call
// per function folds the rows of every group of the batch into their
// accumulators, one merges, one computes the results (sdk/ABI.md, "SQL
// aggregate functions"). Each function's accumulator is the module's
// bytes, held as one VARCHAR value of the group's accumulator row (NULL
// before the first row).
type wasmAggs struct {
	agg         *sqlprog.Aggregation
	idx, slots  []int
	fns         []window.Function
	groups      [][]window.AddGroup // by function, then group
	out         record.Batch
	fire        []window.FireGroup
	mergeLists  [][][]byte
	mergeGroups []int
}

func newWasmAggs(agg *sqlprog.Aggregation, fns []window.Function) (*wasmAggs, error) {
	w := &wasmAggs{agg: agg, fns: fns}
	w.idx, w.slots = agg.WasmAggs()
	if len(fns) != len(w.idx) {
		return nil, fmt.Errorf("%d Wasm aggregate functions for %d Wasm aggregates", len(fns), len(w.idx))
	}
	w.groups = make([][]window.AddGroup, len(fns))
	return w, nil
}

// any reports whether the aggregation has Wasm aggregates.
func (w *wasmAggs) any() bool { return w != nil && len(w.fns) > 0 }

// reset starts a batch of groups.
func (w *wasmAggs) reset() {
	for k := range w.groups {
		w.groups[k] = w.groups[k][:0]
	}
}

// open adds a group to the batch.
func (w *wasmAggs) open() {
	for k := range w.groups {
		w.groups[k] = append(w.groups[k], window.AddGroup{})
	}
}

// row adds the input row in, of timestamp ts, to group g of the batch.
func (w *wasmAggs) row(g int, in sqlrow.Row, ts int64) {
	for k, i := range w.idx {
		ag := &w.groups[k][g]
		ag.Elems = append(ag.Elems, window.Elem{Value: sqlprog.AppendArgs(nil, w.agg.Aggs[i], in), Timestamp: ts})
	}
}

// add folds the rows given to each group of the batch into its
// accumulator row, accs[g].
func (w *wasmAggs) add(ctx context.Context, accs []sqlrow.Row) error {
	for k, slot := range w.slots {
		gs := w.groups[k]
		for g := range gs {
			gs[g].Acc, gs[g].HasAcc = []byte(accs[g][slot].S), !accs[g][slot].IsNull()
		}
		res, err := w.fns[k].Add(ctx, gs)
		if err != nil {
			return w.wrap(k, err)
		}
		for g := range gs {
			accs[g][slot] = sqlrow.Str(string(res[g]))
		}
	}
	return nil
}

// merge sets each Wasm accumulator of dst[g] to the merge of those of
// lists[g] (those that are not NULL: a list of none leaves it NULL).
func (w *wasmAggs) merge(ctx context.Context, dst []sqlrow.Row, lists [][]sqlrow.Row) error {
	for k, slot := range w.slots {
		w.mergeLists, w.mergeGroups = w.mergeLists[:0], w.mergeGroups[:0]
		for g, list := range lists {
			var accs [][]byte
			for _, acc := range list {
				if !acc[slot].IsNull() {
					accs = append(accs, []byte(acc[slot].S))
				}
			}
			if len(accs) > 0 {
				w.mergeLists, w.mergeGroups = append(w.mergeLists, accs), append(w.mergeGroups, g)
			}
		}
		if len(w.mergeLists) == 0 {
			continue
		}
		res, err := w.fns[k].Merge(ctx, w.mergeLists)
		if err != nil {
			return w.wrap(k, err)
		}
		for j, g := range w.mergeGroups {
			dst[g][slot] = sqlrow.Str(string(res[j]))
		}
	}
	return nil
}

// results replaces each Wasm accumulator of accs by the function's result
// over it: then sqlprog.Aggregation.Result reads the result in its place.
// A NULL accumulator (a group without rows) gives a NULL result.
func (w *wasmAggs) results(ctx context.Context, accs []sqlrow.Row) error {
	for k, slot := range w.slots {
		w.fire = w.fire[:0]
		for _, acc := range accs {
			if !acc[slot].IsNull() {
				w.fire = append(w.fire, window.FireGroup{Acc: []byte(acc[slot].S)})
			}
		}
		if len(w.fire) == 0 {
			continue
		}
		w.out.Reset()
		if err := w.fns[k].Fire(ctx, w.fire, &w.out); err != nil {
			return w.wrap(k, err)
		}
		if w.out.Len() != len(w.fire) {
			return w.wrap(k, fmt.Errorf("it returned %d results for %d groups; a SQL aggregate returns one", w.out.Len(), len(w.fire)))
		}
		want := w.agg.Aggs[w.idx[k]].Call.Returns
		j := 0
		for _, acc := range accs {
			if acc[slot].IsNull() {
				continue
			}
			v, err := resultValue(w.out.Records[j].Value, want)
			if err != nil {
				return w.wrap(k, err)
			}
			acc[slot], j = v, j+1
		}
	}
	return nil
}

// resultValue decodes b, which must be one value of type want or NULL.
func resultValue(b []byte, want sqlrow.Type) (sqlrow.Value, error) {
	v, n, err := sqlrow.DecodeValue(b)
	switch {
	case err != nil:
		return v, fmt.Errorf("the result does not decode as a SQL value: %w", err)
	case n != len(b):
		return v, fmt.Errorf("the result holds %d bytes after its value: want one value", len(b)-n)
	case v.T != sqlrow.Null && v.T != want:
		return v, fmt.Errorf("the result is a %s, the function returns %s", v.T, want)
	}
	return v, nil
}

func (w *wasmAggs) wrap(k int, err error) error {
	c := w.agg.Aggs[w.idx[k]].Call
	return fmt.Errorf("aggregate %s of module %s: %w", c.Function, c.Module, err)
}
