package task

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/floe-stream/floe/host/eventtime"
	"github.com/floe-stream/floe/host/exchange"
	"github.com/floe-stream/floe/host/task/internal/align"
	"github.com/floe-stream/floe/internal/plan"
)

// A partial rescale (scheduler/internal/lifecycle/partial.go) keeps the
// tasks of the stages it does not change. Its checkpoint is a suspend
// checkpoint: a source is triggered for it with TriggerSuspend, and every
// task forwards its barrier marked Suspend (exchange.Message). A task that
// has taken a suspend checkpoint and forwarded its barrier reads and sends
// nothing more, so that the checkpoint is a consistent cut of the job as
// it will run on; it keeps its operators, their Wasm instances and its
// keyed state. While suspended it still commits completed checkpoints (a
// sink's output of the suspend checkpoint) and answers state lookups. It
// goes on when Resume hands it its wiring in the job's new plan (new
// downstream subtasks, a new count of channels in), or ends when cancelled.

// Rewire is a suspended task's wiring in the job's plan after a partial
// rescale: the plan, in which the task's own stage is unchanged, and the
// task's input and outputs in it.
type Rewire struct {
	Plan *plan.Plan
	IO   IO
}

// suspension is a task's side of a partial rescale.
type suspension struct {
	// at is the suspend checkpoint the task was told of, by TriggerSuspend
	// or by a barrier marked Suspend; 0 for none.
	at atomic.Int64
	// resume hands the task its Rewire; it holds one.
	resume chan Rewire
	// rewired tells runInbox, after a resume, that its inbox changed.
	// The task loop owns it.
	rewired bool
	// count is how many times the task was suspended.
	count atomic.Int64
}

// TriggerSuspend is TriggerCheckpoint for the suspend checkpoint id of a
// partial rescale: once the source has taken it, it suspends.
func (t *Task) TriggerSuspend(id int64) bool {
	t.susp.at.Store(id)
	return t.TriggerCheckpoint(id)
}

// Resume hands a task suspended at a partial rescale's checkpoint (or
// about to be: it may not have reached the end of its snapshot yet) its
// new wiring. It fails if a Resume is already waiting.
func (t *Task) Resume(r Rewire) error {
	if r.Plan == nil || t.spec.Stage >= len(r.Plan.Stages) || r.Plan.Stages[t.spec.Stage].Name != t.stage.Name ||
		r.Plan.Stages[t.spec.Stage].Parallelism != t.stage.Parallelism {
		return fmt.Errorf("task %s: resume with a plan that changes its own stage", t.name)
	}
	select {
	case t.susp.resume <- r:
		t.poke()
		return nil
	default:
		return errors.New("task " + t.name + ": a resume is already waiting")
	}
}

// Suspensions returns how many times the task was suspended at a partial
// rescale's checkpoint.
func (t *Task) Suspensions() int64 { return t.susp.count.Load() }

// suspending reports whether checkpoint id is the suspend checkpoint.
func (t *Task) suspending(id int64) bool { return id != 0 && t.susp.at.Load() == id }

// suspended waits, after the task took suspend checkpoint id, until it is
// resumed or cancelled; meanwhile it commits completed checkpoints and
// answers lookups. Checkpoint triggers wait for the resume. The wait is
// idle time.
func (t *Task) suspended(ctx context.Context, id int64) error {
	t.susp.count.Add(1)
	t.env.Logger.Info("suspended at a partial rescale's checkpoint", "task", t.name, "checkpoint", id)
	start := t.Metrics.waitBegins(t.env.Now())
	defer func() { t.Metrics.waitEnds(start, t.env.Now()) }()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case r := <-t.susp.resume:
			t.susp.at.Store(0)
			return t.rewire(ctx, r)
		case cid := <-t.ckpt.commits:
			if err := t.commit(cid); err != nil {
				return err
			}
		case <-t.wake:
			t.serviceQueries()
		}
	}
}

// rewire puts the task on its new wiring: the new plan, new routers over
// the new senders (the keyers of the output edges kept), and for a task
// that reads an inbox, the new inbox with fresh alignment, and watermark
// tracking of the new channels from the task's watermark on. Nothing may
// wait in alignment: every sender suspended after the barrier.
func (t *Task) rewire(ctx context.Context, r Rewire) error {
	if t.align != nil {
		if m, held := t.align.Replay(); held && !m.End {
			return fmt.Errorf("task %s: input after a suspend barrier from channel %d", t.name, m.From)
		}
	}
	t.spec.Plan, t.stage = r.Plan, &r.Plan.Stages[t.spec.Stage]
	t.io = r.IO
	if err := t.rewireOutputs(); err != nil {
		return err
	}
	if t.io.In != nil {
		n := t.io.In.Senders()
		if want := r.Plan.Channels(t.spec.Stage); n != want {
			return fmt.Errorf("task %s: resumed with %d channels in, its plan has %d", t.name, n, want)
		}
		t.align = align.New[exchange.Message](n)
		// NB: the task's watermark does not go back to the new channels'
		// (eventtime.Tracker.Rewire): it was sent on, and timers fired up
		// to it.
		if t.tracker == nil {
			t.tracker = eventtime.NewTracker(n)
		} else {
			t.tracker.Rewire(n)
		}
		if t.co != nil { // the channels of each input are numbered anew
			t.inputOf = r.Plan.StepInputs(t.spec.Stage)
		}
		t.susp.rewired = true
	}
	t.env.Logger.Info("resumed after a partial rescale", "task", t.name)
	return nil
}

// rewireOutputs makes the router of every output edge again over the new
// senders, keeping its keyer.
func (t *Task) rewireOutputs() error {
	if t.router == nil {
		return nil
	}
	if len(t.io.Out) != len(t.stage.Outputs) || len(t.router.edges) != len(t.stage.Outputs) {
		return fmt.Errorf("task %s: resumed with senders for %d output edges, its stage has %d", t.name, len(t.io.Out), len(t.stage.Outputs))
	}
	for i, e := range t.stage.Outputs {
		if want := len(t.spec.Plan.Targets(e, t.spec.Subtask)); len(t.io.Out[i]) != want {
			return fmt.Errorf("task %s: resumed with %d senders on output edge %d, its plan has %d targets", t.name, len(t.io.Out[i]), i, want)
		}
		out := make([]exchange.Sender, len(t.io.Out[i]))
		for j, snd := range t.io.Out[i] {
			out[j] = timedSender{snd, &t.Metrics, t.env.Now}
		}
		part := exchange.RoundRobin
		switch {
		case e.Partitioning == plan.Broadcast:
			part = exchange.Broadcast
		case e.KeyBy != nil:
			part = exchange.ByKeyGroup
		}
		from := t.spec.Plan.Channel(e, t.spec.Subtask)
		t.router.edges[i].router = exchange.NewRouter(from, out, part, t.spec.Plan.Job.MaxParallelism, t.env.BatchSize)
	}
	return nil
}
