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

// Over runs SQL aggregates over a ROWS frame (sqlprog.Over): it keeps each
// partition's rows that the watermark has not passed (pending, a list
// appended to), the accumulator of its UNBOUNDED PRECEDING aggregates
// (running) and the
// arguments of its last rows (the frame) in keyed state, with an
// event-time timer at each pending row's time. When the watermark passes
// a time, the partition's rows due are applied in ORDER BY order (ties in
// the order they arrived): each joins the frame and is emitted with the
// aggregates over it, stamped with its time. A row whose time the
// watermark has already passed is late: dropped and counted, as Flink's
// row-based OVER does. It is used by one task goroutine.
type Over struct {
	uid     string
	over    *sqlprog.Over
	sort    *sqlprog.TopN
	pending udf.ListState
	frame   udf.ValueState
	running udf.ValueState
	// agg is the over's Running aggregation, or nil.
	agg    *sqlprog.Aggregation
	timers *timer.Queue
	wm     int64
	late   int64
	row    sqlrow.Row
}

// NewOver returns the operator uid, its rows in the keyed list state
// uid/pending and value state uid/frame, and its timers in q.
func NewOver(uid string, over *sqlprog.Over, state udf.Keyed, q *timer.Queue) (*Over, error) {
	pending, err := state.List(uid + "/pending")
	if err != nil {
		return nil, fmt.Errorf("sql over %s: %w", uid, err)
	}
	frame, err := state.Value(uid + "/frame")
	if err != nil {
		return nil, fmt.Errorf("sql over %s: %w", uid, err)
	}
	running, err := state.Value(uid + "/running")
	if err != nil {
		return nil, fmt.Errorf("sql over %s: %w", uid, err)
	}
	return &Over{uid: uid, over: over, sort: over.Sort(), pending: pending, frame: frame, running: running,
		agg: over.Running(), timers: q, wm: record.NoTimestamp}, nil
}

// Process keeps each row of the batch until the watermark passes its time.
func (o *Over) Process(ctx context.Context, in, out *record.Batch) error {
	for i := range in.Records {
		r := &in.Records[i]
		row, err := sqlrow.DecodeRow(o.row, r.Value, len(o.over.Input))
		if err != nil {
			return fmt.Errorf("sql over %s: a record: %w", o.uid, err)
		}
		o.row = row
		t := row[o.over.Time]
		if t.IsNull() || (o.wm != record.NoTimestamp && t.I <= o.wm) {
			o.late++
			continue
		}
		if err := o.pending.Append(r.KeyGroup, r.Key, r.Value); err != nil {
			return fmt.Errorf("sql over %s: %w", o.uid, err)
		}
		if err := o.timers.Register(r.KeyGroup, r.Key, udf.EventTime, t.I); err != nil {
			return fmt.Errorf("sql over %s: %w", o.uid, err)
		}
	}
	return nil
}

// FireTimer applies the partition's rows due at ts and appends their
// output rows to out.
func (o *Over) FireTimer(ctx context.Context, d udf.TimeDomain, ts int64, kg uint16, key []byte, out *record.Batch) error {
	if d != udf.EventTime {
		return nil
	}
	var due []sqlrow.Row
	var rest [][]byte
	err := o.pending.Get(kg, key, func(elem []byte) error {
		// NB: DecodeRow copies what it reads, so the state's slice may go.
		row, err := sqlrow.DecodeRow(nil, elem, len(o.over.Input))
		switch {
		case err != nil:
			return err
		case row[o.over.Time].I <= ts:
			due = append(due, row)
		default:
			rest = append(rest, slices.Clone(elem))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sql over %s: its pending rows: %w", o.uid, err)
	}
	if len(due) == 0 {
		return nil
	}
	slices.SortStableFunc(due, func(a, b sqlrow.Row) int {
		switch {
		case o.sort.Before(a, b):
			return -1
		case o.sort.Before(b, a):
			return 1
		}
		return 0
	})
	frame, err := o.load(o.frame, kg, key, len(o.over.Aggs))
	if err != nil {
		return err
	}
	acc, err := o.runningAcc(kg, key)
	if err != nil {
		return err
	}
	var buf []byte
	for _, row := range due {
		args := o.over.Args(nil, row)
		frame = append(frame, args)
		if n := o.over.Frame(); len(frame) > n {
			frame = frame[len(frame)-n:]
		}
		if o.agg != nil {
			if err := o.agg.Add(acc, args); err != nil {
				return fmt.Errorf("sql over %s: %w", o.uid, err)
			}
		}
		res, err := o.over.Results(row, frame, acc)
		if err != nil {
			return fmt.Errorf("sql over %s: %w", o.uid, err)
		}
		buf = sqlrow.AppendRow(buf[:0], res)
		out.AppendKeyed(key, buf, row[o.over.Time].I, kg)
	}
	if err := o.store(o.frame, kg, key, frame); err != nil {
		return err
	}
	if o.agg != nil {
		if err := o.running.Put(kg, key, sqlrow.AppendRow(nil, acc)); err != nil {
			return fmt.Errorf("sql over %s: %w", o.uid, err)
		}
	}
	return o.keep(kg, key, rest)
}

// runningAcc returns the accumulator of the unbounded aggregates for key,
// a new one if it has none, or nil when the over has none.
func (o *Over) runningAcc(kg uint16, key []byte) (sqlrow.Row, error) {
	if o.agg == nil {
		return nil, nil
	}
	b, ok, err := o.running.Get(kg, key)
	if err != nil {
		return nil, fmt.Errorf("sql over %s: %w", o.uid, err)
	}
	if !ok {
		return o.agg.NewAcc(), nil
	}
	acc, err := sqlrow.DecodeRow(nil, b, o.agg.AccLen())
	if err != nil {
		return nil, fmt.Errorf("sql over %s: its running accumulator: %w", o.uid, err)
	}
	return acc, nil
}

// keep leaves only rest, encoded rows, pending for key.
func (o *Over) keep(kg uint16, key []byte, rest [][]byte) error {
	if err := o.pending.Clear(kg, key); err != nil {
		return fmt.Errorf("sql over %s: %w", o.uid, err)
	}
	for _, b := range rest {
		if err := o.pending.Append(kg, key, b); err != nil {
			return fmt.Errorf("sql over %s: %w", o.uid, err)
		}
	}
	return nil
}

// load returns the rows of n values each that st holds for key.
func (o *Over) load(st udf.ValueState, kg uint16, key []byte, n int) ([]sqlrow.Row, error) {
	b, ok, err := st.Get(kg, key)
	if err != nil || !ok {
		return nil, err
	}
	rows, err := decodeRows(b, n)
	if err != nil {
		return nil, fmt.Errorf("sql over %s: its state: %w", o.uid, err)
	}
	return rows, nil
}

// store writes rows under key in st, or deletes the key for none.
func (o *Over) store(st udf.ValueState, kg uint16, key []byte, rows []sqlrow.Row) error {
	var err error
	if len(rows) == 0 {
		err = st.Delete(kg, key)
	} else {
		var b []byte
		for _, row := range rows {
			b = sqlrow.AppendRow(b, row)
		}
		err = st.Put(kg, key, b)
	}
	if err != nil {
		return fmt.Errorf("sql over %s: %w", o.uid, err)
	}
	return nil
}

// SetWatermark tells the operator the task's watermark: rows at or behind
// it are late.
func (o *Over) SetWatermark(wm int64) { o.wm = wm }

// Late returns how many rows came after the watermark passed their time.
func (o *Over) Late() int64 { return o.late }

// Close implements the task's Operator; the state is the task's.
func (o *Over) Close(context.Context) error { return nil }
