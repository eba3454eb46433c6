// Package coordinator decides when a job's checkpoints start, complete,
// time out and are abandoned. It is a pure state machine in the style of
// etcd's raft RawNode: the scheduler feeds it events (ticks with the time,
// acknowledgements, declines, the start and stop of an attempt) and carries
// out the actions it returns (send barriers to the sources, write a
// completed checkpoint's metadata, report an aborted one). It never touches
// the network, the disk or the clock.
//
// A checkpoint is triggered at the sources, which snapshot and send barriers
// downstream; every task acknowledges once its snapshot is stored. When the
// last acknowledgement arrives the checkpoint is complete: the scheduler
// writes its metadata, and only then is it used for recovery. Completing a
// checkpoint subsumes older ones still pending.
//
// Checkpoints go on after part of a job has ended (Flink's FLIP-147, done
// our way). A task that has finished is dropped: it acknowledges nothing
// more, and no checkpoint waits for it; its output reached its readers
// before its end, which their alignment counts as that input's barrier. A
// task whose input has ended but that still holds output to commit (a
// transactional sink waiting for the job's final commit: it is ending) can
// get no barrier any more, so it is triggered directly, as sources are, and
// acknowledges with its final state. Checkpointing stops once no source
// runs, since the job then only drains. The coordinator needs no graph for
// this: a task that is neither a source nor ending is reached by barriers
// from the sources still running upstream of it, or ends itself.
package coordinator

import (
	"fmt"
	"slices"
	"time"
)

// Config is a job's checkpoint configuration.
type Config struct {
	// Interval is the time between the triggers of two checkpoints.
	Interval time.Duration
	// Timeout aborts a checkpoint not complete in time.
	Timeout time.Duration
	// MinPause is the least time between the completion (or abort) of one
	// checkpoint and the trigger of the next.
	MinPause time.Duration
	// MaxConcurrent bounds the checkpoints in flight.
	MaxConcurrent int
}

// Task names a subtask.
type Task struct{ Stage, Subtask int }

func (t Task) String() string { return fmt.Sprintf("%d/%d", t.Stage, t.Subtask) }

// Trigger asks Tasks to start checkpoint ID: the sources still running
// and the ending tasks.
type Trigger struct {
	ID    int64
	Tasks []Task
}

// Complete reports that every task acknowledged checkpoint ID; Handles
// holds each task's acknowledgement payload.
type Complete struct {
	ID        int64
	Triggered time.Time
	Handles   map[Task][]byte
}

// Abort reports that checkpoint ID will not complete, and why.
type Abort struct {
	ID     int64
	Reason string
}

// Action is one of Trigger, Complete or Abort.
type Action any

// pending is a checkpoint in flight.
type pending struct {
	id        int64
	triggered time.Time
	handles   map[Task][]byte
}

// Coordinator is the checkpoint state machine of one job.
type Coordinator struct {
	cfg      Config
	running  bool
	tasks    []Task
	sources  []Task
	ending   []Task
	nextID   int64
	pending  []*pending
	lastTrig time.Time
	lastEnd  time.Time
}

// New returns a coordinator whose first checkpoint will have id 1.
func New(cfg Config) *Coordinator {
	if cfg.MaxConcurrent < 1 {
		cfg.MaxConcurrent = 1
	}
	return &Coordinator{cfg: cfg, nextID: 1}
}

// NextID returns the id the next checkpoint will have.
func (c *Coordinator) NextID() int64 { return c.nextID }

// SetNextID makes the next checkpoint have id at least id, so ids keep
// growing across a restored job.
func (c *Coordinator) SetNextID(id int64) { c.nextID = max(c.nextID, id) }

// Start begins checkpointing an attempt whose tasks are all running; the
// first checkpoint comes one interval after now.
func (c *Coordinator) Start(now time.Time, tasks, sources []Task) {
	c.running, c.tasks, c.sources, c.ending = true, slices.Clone(tasks), slices.Clone(sources), nil
	c.lastTrig, c.lastEnd = now, time.Time{}
}

// Running reports whether the coordinator checkpoints an attempt (between
// Start and Stop).
func (c *Coordinator) Running() bool { return c.running }

// Stop ends the attempt: pending checkpoints are aborted.
func (c *Coordinator) Stop(reason string) []Action {
	c.running = false
	return c.abortAll(func(*pending) bool { return true }, reason)
}

// Tick advances time: it aborts checkpoints past their timeout and triggers
// the next checkpoint when it is due.
func (c *Coordinator) Tick(now time.Time) []Action {
	acts := c.abortAll(func(p *pending) bool { return c.cfg.Timeout > 0 && now.Sub(p.triggered) >= c.cfg.Timeout },
		fmt.Sprintf("timed out after %s", c.cfg.Timeout))
	if !c.running || len(c.pending) >= c.cfg.MaxConcurrent || c.cfg.Interval <= 0 {
		return acts
	}
	if now.Sub(c.lastTrig) < c.cfg.Interval || (!c.lastEnd.IsZero() && now.Sub(c.lastEnd) < c.cfg.MinPause) {
		return acts
	}
	return append(acts, c.trigger(now))
}

// Due reports whether Tick(now) would abort or trigger a checkpoint. It
// changes nothing.
func (c *Coordinator) Due(now time.Time) bool {
	for _, p := range c.pending {
		if c.cfg.Timeout > 0 && now.Sub(p.triggered) >= c.cfg.Timeout {
			return true
		}
	}
	if !c.running || len(c.pending) >= c.cfg.MaxConcurrent || c.cfg.Interval <= 0 {
		return false
	}
	return now.Sub(c.lastTrig) >= c.cfg.Interval && (c.lastEnd.IsZero() || now.Sub(c.lastEnd) >= c.cfg.MinPause)
}

// TriggerNow starts a checkpoint at once, outside the interval (for
// savepoints), if the attempt is running.
func (c *Coordinator) TriggerNow(now time.Time) (Trigger, bool) {
	if !c.running {
		return Trigger{}, false
	}
	return c.trigger(now), true
}

func (c *Coordinator) trigger(now time.Time) Trigger {
	p := &pending{id: c.nextID, triggered: now, handles: map[Task][]byte{}}
	c.nextID++
	c.pending = append(c.pending, p)
	c.lastTrig = now
	return Trigger{ID: p.id, Tasks: c.triggered()}
}

// triggered returns the tasks a checkpoint is triggered at.
func (c *Coordinator) triggered() []Task {
	return append(slices.Clone(c.sources), c.ending...)
}

// Ack records task's acknowledgement of checkpoint id with its payload;
// the last one completes the checkpoint and subsumes older pending ones.
func (c *Coordinator) Ack(now time.Time, id int64, task Task, handle []byte) []Action {
	i := slices.IndexFunc(c.pending, func(p *pending) bool { return p.id == id })
	if i < 0 || !slices.Contains(c.tasks, task) {
		return nil // late, aborted, or from another attempt
	}
	p := c.pending[i]
	p.handles[task] = handle
	if !c.acked(p) {
		return nil
	}
	return c.complete(now, p)
}

// complete completes p, subsuming older pending checkpoints.
func (c *Coordinator) complete(now time.Time, p *pending) []Action {
	c.pending = slices.DeleteFunc(c.pending, func(q *pending) bool { return q == p })
	c.lastEnd = now
	acts := c.abortAll(func(q *pending) bool { return q.id < p.id }, fmt.Sprintf("subsumed by checkpoint %d", p.id))
	return append(acts, Complete{ID: p.id, Triggered: p.triggered, Handles: p.handles})
}

// Finish records that a task has finished: it takes no more checkpoints,
// and checkpoints no longer wait for it. When no source is left, the
// attempt stops checkpointing.
func (c *Coordinator) Finish(now time.Time, task Task) []Action {
	c.tasks = slices.DeleteFunc(c.tasks, func(t Task) bool { return t == task })
	c.sources = slices.DeleteFunc(c.sources, func(t Task) bool { return t == task })
	c.ending = slices.DeleteFunc(c.ending, func(t Task) bool { return t == task })
	if c.running && len(c.sources) == 0 {
		return c.Stop("every source has finished")
	}
	var acts []Action
	for _, p := range slices.Clone(c.pending) {
		if c.acked(p) {
			acts = append(acts, c.complete(now, p)...)
		}
	}
	return acts
}

// Ending records that a task's input has ended while it still holds output
// to commit: checkpoints still wait for it, and are triggered at it
// directly since no barrier reaches it any more. It returns a trigger at
// the task for each pending checkpoint it has not acknowledged. A task that
// ends while it is a source stops being one. When no source is left, the
// attempt stops checkpointing.
func (c *Coordinator) Ending(now time.Time, task Task) []Action {
	if !slices.Contains(c.tasks, task) || slices.Contains(c.ending, task) {
		return nil
	}
	c.sources = slices.DeleteFunc(c.sources, func(t Task) bool { return t == task })
	if c.running && len(c.sources) == 0 {
		return c.Stop("every source has finished")
	}
	c.ending = append(c.ending, task)
	var acts []Action
	for _, p := range c.pending {
		if _, ok := p.handles[task]; !ok {
			acts = append(acts, Trigger{ID: p.id, Tasks: []Task{task}})
		}
	}
	return acts
}

// acked reports whether every task still taking part acknowledged p.
func (c *Coordinator) acked(p *pending) bool {
	for _, t := range c.tasks {
		if _, ok := p.handles[t]; !ok {
			return false
		}
	}
	return true
}

// Decline aborts checkpoint id because a task could not take it.
func (c *Coordinator) Decline(now time.Time, id int64, task Task, reason string) []Action {
	acts := c.abortAll(func(p *pending) bool { return p.id == id }, fmt.Sprintf("declined by task %s: %s", task, reason))
	if len(acts) > 0 {
		c.lastEnd = now
	}
	return acts
}

// abortAll aborts the pending checkpoints that match.
func (c *Coordinator) abortAll(match func(*pending) bool, reason string) []Action {
	var acts []Action
	c.pending = slices.DeleteFunc(c.pending, func(p *pending) bool {
		if match(p) {
			acts = append(acts, Abort{ID: p.id, Reason: reason})
			return true
		}
		return false
	})
	return acts
}

// Pending returns the ids of the checkpoints in flight.
func (c *Coordinator) Pending() []int64 {
	ids := make([]int64, len(c.pending))
	for i, p := range c.pending {
		ids[i] = p.id
	}
	return ids
}
