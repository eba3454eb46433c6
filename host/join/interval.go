package join

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/timer"
	"github.com/floe-stream/floe/host/udf"
)

// IntervalConfig configures an interval join; bounds are in ms.
type IntervalConfig struct {
	// Lower and Upper bound the right record's time relative to the left
	// one's: l.ts + Lower <= r.ts <= l.ts + Upper. Lower <= Upper.
	Lower, Upper int64
	// UpperOf, when set, gives each left row an upper bound of its own, a
	// time in its value (SQL's b.ts BETWEEN a.ts AND a.expires): a right
	// record matches it only at or before that time as well, and the row
	// is kept until the watermark passes it. ok false (a NULL) matches
	// nothing. Upper is then the longest interval any row may have.
	UpperOf func(left []byte) (until int64, ok bool)
	// LateOutput names the side output of late records; "" drops them.
	LateOutput string
	// Outer keeps the rows of its sides that match nothing (outer.go).
	Outer Outer
	// Retract, with Outer, emits an outer row alone as soon as it
	// arrives unmatched and retracts that pair when its first match
	// arrives (an updating result); without it, an outer row is emitted
	// alone once the watermark passes its interval unmatched.
	Retract bool
}

// ErrNoTimestamp is returned for a record without event time.
var ErrNoTimestamp = errors.New("join: a record without a timestamp reached a join (give the sources timestamps)")

// Interval is one subtask of a keyed interval join.
type Interval struct {
	cfg       IntervalConfig
	fn        Combiner
	rows      udf.MapState // key → side, ts, seq → value
	timers    *timer.Queue
	watermark int64
	late      record.Batch
	lateCount int64
	pairs     []Pair
	// groups and order group a batch's records by key (ProcessInput).
	groups map[string]int
	order  [][]int
}

// NewInterval returns an interval join keeping its rows in rows and its
// cleanup timers in timers, both in the subtask's keyed state.
func NewInterval(cfg IntervalConfig, fn Combiner, rows udf.MapState, timers *timer.Queue) (*Interval, error) {
	if cfg.Lower > cfg.Upper {
		return nil, fmt.Errorf("join: the lower bound (%dms) is above the upper bound (%dms)", cfg.Lower, cfg.Upper)
	}
	return &Interval{cfg: cfg, fn: fn, rows: rows, timers: timers, watermark: record.NoTimestamp, groups: map[string]int{}}, nil
}

// SetWatermark tells the operator its event time.
func (o *Interval) SetWatermark(ts int64) { o.watermark = ts }

// SideOutputs returns the late-data output, if any.
func (o *Interval) SideOutputs() []string { return lateOutputs(o.cfg.LateOutput) }

// SideOutput returns the batch of late records since the caller reset it.
func (o *Interval) SideOutput(int) *record.Batch { return &o.late }

// Late returns how many records came too late to join.
func (o *Interval) Late() int64 { return o.lateCount }

// Close implements the task's Operator.
func (o *Interval) Close(context.Context) error { return nil }

// Process joins a batch of the left input.
func (o *Interval) Process(ctx context.Context, in, out *record.Batch) error {
	return o.ProcessInput(ctx, 0, in, out)
}

// ProcessInput joins a batch of input 0 (left) or 1 (right): each record
// with the other side's rows it falls in the interval of, then buffers it.
// The records of one key in a batch match none of each other (they are of
// one side), so each key's rows are read once per batch.
func (o *Interval) ProcessInput(ctx context.Context, input int, in, out *record.Batch) error {
	side := Side(input)
	o.pairs = o.pairs[:0]
	clear(o.groups)
	o.order = o.order[:0]
	for i := range in.Records {
		r := &in.Records[i]
		if r.Timestamp == record.NoTimestamp {
			return ErrNoTimestamp
		}
		if isLate(r.Timestamp, o.watermark) {
			o.lateCount++
			if o.cfg.LateOutput != "" {
				o.late.AppendRecord(r)
			}
			continue
		}
		g, ok := o.groups[string(r.Key)]
		if !ok {
			g = len(o.order)
			o.groups[string(r.Key)] = g
			o.order = append(o.order, nil)
		}
		o.order[g] = append(o.order[g], i)
	}
	for _, idx := range o.order {
		if err := o.addKey(side, in, idx); err != nil {
			return err
		}
	}
	return o.emit(ctx, out)
}

// isLate tells whether a record at ts is at or behind the watermark wm,
// which promises no more records at or before it.
func isLate(ts, wm int64) bool { return wm != record.NoTimestamp && ts <= wm }

// buffered is a row of the other side, as one key's batch matches it.
type buffered struct {
	ts      int64
	value   []byte
	mk      []byte // the row's map key, for an outer row's matched mark
	matched bool
}

// addKey matches the records idx of in, all of one key and of side s,
// with the other side's rows of that key, and buffers them.
func (o *Interval) addKey(s Side, in *record.Batch, idx []int) error {
	first := &in.Records[idx[0]]
	var other []buffered // by time, as the map iterates
	seqs := map[int64]uint64{}
	err := o.rows.Iter(first.KeyGroup, first.Key, func(mk, v []byte) error {
		rs, ts, n, err := decodeIntervalKey(mk)
		switch {
		case err != nil:
			return err
		case rs == s:
			seqs[ts] = max(seqs[ts], n+1)
		default:
			b := buffered{ts: ts, value: bytes.Clone(v)}
			if o.cfg.Outer.has(s.other()) {
				b.mk, b.matched, b.value = bytes.Clone(mk), v[0] == 1, b.value[1:]
			}
			other = append(other, b)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, i := range idx {
		r := &in.Records[i]
		lo, hi := r.Timestamp+o.cfg.Lower, r.Timestamp+o.cfg.Upper // right times a left r matches
		if s == Right {
			lo, hi = r.Timestamp-o.cfg.Upper, r.Timestamp-o.cfg.Lower
		}
		from, _ := slices.BinarySearchFunc(other, lo, func(b buffered, t int64) int { return cmp.Compare(b.ts, t) })
		matched := false
		until := o.until(s, r.Timestamp, r.Value)
		for j := range other[from:] {
			b := &other[from+j]
			if b.ts > hi {
				break
			}
			if b.ts > until || (s == Right && o.until(Left, b.ts, b.value) < r.Timestamp) {
				continue // NB: past the left row's own upper bound
			}
			matched = true
			if err := o.firstMatch(s.other(), r, b); err != nil {
				return err
			}
			p := Pair{Key: r.Key, KeyGroup: r.KeyGroup, HasRight: true, Timestamp: max(b.ts, r.Timestamp)}
			if s == Left {
				p.Left, p.Right = r.Value, b.value
			} else {
				p.Left, p.Right = b.value, r.Value
			}
			o.pairs = append(o.pairs, p)
		}
		cleanup := o.cleanupTime(s, r.Timestamp, r.Value)
		expired := isLate(cleanup, o.watermark)
		o.arrived(s, r, matched, expired)
		if expired {
			continue // no record of the other side can still match it
		}
		seq := seqs[r.Timestamp]
		seqs[r.Timestamp] = seq + 1
		if err := o.rows.Put(r.KeyGroup, r.Key, intervalKey(s, r.Timestamp, seq), o.stored(s, r.Value, matched)); err != nil {
			return err
		}
		if err := o.timers.Register(r.KeyGroup, r.Key, udf.EventTime, cleanup); err != nil {
			return err
		}
	}
	return nil
}

// cleanupTime is the watermark from which a row of side s at ts can match
// no record still to come: every record after it is later than the row's
// interval.
func (o *Interval) cleanupTime(s Side, ts int64, value []byte) int64 {
	if s == Left {
		return o.until(Left, ts, value)
	}
	return ts - o.cfg.Lower
}

// until is the last time a right record may have to match the left row
// at ts: ts + Upper, or the row's own bound (UpperOf) when earlier; for a
// right record, no bound of its own.
func (o *Interval) until(s Side, ts int64, value []byte) int64 {
	if s == Right {
		return math.MaxInt64
	}
	u := ts + o.cfg.Upper
	if o.cfg.UpperOf != nil {
		own, ok := o.cfg.UpperOf(value)
		if !ok {
			return math.MinInt64 + 1 // NB: matches nothing, kept for no time
		}
		u = min(u, own)
	}
	return u
}

func (o *Interval) emit(ctx context.Context, out *record.Batch) error {
	if len(o.pairs) == 0 {
		return nil
	}
	err := o.fn.Combine(ctx, o.pairs, out)
	o.pairs = o.pairs[:0]
	return err
}

// FireTimer deletes the rows of key whose cleanup time is at or before ts,
// or before the watermark when it is later, and emits those of an outer
// side that matched nothing alone, unless the join retracts (outer.go).
//
// NB: the task fires every timer up to the watermark before it passes the
// watermark on, so the key's later timers up to it would fire in this
// round anyway; each would read all of the key's rows again. Deleting
// their rows now and their timers with them reads the rows once per round:
// one read per row was most of the CPU of Nexmark q9 in SQL (RATIONALE.md).
func (o *Interval) FireTimer(ctx context.Context, _ udf.TimeDomain, ts int64, kg uint16, key []byte, out *record.Batch) error {
	upTo := ts
	if o.watermark != record.NoTimestamp {
		upTo = max(upTo, o.watermark)
	}
	var drop [][]byte
	var later []int64 // cleanup times of dropped rows whose timers are pending
	err := o.rows.Iter(kg, key, func(mk, v []byte) error {
		s, rts, _, err := decodeIntervalKey(mk)
		if err != nil {
			return err
		}
		if c := o.cleanupTime(s, rts, o.unmarked(s, v)); c <= upTo {
			drop = append(drop, bytes.Clone(mk))
			o.expired(s, kg, key, rts, v)
			if c > ts {
				later = append(later, c)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, mk := range drop {
		if err := o.rows.Delete(kg, key, mk); err != nil {
			return err
		}
	}
	for _, c := range later {
		if err := o.timers.Delete(kg, key, udf.EventTime, c); err != nil {
			return err
		}
	}
	return o.emit(ctx, out)
}

func lateOutputs(name string) []string {
	if name == "" {
		return nil
	}
	return []string{name}
}
