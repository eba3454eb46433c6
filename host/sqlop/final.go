package sqlop

import (
	"context"
	"fmt"
	"slices"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/timer"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// FinalGroup runs a SQL GROUP BY that is final at a bound
// (sqlprog.Aggregation.FinalAt): it keeps each key's values and
// accumulator in keyed state with an event-time timer at the key's bound,
// and when the watermark passes it emits the key's row (key...,
// result...) once, stamped with the bound, and forgets the key. A row
// whose bound the watermark has already passed is late: dropped and
// counted. It is used by one task goroutine.
type FinalGroup struct {
	uid    string
	agg    *sqlprog.Aggregation
	accs   udf.ValueState
	timers *timer.Queue
	wm     int64
	late   int64
	in     sqlrow.Row
}

// NewFinalGroup returns the operator uid, its keys and accumulators in
// the keyed state uid/acc and its timers in q.
func NewFinalGroup(uid string, agg *sqlprog.Aggregation, state udf.Keyed, q *timer.Queue) (*FinalGroup, error) {
	accs, err := state.Value(uid + "/acc")
	if err != nil {
		return nil, fmt.Errorf("sql group %s: %w", uid, err)
	}
	return &FinalGroup{uid: uid, agg: agg, accs: accs, timers: q, wm: record.NoTimestamp}, nil
}

// Process folds the batch's rows into their keys' accumulators.
func (g *FinalGroup) Process(ctx context.Context, in, out *record.Batch) error {
	for i := range in.Records {
		r := &in.Records[i]
		row, err := sqlrow.DecodeRow(g.in, r.Value, len(g.agg.Input))
		if err != nil {
			return fmt.Errorf("sql group %s: a record: %w", g.uid, err)
		}
		g.in = row
		bound := row[*g.agg.FinalAt]
		if bound.IsNull() || (g.wm != record.NoTimestamp && bound.I <= g.wm) {
			g.late++
			continue
		}
		keyRow, acc, err := g.load(r.KeyGroup, r.Key)
		if err != nil {
			return err
		}
		if keyRow == nil {
			keyRow, acc = slices.Clone(row[:g.agg.Keys]), g.agg.NewAcc()
		}
		if err := g.agg.Add(acc, row); err != nil {
			return fmt.Errorf("sql group %s: %w", g.uid, err)
		}
		if err := g.accs.Put(r.KeyGroup, r.Key, sqlrow.AppendRow(sqlrow.AppendRow(nil, keyRow), acc)); err != nil {
			return fmt.Errorf("sql group %s: %w", g.uid, err)
		}
		if err := g.timers.Register(r.KeyGroup, r.Key, udf.EventTime, bound.I); err != nil {
			return fmt.Errorf("sql group %s: %w", g.uid, err)
		}
	}
	return nil
}

// FireTimer emits the row of the key whose bound the watermark passed and
// forgets the key.
func (g *FinalGroup) FireTimer(ctx context.Context, d udf.TimeDomain, ts int64, kg uint16, key []byte, out *record.Batch) error {
	if d != udf.EventTime {
		return nil
	}
	keyRow, acc, err := g.load(kg, key)
	if err != nil || keyRow == nil {
		return err
	}
	out.AppendKeyed(key, sqlrow.AppendRow(nil, g.agg.GroupResult(keyRow, acc)), ts, kg)
	if err := g.accs.Delete(kg, key); err != nil {
		return fmt.Errorf("sql group %s: %w", g.uid, err)
	}
	return nil
}

// load returns the key values and accumulator of key, or nils.
func (g *FinalGroup) load(kg uint16, key []byte) (sqlrow.Row, sqlrow.Row, error) {
	b, ok, err := g.accs.Get(kg, key)
	if err != nil || !ok {
		return nil, nil, err
	}
	// NB: DecodeRow copies what it reads, so the state's slice may go.
	row, err := sqlrow.DecodeRow(nil, b, g.agg.Keys+g.agg.AccLen())
	if err != nil {
		return nil, nil, fmt.Errorf("sql group %s: an accumulator: %w", g.uid, err)
	}
	return row[:g.agg.Keys:g.agg.Keys], row[g.agg.Keys:], nil
}

// SetWatermark tells the operator the task's watermark: rows whose bound
// is at or behind it are late.
func (g *FinalGroup) SetWatermark(wm int64) { g.wm = wm }

// Late returns how many rows came after the watermark passed their bound.
func (g *FinalGroup) Late() int64 { return g.late }

// Close implements the task's Operator; the state is the task's.
func (g *FinalGroup) Close(context.Context) error { return nil }
