package task

import (
	"context"
	"fmt"
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/eventtime"
	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/timer"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/internal/ckmeta"
)

// This file is the task's side of event time and timers: stamping and
// watermarking a source's records, combining the watermarks of a task's
// inputs, and firing the timers of its keyed operators.

// timedOp is a keyed operator of the chain with timers, and its queue.
type timedOp struct {
	idx int // position in Task.ops
	in  timerTarget
	q   *timer.Queue
}

// sourceTime stamps a source task's records and paces its watermarks.
type sourceTime struct {
	extract *eventtime.Extractor // nil: keep the source's timestamps
	gen     *eventtime.Generator
	// splits keeps a watermark per split for a source that reports them
	// (connector.SplitReporter); gen is unused then.
	splits   *eventtime.Splits
	reporter connector.SplitReporter
	pacer    *eventtime.Pacer
}

// stamp gives b's records their event time and notes it for watermarks;
// clock tells the time they were read, which per-split watermarks need.
func (s *sourceTime) stamp(b *record.Batch, clock func() time.Time) error {
	var ids []int
	now := int64(0)
	if s.splits != nil {
		if ids = s.reporter.RecordSplits(); len(ids) != b.Len() {
			return fmt.Errorf("source reported the splits of %d records for a batch of %d", len(ids), b.Len())
		}
		now = clock().UnixMilli()
	}
	for i := range b.Records {
		r := &b.Records[i]
		if s.extract != nil {
			ts, err := s.extract.Timestamp(r.Value)
			if err != nil {
				return fmt.Errorf("source record %s: %w", record.Quote(r.Value), err)
			}
			r.Timestamp = ts
		}
		switch {
		case r.Timestamp == record.NoTimestamp:
		case ids != nil:
			s.splits.Observe(ids[i], r.Timestamp, now)
		default:
			s.gen.Observe(r.Timestamp)
		}
	}
	return nil
}

// sourceWatermark sends the source's watermark on when its interval has
// passed and it advanced, and marks the source idle after its idle timeout
// without records (eventtime.Pacer). n is the number of records of the
// batch just processed.
func (t *Task) sourceWatermark(ctx context.Context, n int) error {
	s := t.et
	if s == nil || t.router == nil {
		return nil
	}
	now := t.env.Now()
	if !s.pacer.Due(now, n) {
		return nil
	}
	wm, splitsIdle := s.gen.Current(), false
	if s.splits != nil {
		wm, splitsIdle = s.splits.Current(now.UnixMilli())
	}
	m, ok := s.pacer.Emit(now, wm, splitsIdle)
	if !ok {
		return nil
	}
	if !m.Idle {
		t.setWatermark(m.Watermark)
	}
	t.Metrics.watermarkSent(m.Watermark, m.Idle)
	return t.router.Watermark(ctx, m.Watermark, m.Idle)
}

// setWatermark tells every Wasm operator of the chain its watermark.
func (t *Task) setWatermark(wm int64) {
	t.Metrics.InputWatermark.Store(wm)
	for _, op := range t.ops {
		if w, ok := op.(watermarked); ok {
			w.SetWatermark(wm)
		}
	}
}

// advanceWatermark moves the task's event time to wm: the operators see it,
// due event-time timers fire in chain order, then the watermark goes on.
func (t *Task) advanceWatermark(ctx context.Context, wm int64) error {
	t.setWatermark(wm)
	if _, err := t.fireTimers(ctx, udf.EventTime, wm); err != nil {
		return err
	}
	if t.router != nil {
		t.Metrics.watermarkSent(wm, false)
		return t.router.Watermark(ctx, wm, false)
	}
	return nil
}

// fireTimers fires the timers of domain d due at upTo, passing what they
// emit through the rest of the chain, and returns how many fired.
func (t *Task) fireTimers(ctx context.Context, d udf.TimeDomain, upTo int64) (int, error) {
	fired := 0
	for i := range t.timed {
		n, err := t.fireDue(ctx, &t.timed[i], d, upTo)
		fired += n
		if err != nil {
			return fired, err
		}
	}
	if fired > 0 {
		t.publishStateSizes()
	}
	return fired, nil
}

// fireDue fires op's timers of domain d due at upTo, in order, sending
// what they emit on, and returns how many fired.
func (t *Task) fireDue(ctx context.Context, op *timedOp, d udf.TimeDomain, upTo int64) (int, error) {
	fired := 0
	for {
		n, err := t.fireSome(ctx, op, d, upTo)
		if err != nil || n == 0 {
			return fired, err
		}
		fired += n
		out := &t.timerOut
		t.opm[op.idx].RecordsOut.Add(int64(out.Len()))
		if out.Len() > 0 {
			if err := t.processFrom(ctx, op.idx+1, out); err != nil {
				return fired, err
			}
		}
	}
}

// batchTimerTarget is an operator that fires many timers in one call (a
// window operator: one call of its function for all their windows).
type batchTimerTarget interface {
	FireTimers(ctx context.Context, timers []timer.Timer, out *record.Batch) error
}

// fireSome fires op's due timers of domain d into t.timerOut: up to a
// batch of them at once if op takes them so, else the next one. It
// returns how many fired.
func (t *Task) fireSome(ctx context.Context, op *timedOp, d udf.TimeDomain, upTo int64) (int, error) {
	b, ok := op.in.(batchTimerTarget)
	if !ok {
		ok, err := t.fireOne(ctx, op, d, upTo)
		if !ok {
			return 0, err
		}
		return 1, err
	}
	t.stateGate.lock()
	defer t.stateGate.unlock()
	t.timerBuf = t.timerBuf[:0]
	for len(t.timerBuf) < t.env.BatchSize {
		tm, ok, err := op.q.Pop(d, upTo)
		if err != nil {
			return 0, fmt.Errorf("timers of %s: %w", t.name, err)
		}
		if !ok {
			break
		}
		t.timerBuf = append(t.timerBuf, tm)
	}
	if len(t.timerBuf) == 0 {
		return 0, nil
	}
	t.timerOut.Reset()
	if err := b.FireTimers(ctx, t.timerBuf, &t.timerOut); err != nil {
		return 0, err
	}
	return len(t.timerBuf), t.drainSide(ctx, op.idx)
}

// fireOne fires op's next timer of domain d if it is due at upTo, into
// t.timerOut, holding the state gate.
func (t *Task) fireOne(ctx context.Context, op *timedOp, d udf.TimeDomain, upTo int64) (bool, error) {
	t.stateGate.lock()
	defer t.stateGate.unlock()
	tm, ok, err := op.q.Pop(d, upTo)
	if err != nil {
		return false, fmt.Errorf("timers of %s: %w", t.name, err)
	}
	if !ok {
		return false, nil
	}
	t.timerOut.Reset()
	if err := op.in.FireTimer(ctx, d, tm.Timestamp, tm.KeyGroup, tm.Key, &t.timerOut); err != nil {
		return false, err
	}
	return true, t.drainSide(ctx, op.idx)
}

// serviceTimers fires the due processing-time timers and arranges to be
// woken for the next one.
func (t *Task) serviceTimers(ctx context.Context) error {
	if len(t.timed) == 0 {
		return nil
	}
	now := t.nowMillis()
	fired, err := t.fireTimers(ctx, udf.ProcessingTime, now)
	if err != nil {
		return err
	}
	if fired > 0 && t.router != nil {
		// What the timers emitted goes out now, not with the next input.
		if err := t.router.Flush(ctx); err != nil {
			return err
		}
	}
	next, any := int64(0), false
	for _, op := range t.timed {
		if ts, ok := op.q.Next(udf.ProcessingTime); ok && (!any || ts < next) {
			next, any = ts, true
		}
	}
	if !any {
		return nil
	}
	d := time.Duration(next-now) * time.Millisecond
	if t.wakeTimer == nil {
		t.wakeTimer = time.AfterFunc(d, t.poke)
	} else {
		t.wakeTimer.Reset(d)
	}
	return nil
}

// endTimers is the end of the task's input. The final watermark (max) has
// fired every event-time timer; the processing-time timers still pending
// do not fire, as in Flink: when they would fire depends on the wall clock,
// not on the input (docs/event-time.md, "Timers at the end of input"). It
// says how many were left, so that they are not dropped silently.
func (t *Task) endTimers() {
	n := 0
	for _, op := range t.timed {
		n += op.q.Len()
	}
	if n > 0 {
		t.env.Logger.Info("input ended: pending processing-time timers will not fire", "task", t.name, "timers", n)
	}
}

// restoreTimers rebuilds the timer queues from the restored keyed state of
// the key groups this subtask owns.
func (t *Task) restoreTimers() error {
	if len(t.timed) == 0 || t.state == nil {
		return nil
	}
	byNS := make(map[string]*timer.Queue, len(t.timed))
	windows := map[string]restoredWindows{}
	for _, op := range t.timed {
		uid := t.stage.Operators[op.idx].UID
		byNS[timer.Namespace(uid)] = op.q
		if w, ok := op.in.(restoredWindows); ok {
			windows[uid+windowsNS] = w
		}
	}
	return t.state.ScanRange(t.keyGroups(), func(kg uint16, ns string, key, rest, _ []byte) error {
		if q, ok := byNS[ns]; ok {
			return q.Restored(kg, key, rest)
		}
		if w, ok := windows[ns]; ok {
			return w.RestoredWindow(kg, key, rest)
		}
		return nil
	})
}

// restoredWindows is a window operator, which sets some of its timers
// again from its restored windows (window.Operator.RestoredWindow).
type restoredWindows interface {
	RestoredWindow(kg uint16, key, mapKey []byte) error
}

// presetOperatorState gives the task's operator list states their restored
// share, before the operators open.
func (t *Task) presetOperatorState(r *ckmeta.Restore) {
	for _, l := range r.Operator {
		kind := udf.KindEvenSplitList
		switch l.Mode {
		case ckmeta.ModeUnion:
			kind = udf.KindUnionList
		case ckmeta.ModeBroadcast:
			kind = udf.KindBroadcastMap
		}
		t.lists.Preset(l.Namespace, kind, l.Elems)
	}
}

// operatorState returns the task's operator list states for a checkpoint.
func (t *Task) operatorState() []ckmeta.OperatorList {
	var out []ckmeta.OperatorList
	for _, l := range t.lists.Snapshot() {
		mode := ckmeta.ModeEvenSplit
		switch l.Kind {
		case udf.KindUnionList:
			mode = ckmeta.ModeUnion
		case udf.KindBroadcastMap:
			mode = ckmeta.ModeBroadcast
		}
		out = append(out, ckmeta.OperatorList{Namespace: l.Namespace, Mode: mode, Elems: l.Elems})
	}
	return out
}

// nowMillis is the task's processing time in ms since the epoch.
func (t *Task) nowMillis() int64 { return t.env.Now().UnixMilli() }
