package metrics

import (
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/task"
)

// taskLabels are the label values of a task's metrics.
type taskLabels struct {
	job, jobName, vertex, subtask string
}

// sample is the values of a task's metrics at one instant.
type sample struct {
	labels     taskLabels
	in, out    int64
	sideDrop   int64
	busy, idle time.Duration
	blocked    time.Duration
	// inWM and outWM are watermarks in ms, record.NoTimestamp when none;
	// lag is the wall clock minus inWM.
	inWM, outWM int64
	lag         time.Duration
	checkpoints int64
	align       time.Duration
	lastAlign   time.Duration
	ops         []opSample
	// bytesRead and bytesTotal are a source's, -1 when it does not say;
	// lags are a partitioned source's.
	bytesRead, bytesTotal int64
	lags                  []connector.PartitionLag
	// queued is the inbox's length, -1 for a task without an inbox.
	queued int
}

// opSample is the values of one chained operator's metrics.
type opSample struct {
	uid, kind   string
	in, out     int64
	late        int64
	window      bool
	guest       bool
	calls       int64
	callTime    time.Duration
	yields      int64
	memoryBytes int64
	batchBytes  int64
	// stateful says the operator runs on keyed state, of stateKeys
	// entries and stateBytes bytes.
	stateful              bool
	stateKeys, stateBytes int64
}

// sample reads en's task. Busy time is what is left of the time since the
// task started once idle and blocked time are taken away; a source's idle
// time is counted only after the call that waited returns, so the
// difference could step back, and the largest value exported so far is
// kept instead.
func (en *entry) sample(now time.Time) sample {
	m := &en.t.Metrics
	elapsed, idle, blocked := m.Stopwatch(now)
	busy := max(elapsed-idle-blocked, en.busy)
	en.busy = busy
	s := sample{
		labels: en.labels, in: m.RecordsIn.Load(), out: m.RecordsOut.Load(), sideDrop: m.SideDropped.Load(),
		busy: busy, idle: idle, blocked: blocked,
		inWM: m.InputWatermark.Load(), outWM: m.OutputWatermark.Load(),
		checkpoints: m.Checkpoints.Load(), align: time.Duration(m.AlignmentNanos.Load()),
		lastAlign: time.Duration(m.LastAlignmentNanos.Load()),
	}
	if s.inWM != record.NoTimestamp {
		s.lag = now.Sub(time.UnixMilli(s.inWM))
	}
	for _, om := range m.Operators() {
		s.ops = append(s.ops, opSampleOf(om))
	}
	s.queued = -1
	if n, ok := m.Queued(); ok {
		s.queued = n
	}
	s.bytesRead, s.bytesTotal = -1, -1
	src := m.Source()
	if p, ok := src.(connector.Progress); ok {
		s.bytesRead, s.bytesTotal = p.BytesRead()
	}
	if l, ok := src.(connector.Lagging); ok {
		s.lags = l.Lags(nil)
	}
	return s
}

func opSampleOf(om *task.OperatorMetrics) opSample {
	o := opSample{uid: om.UID, kind: om.Kind, in: om.RecordsIn.Load(), out: om.RecordsOut.Load(),
		late: om.Late.Load(), window: om.Kind == "window",
		stateful: om.Stateful, stateKeys: om.StateKeys.Load(), stateBytes: om.StateBytes.Load()}
	if g := om.Guest; g != nil {
		o.guest = true
		o.calls, o.callTime, o.yields = g.Calls.Load(), time.Duration(g.CallNanos.Load()), g.Yields.Load()
		o.memoryBytes, o.batchBytes = g.MemoryBytes.Load(), g.BatchBytes.Load()
	}
	return o
}
