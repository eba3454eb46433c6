package join

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/timer"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/host/window"
)

// Kind is how a window join pairs a window's rows.
type Kind string

// The window join kinds.
const (
	// Inner emits every left row with every right row of the window.
	Inner Kind = "inner"
	// LeftOuter emits what Inner does, and each left row of a window with
	// no right rows alone.
	LeftOuter Kind = "leftOuter"
)

// WindowConfig configures a window join; times are in ms of event time.
type WindowConfig struct {
	Spec window.Spec
	Kind Kind
	// AllowedLateness keeps a fired window that long, so that late records
	// join it and fire it again.
	AllowedLateness int64
	// LateOutput names the side output of records too late for every
	// window they belong to; "" drops them.
	LateOutput string
}

// Window is one subtask of a keyed window join.
type Window struct {
	cfg       WindowConfig
	fn        Combiner
	rows      udf.MapState // key → window, side, seq → value; window, 2 → next seq
	timers    *timer.Queue
	watermark int64
	late      record.Batch
	lateCount int64
	pairs     []Pair
	ws        []window.W
	index     []byte // an encoded session index (sessions.go)
}

// The byte after a window's 16 in a map key that marks its sequence
// counter; rows have their Side there.
const counterMark = 2

// NewWindow returns a window join keeping its windows' rows in rows and
// its timers in timers, both in the subtask's keyed state.
func NewWindow(cfg WindowConfig, fn Combiner, rows udf.MapState, timers *timer.Queue) (*Window, error) {
	if err := cfg.Spec.Validate(); err != nil {
		return nil, fmt.Errorf("join: %w", err)
	}
	if cfg.Kind != Inner && cfg.Kind != LeftOuter {
		return nil, fmt.Errorf("join: unknown join kind %q (want inner or leftOuter)", cfg.Kind)
	}
	return &Window{cfg: cfg, fn: fn, rows: rows, timers: timers, watermark: record.NoTimestamp}, nil
}

// SetWatermark tells the operator its event time.
func (o *Window) SetWatermark(ts int64) { o.watermark = ts }

// SideOutputs returns the late-data output, if any.
func (o *Window) SideOutputs() []string { return lateOutputs(o.cfg.LateOutput) }

// SideOutput returns the batch of late records since the caller reset it.
func (o *Window) SideOutput(int) *record.Batch { return &o.late }

// Late returns how many records came too late for any window.
func (o *Window) Late() int64 { return o.lateCount }

// Close implements the task's Operator.
func (o *Window) Close(context.Context) error { return nil }

// Process adds a batch of the left input.
func (o *Window) Process(ctx context.Context, in, out *record.Batch) error {
	return o.ProcessInput(ctx, 0, in, out)
}

// isLate tells whether w is past its allowed lateness.
func (o *Window) isLate(w window.W) bool {
	return isLate(w.MaxTimestamp()+o.cfg.AllowedLateness, o.watermark)
}

// fired tells whether w has fired already.
func (o *Window) fired(w window.W) bool { return isLate(w.MaxTimestamp(), o.watermark) }

// refire is a window that late records of this batch joined.
type refire struct {
	kg  uint16
	key []byte
	w   window.W
}

// ProcessInput adds a batch of input 0 (left) or 1 (right) to the windows
// its records belong to; out gets the pairs of fired windows that late
// records within the allowed lateness joined, which fire again.
func (o *Window) ProcessInput(ctx context.Context, input int, in, out *record.Batch) error {
	side := Side(input)
	var again []refire
	seen := map[string]bool{}
	for i := range in.Records {
		r := &in.Records[i]
		if r.Timestamp == record.NoTimestamp {
			return ErrNoTimestamp
		}
		if o.cfg.Spec.Kind == window.Session {
			w := window.W{Start: r.Timestamp, End: r.Timestamp + o.cfg.Spec.Gap}
			if o.isLate(w) {
				o.toLate(r)
				continue
			}
			merged, err := o.mergeSession(r.KeyGroup, r.Key, side, r.Value, w)
			if err != nil {
				return err
			}
			if o.fired(merged) {
				again = append(again, refire{r.KeyGroup, bytes.Clone(r.Key), merged})
			}
			continue
		}
		o.ws = o.cfg.Spec.Assign(o.ws[:0], r.Timestamp)
		placed := false
		for _, w := range o.ws {
			if o.isLate(w) {
				continue
			}
			placed = true
			if err := o.addRows(r.KeyGroup, r.Key, w, []row{{side, r.Value}}); err != nil {
				return err
			}
			if id := string(windowKey(w)) + string(r.Key); o.fired(w) && !seen[id] {
				seen[id] = true
				again = append(again, refire{r.KeyGroup, bytes.Clone(r.Key), w})
			}
		}
		if !placed {
			o.toLate(r)
		}
	}
	for _, f := range again {
		if err := o.fireOne(f.kg, f.key, f.w); err != nil {
			return err
		}
	}
	return o.emit(ctx, out)
}

func (o *Window) toLate(r *record.Record) {
	o.lateCount++
	if o.cfg.LateOutput != "" {
		o.late.AppendRecord(r)
	}
}

// row is one buffered record of a window.
type row struct {
	side  Side
	value []byte
}

// addRows appends rows to window w of key and registers its timers.
func (o *Window) addRows(kg uint16, key []byte, w window.W, rows []row) error {
	ck := append(windowKey(w), counterMark)
	var n uint64
	v, ok, err := o.rows.Get(kg, key, ck)
	if err != nil {
		return err
	}
	if ok && len(v) == 8 {
		n = binary.BigEndian.Uint64(v)
	}
	for _, r := range rows {
		if err := o.rows.Put(kg, key, rowKey(w, r.side, n), r.value); err != nil {
			return err
		}
		n++
	}
	if err := o.rows.Put(kg, key, ck, binary.BigEndian.AppendUint64(nil, n)); err != nil {
		return err
	}
	return o.register(kg, key, w)
}

// register sets the timers of window w of key: firing, and cleanup after
// the allowed lateness.
func (o *Window) register(kg uint16, key []byte, w window.W) error {
	if !o.fired(w) {
		if err := o.timers.Register(kg, key, udf.EventTime, w.MaxTimestamp()); err != nil {
			return err
		}
	}
	if o.cfg.AllowedLateness > 0 {
		return o.timers.Register(kg, key, udf.EventTime, w.MaxTimestamp()+o.cfg.AllowedLateness)
	}
	return nil
}

// loaded is one window of a key and its rows, in arrival order.
type loaded struct {
	kg   uint16
	w    window.W
	rows []row
}

// load returns the windows of key, by start then end.
func (o *Window) load(kg uint16, key []byte) ([]loaded, error) {
	var out []loaded
	err := o.rows.Iter(kg, key, func(mk, v []byte) error {
		if len(mk) == len(sessionsKey) && mk[0] == sessionsKey[0] {
			return nil
		}
		if len(mk) < 17 {
			return fmt.Errorf("join: corrupt window row key %x", mk)
		}
		w := decodeWindowKey(mk)
		if len(out) == 0 || out[len(out)-1].w != w {
			out = append(out, loaded{kg: kg, w: w})
		}
		if mk[16] != counterMark {
			l := &out[len(out)-1]
			l.rows = append(l.rows, row{Side(mk[16]), bytes.Clone(v)})
		}
		return nil
	})
	return out, err
}

// fireOne appends the pairs of window w of key.
func (o *Window) fireOne(kg uint16, key []byte, w window.W) error {
	if o.cfg.Spec.Kind == window.Session {
		return o.fireSessions(kg, key, 0, &w)
	}
	wins, err := o.load(kg, key)
	if err != nil {
		return err
	}
	for _, x := range wins {
		if x.w == w {
			o.pair(kg, key, x)
		}
	}
	return nil
}

// pair appends the pairs of one loaded window.
func (o *Window) pair(kg uint16, key []byte, x loaded) {
	ts := x.w.MaxTimestamp()
	matched := false
	for _, r := range x.rows {
		if r.side == Right {
			matched = true
			break
		}
	}
	for _, l := range x.rows {
		if l.side != Left {
			continue
		}
		if !matched && o.cfg.Kind == LeftOuter {
			o.pairs = append(o.pairs, Pair{Key: key, KeyGroup: kg, Left: l.value, Timestamp: ts, WindowStart: x.w.Start})
			continue
		}
		for _, r := range x.rows {
			if r.side == Right {
				o.pairs = append(o.pairs, Pair{Key: key, KeyGroup: kg, Left: l.value, Right: r.value, HasRight: true, Timestamp: ts, WindowStart: x.w.Start})
			}
		}
	}
}

// FireTimer emits the pairs of the windows of key whose last instant is
// ts and drops those past their allowed lateness.
func (o *Window) FireTimer(ctx context.Context, _ udf.TimeDomain, ts int64, kg uint16, key []byte, out *record.Batch) error {
	key = bytes.Clone(key)
	if o.cfg.Spec.Kind == window.Session {
		if err := o.fireSessions(kg, key, ts, nil); err != nil {
			return err
		}
		return o.emit(ctx, out)
	}
	wins, err := o.load(kg, key)
	if err != nil {
		return err
	}
	for _, x := range wins {
		if x.w.MaxTimestamp() == ts {
			o.pair(kg, key, x)
		}
		if x.w.MaxTimestamp()+o.cfg.AllowedLateness <= ts {
			if err := o.drop(kg, key, x.w); err != nil {
				return err
			}
		}
	}
	return o.emit(ctx, out)
}

// drop deletes window w of key: its rows and its counter.
func (o *Window) drop(kg uint16, key []byte, w window.W) error {
	return udf.DeletePrefix(o.rows, kg, key, windowKey(w))
}

func (o *Window) emit(ctx context.Context, out *record.Batch) error {
	if len(o.pairs) == 0 {
		return nil
	}
	err := o.fn.Combine(ctx, o.pairs, out)
	o.pairs = o.pairs[:0]
	return err
}

// windowKey encodes a window so that byte order is start order.
func windowKey(w window.W) []byte {
	k := make([]byte, 16, 25)
	binary.BigEndian.PutUint64(k, flip(w.Start))
	binary.BigEndian.PutUint64(k[8:], flip(w.End))
	return k
}

func rowKey(w window.W, s Side, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(append(windowKey(w), byte(s)), seq)
}

func decodeWindowKey(mk []byte) window.W {
	return window.W{Start: unflip(binary.BigEndian.Uint64(mk)), End: unflip(binary.BigEndian.Uint64(mk[8:]))}
}
