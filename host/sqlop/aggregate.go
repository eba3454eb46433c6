package sqlop

import (
	"context"
	"fmt"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/window"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// Aggregate is a SQL window's aggregate function: a window.Function whose
// accumulators are encoded rows (sqlprog.Aggregation.NewAcc) and whose
// results are the rows key..., window_start, window_end, result..., each
// stamped with the window's last instant. The Wasm aggregates among its
// functions are called once per batch of groups (wasmagg.go).
type Aggregate struct {
	Agg *sqlprog.Aggregation

	wasm           *wasmAggs
	in, acc, other sqlrow.Row
}

// NewAggregate returns the window function of agg whose Wasm aggregates,
// in the order of agg.WasmAggs, fns run.
func NewAggregate(agg *sqlprog.Aggregation, fns []window.Function) (*Aggregate, error) {
	w, err := newWasmAggs(agg, fns)
	if err != nil {
		return nil, fmt.Errorf("sql window: %w", err)
	}
	return &Aggregate{Agg: agg, wasm: w}, nil
}

var _ window.Function = (*Aggregate)(nil)

// Aggregate implements window.Function.
func (a *Aggregate) Aggregate() bool { return true }

// Add implements window.Function.
func (a *Aggregate) Add(ctx context.Context, groups []window.AddGroup) ([][]byte, error) {
	out := make([][]byte, len(groups))
	if a.wasm.any() {
		return out, a.addWasm(ctx, groups, out)
	}
	for i, g := range groups {
		acc, err := a.decodeAcc(&a.acc, g.Acc, g.HasAcc)
		if err != nil {
			return nil, err
		}
		if err := a.fold(acc, g, -1); err != nil {
			return nil, err
		}
		out[i] = sqlrow.AppendRow(nil, acc)
	}
	return out, nil
}

// fold adds the group's records to acc, and hands them to the Wasm
// aggregates as the batch's group i (unless i is -1).
func (a *Aggregate) fold(acc sqlrow.Row, g window.AddGroup, i int) error {
	var err error
	for _, e := range g.Elems {
		if a.in, err = sqlrow.DecodeRow(a.in, e.Value, len(a.Agg.Input)); err != nil {
			return fmt.Errorf("sql window: a record: %w", err)
		}
		if err := a.Agg.Add(acc, a.in); err != nil {
			return fmt.Errorf("sql window: %w", err)
		}
		if i >= 0 {
			a.wasm.row(i, a.in, e.Timestamp)
		}
	}
	return nil
}

// addWasm is Add for an aggregation with Wasm aggregates: every group's
// accumulator is kept until one call per function has folded them all.
func (a *Aggregate) addWasm(ctx context.Context, groups []window.AddGroup, out [][]byte) error {
	accs := make([]sqlrow.Row, len(groups))
	a.wasm.reset()
	for i, g := range groups {
		a.wasm.open()
		var err error
		if accs[i], err = a.decodeAcc(new(sqlrow.Row), g.Acc, g.HasAcc); err != nil {
			return err
		}
		if err := a.fold(accs[i], g, i); err != nil {
			return err
		}
	}
	if err := a.wasm.add(ctx, accs); err != nil {
		return fmt.Errorf("sql window: %w", err)
	}
	for i, acc := range accs {
		out[i] = sqlrow.AppendRow(nil, acc)
	}
	return nil
}

// decodeAcc returns the accumulator b, or a new one when has is false.
func (a *Aggregate) decodeAcc(dst *sqlrow.Row, b []byte, has bool) (sqlrow.Row, error) {
	if !has {
		return a.Agg.NewAcc(), nil
	}
	r, err := sqlrow.DecodeRow(*dst, b, a.Agg.AccLen())
	if err != nil {
		return nil, fmt.Errorf("sql window: an accumulator: %w", err)
	}
	*dst = r
	return r, nil
}

// Merge implements window.Function.
func (a *Aggregate) Merge(ctx context.Context, groups [][][]byte) ([][]byte, error) {
	out := make([][]byte, len(groups))
	merged := make([]sqlrow.Row, len(groups))
	var lists [][]sqlrow.Row
	if a.wasm.any() {
		lists = make([][]sqlrow.Row, len(groups))
	}
	for i, accs := range groups {
		merged[i] = a.Agg.NewAcc()
		for _, b := range accs {
			dst := &a.other
			if lists != nil {
				dst = new(sqlrow.Row)
			}
			o, err := a.decodeAcc(dst, b, true)
			if err != nil {
				return nil, err
			}
			if err := a.Agg.Merge(merged[i], o); err != nil {
				return nil, fmt.Errorf("sql window: %w", err)
			}
			if lists != nil {
				lists[i] = append(lists[i], o)
			}
		}
	}
	if lists != nil {
		if err := a.wasm.merge(ctx, merged, lists); err != nil {
			return nil, fmt.Errorf("sql window: %w", err)
		}
	}
	for i, acc := range merged {
		out[i] = sqlrow.AppendRow(nil, acc)
	}
	return out, nil
}

// Fire implements window.Function.
func (a *Aggregate) Fire(ctx context.Context, groups []window.FireGroup, out *record.Batch) error {
	accs := make([]sqlrow.Row, len(groups))
	for i, g := range groups {
		var err error
		if accs[i], err = a.decodeAcc(new(sqlrow.Row), g.Acc, true); err != nil {
			return err
		}
	}
	if a.wasm.any() {
		if err := a.wasm.results(ctx, accs); err != nil {
			return fmt.Errorf("sql window: %w", err)
		}
	}
	var buf []byte
	for i, g := range groups {
		key, err := sqlrow.DecodeRow(nil, g.Key, a.Agg.Keys)
		if err != nil {
			return fmt.Errorf("sql window: a key: %w", err)
		}
		buf = sqlrow.AppendRow(buf[:0], a.Agg.Result(key, g.W.Start, g.W.End, accs[i]))
		out.Append(g.Key, buf, g.W.MaxTimestamp())
	}
	return nil
}
