package sqlop

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/host/window"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// Group runs a SQL GROUP BY without a window: it keeps each key's
// accumulator in keyed state and, for every batch, emits the new result
// row (key..., result...) of each key the batch changed, once, stamped with
// the key's last record's timestamp; when the aggregation Retracts, the
// key's old row with a last FALSE before the new one with TRUE. It is used
// by one task goroutine.
type Group struct {
	uid  string
	agg  *sqlprog.Aggregation
	accs udf.ValueState
	wasm *wasmAggs

	in, acc sqlrow.Row
	touched map[string]int
	order   []touched
}

// touched is a key a batch changed: its key group, key and accumulator,
// and the timestamp of its last record.
type touched struct {
	kg     uint16
	key    []byte
	keyRow sqlrow.Row
	acc    sqlrow.Row
	ts     int64
	// old is the accumulator before the batch, nil for a new key; kept
	// only when the aggregation Retracts.
	old sqlrow.Row
}

// NewGroup returns the operator uid, its accumulators in the keyed state
// uid/acc; fns run agg's Wasm aggregates, in the order of agg.WasmAggs,
// once per batch for all the keys it changed, and the Group closes them.
func NewGroup(uid string, agg *sqlprog.Aggregation, state udf.Keyed, fns ...window.Function) (*Group, error) {
	accs, err := state.Value(uid + "/acc")
	if err != nil {
		return nil, fmt.Errorf("sql group %s: %w", uid, err)
	}
	w, err := newWasmAggs(agg, fns)
	if err != nil {
		return nil, fmt.Errorf("sql group %s: %w", uid, err)
	}
	return &Group{uid: uid, agg: agg, accs: accs, wasm: w, touched: map[string]int{}}, nil
}

// Process folds the batch's rows into their keys' accumulators and appends
// each changed key's result row to out.
func (g *Group) Process(ctx context.Context, in, out *record.Batch) error {
	clear(g.touched)
	g.order = g.order[:0]
	g.wasm.reset()
	for i := range in.Records {
		r := &in.Records[i]
		row, err := sqlrow.DecodeRow(g.in, r.Value, len(g.agg.Input))
		if err != nil {
			return fmt.Errorf("sql group %s: a record: %w", g.uid, err)
		}
		g.in = row
		k, ok := g.touched[string(r.Key)]
		if !ok {
			acc, had, err := g.load(r.KeyGroup, r.Key)
			if err != nil {
				return err
			}
			var old sqlrow.Row
			if had && g.agg.Retracts {
				old = slices.Clone(acc)
			}
			k = len(g.order)
			g.touched[string(r.Key)] = k
			// NB: the key's values are the row's first ones, whatever
			// bytes the keyBy made of them (row:N or text:N).
			g.order = append(g.order, touched{kg: r.KeyGroup, key: r.Key, keyRow: slices.Clone(row[:g.agg.Keys]), acc: acc, old: old})
			g.wasm.open()
		}
		g.wasm.row(k, row, r.Timestamp)
		if err := g.agg.Add(g.order[k].acc, row); err != nil {
			return fmt.Errorf("sql group %s: %w", g.uid, err)
		}
		g.order[k].ts = r.Timestamp
	}
	return g.emit(ctx, out)
}

// emit stores the accumulators of the keys the batch changed and appends
// their result rows to out; the Wasm aggregates fold the batch's rows
// first, and compute their results after the store.
func (g *Group) emit(ctx context.Context, out *record.Batch) error {
	accs := make([]sqlrow.Row, len(g.order))
	for i, t := range g.order {
		accs[i] = t.acc
	}
	if g.wasm.any() {
		if err := g.wasm.add(ctx, accs); err != nil {
			return fmt.Errorf("sql group %s: %w", g.uid, err)
		}
	}
	for _, t := range g.order {
		if err := g.accs.Put(t.kg, t.key, sqlrow.AppendRow(nil, t.acc)); err != nil {
			return fmt.Errorf("sql group %s: %w", g.uid, err)
		}
	}
	if g.wasm.any() {
		if err := g.wasm.results(ctx, accs); err != nil {
			return fmt.Errorf("sql group %s: %w", g.uid, err)
		}
	}
	var buf []byte
	for _, t := range g.order {
		if !g.agg.Retracts {
			buf = sqlrow.AppendRow(buf[:0], g.agg.GroupResult(t.keyRow, t.acc))
			out.AppendKeyed(t.key, buf, t.ts, t.kg)
			continue
		}
		if t.old != nil {
			buf = sqlrow.AppendRow(buf[:0], g.agg.GroupResult(t.keyRow, t.old))
			out.AppendKeyed(t.key, sqlrow.AppendValue(buf, sqlrow.Bool(false)), t.ts, t.kg)
		}
		buf = sqlrow.AppendRow(buf[:0], g.agg.GroupResult(t.keyRow, t.acc))
		out.AppendKeyed(t.key, sqlrow.AppendValue(buf, sqlrow.Bool(true)), t.ts, t.kg)
	}
	return nil
}

// load returns the accumulator of key and true, or a new one and false.
func (g *Group) load(kg uint16, key []byte) (sqlrow.Row, bool, error) {
	b, ok, err := g.accs.Get(kg, key)
	if err != nil {
		return nil, false, fmt.Errorf("sql group %s: %w", g.uid, err)
	}
	if !ok {
		return g.agg.NewAcc(), false, nil
	}
	// NB: DecodeRow copies what it reads, so the state's slice may go.
	acc, err := sqlrow.DecodeRow(nil, b, g.agg.AccLen())
	if err != nil {
		return nil, false, fmt.Errorf("sql group %s: an accumulator: %w", g.uid, err)
	}
	return acc, true, nil
}

// Close closes the Wasm aggregates' functions; the state is the task's.
func (g *Group) Close(ctx context.Context) error {
	var errs []error
	for _, fn := range g.wasm.fns {
		if c, ok := fn.(interface{ Close(context.Context) error }); ok {
			errs = append(errs, c.Close(ctx))
		}
	}
	return errors.Join(errs...)
}
