package task

import (
	"sync/atomic"
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/sqlop"
	"github.com/floe-stream/floe/host/udf"
)

// Metrics are a task's counters. They are safe to read while it runs. The
// task updates them once per batch, wait or watermark, never per record,
// so that reading them (a heartbeat, a metrics scrape) costs the task
// nothing.
type Metrics struct {
	RecordsIn  atomic.Int64
	RecordsOut atomic.Int64
	// BlockedNanos is the time spent waiting to send downstream: the
	// measure of back-pressure.
	BlockedNanos atomic.Int64
	// SideDropped counts records sent to side outputs the job does not
	// route anywhere.
	SideDropped atomic.Int64

	// StartNanos is when the task began to process records (Unix
	// nanoseconds of the task's clock), 0 until then.
	StartNanos atomic.Int64
	// BlockedSince is when the send in progress began to wait (Unix
	// nanoseconds), 0 when none waits: with BlockedNanos, the blocked time
	// up to any instant.
	BlockedSince atomic.Int64
	// IdleNanos is the time spent waiting for input: on the inbox of a
	// task that has one, in calls to the source that returned no record
	// otherwise. IdleSince is when the inbox wait in progress began.
	IdleNanos atomic.Int64
	IdleSince atomic.Int64
	// InputWatermark is the event time of the task's operators (ms): the
	// least watermark of its inputs, or its source's. OutputWatermark is
	// the last watermark it sent downstream. Both are record.NoTimestamp
	// until the first.
	InputWatermark  atomic.Int64
	OutputWatermark atomic.Int64
	// Checkpoints counts the snapshots the task took; AlignmentNanos is
	// their barrier alignment time, and LastAlignmentNanos the last one's.
	Checkpoints        atomic.Int64
	AlignmentNanos     atomic.Int64
	LastAlignmentNanos atomic.Int64
	// SnapshotNanos is the time the task's loop spent taking snapshots:
	// sending the barrier on, recording the source's position, pre-committing
	// the sink and capturing keyed state. It is neither idle nor blocked
	// time, and not processing either: the autoscaler leaves it out of busy
	// time. (Writing and uploading the snapshot happens off the loop.)
	SnapshotNanos atomic.Int64

	ops    atomic.Pointer[[]*OperatorMetrics]
	source atomic.Pointer[connector.Source]
	queue  atomic.Pointer[pender]
}

// pender is an inbox that can tell how many messages wait in it, safely
// from any goroutine.
type pender interface{ Pending() int }

// Queued returns how many messages (batches, watermarks, barriers) wait in
// the task's inbox; ok is false for a task without an inbox or whose inbox
// cannot tell.
func (m *Metrics) Queued() (n int, ok bool) {
	if p := m.queue.Load(); p != nil {
		return (*p).Pending(), true
	}
	return 0, false
}

// OperatorMetrics are the counters of one operator of a task's chain.
type OperatorMetrics struct {
	// UID is the operator's uid in the job spec.
	UID string
	// Kind is the operator's type in the job spec (map, process, window,
	// keyBy, ...).
	Kind string
	// RecordsIn and RecordsOut count the records the operator was given
	// and the records of its main output, timers' output included.
	RecordsIn  atomic.Int64
	RecordsOut atomic.Int64
	// Late counts the records that came too late for every window, for a
	// window operator.
	Late atomic.Int64
	// Guest is the Wasm instance's call counters; nil for a built-in
	// operator (keyBy on a field).
	Guest *udf.CallStats
	// Stateful says the operator runs on keyed state. StateKeys and
	// StateBytes are then the entries of its state and their bytes
	// (storage/state.Size), exact as of the end of the task's last batch
	// or round of timers.
	Stateful              bool
	StateKeys, StateBytes atomic.Int64

	// late reads a window operator's count after each batch.
	late func() int64
}

// Operators returns the metrics of the chain's operators, in chain order;
// nil until the task has opened them.
func (m *Metrics) Operators() []*OperatorMetrics {
	if p := m.ops.Load(); p != nil {
		return *p
	}
	return nil
}

// Source returns the task's source, nil for a task without one or until it
// is open. Only its methods that say they may be called while it runs
// (connector.Progress, connector.Lagging) may be.
func (m *Metrics) Source() connector.Source {
	if p := m.source.Load(); p != nil {
		return *p
	}
	return nil
}

// Stopwatch returns the time the task has spent idle and blocked up to
// now, waits in progress included, and the time since it started; all
// zero before it started.
func (m *Metrics) Stopwatch(now time.Time) (elapsed, idle, blocked time.Duration) {
	start := m.StartNanos.Load()
	if start == 0 {
		return 0, 0, 0
	}
	n := now.UnixNano()
	upTo := func(total, since *atomic.Int64) time.Duration {
		d := total.Load()
		if s := since.Load(); s != 0 && n > s {
			d += n - s
		}
		return time.Duration(d)
	}
	return time.Duration(n - start), upTo(&m.IdleNanos, &m.IdleSince), upTo(&m.BlockedNanos, &m.BlockedSince)
}

func (m *Metrics) init() {
	m.InputWatermark.Store(record.NoTimestamp)
	m.OutputWatermark.Store(record.NoTimestamp)
}

// openedOperators publishes the metrics of the operators open has made,
// and its source.
func (t *Task) openedOperators() {
	ops := make([]*OperatorMetrics, len(t.ops))
	for i, op := range t.ops {
		om := &OperatorMetrics{}
		switch o := op.(type) {
		case *udf.Instance:
			om.Guest = o.Stats()
		case windowOp:
			om.late = o.Late
			if o.in != nil { // NB: nil for a SQL window's built-in aggregate
				om.Guest = o.in.Stats()
			}
		case joinOp:
			om.late = o.Late
			if o.in != nil {
				om.Guest = o.in.Stats()
			}
		case *sqlop.Over:
			om.late = o.Late
		case *sqlop.FinalGroup:
			om.late = o.Late
		case *keyer:
			if in, ok := o.selector.(*udf.Instance); ok {
				om.Guest = in.Stats()
			}
		}
		if i < len(t.stage.Operators) {
			om.UID, om.Kind = t.stage.Operators[i].UID, string(t.stage.Operators[i].Type)
			om.Stateful = t.state != nil
		} else if k := i - t.chained; k >= 0 && k < len(t.keyBys) {
			om.UID, om.Kind = t.keyBys[k].UID, string(t.keyBys[k].Type)
		}
		ops[i] = om
	}
	t.opm = ops
	t.Metrics.ops.Store(&ops)
	if t.source != nil {
		src := t.source
		t.Metrics.source.Store(&src)
	}
	if p, ok := t.io.In.(pender); ok {
		t.Metrics.queue.Store(&p)
	}
	t.publishStateSizes()
}

// publishStateSizes copies the size of each stateful operator's state to
// its metrics. The task's goroutine calls it after each batch and round of
// timers: it costs a look at each state namespace per operator, and
// nothing per record.
func (t *Task) publishStateSizes() {
	if t.state == nil {
		return
	}
	for _, om := range t.opm {
		if om.Stateful {
			sz := t.state.SizeOf(om.UID)
			om.StateKeys.Store(sz.Keys)
			om.StateBytes.Store(sz.Bytes)
		}
	}
}

// counted notes one batch through operator i.
func (t *Task) counted(i int, in, out *record.Batch) {
	om := t.opm[i]
	om.RecordsIn.Add(int64(in.Len()))
	om.RecordsOut.Add(int64(out.Len()))
	if om.late != nil {
		om.Late.Store(om.late())
	}
}

// waitBegins notes that the task begins to wait for input at now and
// returns now for waitEnds.
func (m *Metrics) waitBegins(now time.Time) int64 {
	n := now.UnixNano()
	m.IdleSince.Store(n)
	return n
}

// waitEnds counts the wait that began at start as idle time.
func (m *Metrics) waitEnds(start int64, now time.Time) {
	m.IdleNanos.Add(now.UnixNano() - start)
	m.IdleSince.Store(0)
}

// watermarkSent notes the watermark wm sent downstream.
func (m *Metrics) watermarkSent(wm int64, idle bool) {
	if !idle {
		m.OutputWatermark.Store(wm)
	}
}

// snapshotted notes a checkpoint whose barriers took align to align.
func (m *Metrics) snapshotted(align time.Duration) {
	m.Checkpoints.Add(1)
	m.AlignmentNanos.Add(int64(align))
	m.LastAlignmentNanos.Store(int64(align))
}

// Vertex returns the name of the job the task belongs to and the name of
// its stage (the vertex of the job graph), for metric labels.
func (t *Task) Vertex() (job, stage string) { return t.spec.Plan.Job.Name, t.stage.Name }
