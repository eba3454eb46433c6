package scheduler

import (
	"context"
	"fmt"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/lifecycle"
	"github.com/floe-stream/floe/scheduler/internal/schedmetrics"
)

// metricsSnapshot is the scheduler's state for a scrape of its metrics.
func (s *Server) metricsSnapshot() schedmetrics.Snapshot {
	var term uint64
	if s.rlog != nil {
		term = s.rlog.Term()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := schedmetrics.Snapshot{Leader: s.ready, Term: term}
	m := s.machine()
	for _, tm := range m.TaskManagers() {
		snap.TaskManagers++
		snap.Slots += tm.Slots
		snap.FreeSlots += tm.Slots - tm.Used
	}
	for _, j := range m.Jobs() {
		js := jobSnapshot(j)
		js.Autoscaler = s.autoscalerSnapshot(j)
		snap.Jobs = append(snap.Jobs, js)
	}
	return snap
}

// jobSnapshot is a job as its metrics show it. The caller holds s.mu.
func jobSnapshot(j *lifecycle.Job) schedmetrics.Job {
	out := schedmetrics.Job{ID: j.ID, Name: j.Plan.Job.Name, State: j.State, Restarts: j.Restarts, Rescales: j.Stats.Rescales,
		LastRestartDowntime: j.Stats.LastRestartDowntime, LastRescaleDowntime: j.Stats.LastRescaleDowntime,
		CheckpointsCompleted: j.Stats.CheckpointsCompleted, CheckpointsFailed: j.Stats.CheckpointsFailed}
	last := lastCompleted(j.Checkpoints())
	if last != nil {
		out.LastCheckpoint = &schedmetrics.Checkpoint{Duration: time.Duration(last.DurationMillis) * time.Millisecond,
			FullBytes: last.FullBytes, IncrementalBytes: last.IncrementalBytes}
	}
	for si, stage := range j.Plan.Stages {
		v := schedmetrics.Vertex{Name: stage.Name, Parallelism: stage.Parallelism, StateBytes: -1}
		if si < len(j.Tasks) {
			var states []lifecycle.OperatorState
			for _, t := range j.Tasks[si] {
				v.RecordsIn += t.RecordsIn
				v.RecordsOut += t.RecordsOut
				for _, o := range t.Sample.OperatorStates {
					states = addOperatorState(states, o)
				}
			}
			for _, o := range states {
				v.Operators = append(v.Operators, schedmetrics.OperatorState(o))
			}
		}
		if last != nil {
			v.StateBytes = stageBytes(last, si)
		}
		out.Vertices = append(out.Vertices, v)
	}
	return out
}

// lastCompleted returns the newest completed checkpoint of cps (oldest
// first), or nil.
func lastCompleted(cps []*api.CheckpointStatus) *api.CheckpointStatus {
	for i := len(cps) - 1; i >= 0; i-- {
		if cps[i].Status == api.CheckpointCompleted {
			return cps[i]
		}
	}
	return nil
}

// stageBytes adds up the state of a stage's subtasks in a checkpoint.
func stageBytes(cp *api.CheckpointStatus, stage int) int64 {
	var n int64
	for _, sub := range cp.Subtasks {
		if sub.Stage == stage {
			n += sub.FullBytes
		}
	}
	return n
}

var _ api.MetricsService = (*Server)(nil)

// JobMetrics implements api.MetricsService.
func (s *Server) JobMetrics(ctx context.Context, id string) (api.JobMetrics, error) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.machine().Job(id)
	if j == nil {
		return api.JobMetrics{}, fmt.Errorf("%w: no job %q", api.ErrNotFound, id)
	}
	return jobMetrics(j, now), nil
}

// jobMetrics renders a job's metrics as of now. The caller holds s.mu.
func jobMetrics(j *lifecycle.Job, now time.Time) api.JobMetrics {
	out := api.JobMetrics{ID: j.ID, Name: j.Plan.Job.Name, State: j.State, Vertices: []api.VertexMetrics{}}
	if j.TakesCheckpoints() {
		sum := &api.CheckpointSummary{Completed: j.Stats.CheckpointsCompleted, Failed: j.Stats.CheckpointsFailed}
		if last := lastCompleted(j.Checkpoints()); last != nil {
			c := *last
			c.Subtasks = nil
			sum.Last = &c
		}
		out.Checkpoints = sum
	}
	for si, stage := range j.Plan.Stages {
		v := api.VertexMetrics{Stage: si, Name: stage.Name, Parallelism: stage.Parallelism, Subtasks: []api.SubtaskMetrics{}}
		var subs []api.TaskFigures
		for sub := 0; sub < stage.Parallelism; sub++ {
			sm := api.SubtaskMetrics{Subtask: sub, State: api.TaskScheduled}
			// NB: during a rescale the plan has the new parallelism before
			// the new tasks exist.
			if si < len(j.Tasks) && sub < len(j.Tasks[si]) {
				t := j.Tasks[si][sub]
				sm.State, sm.TaskManager, sm.TaskFigures = t.State, t.TaskManager, taskFigures(t, now)
				subs = append(subs, sm.TaskFigures)
			}
			v.Subtasks = append(v.Subtasks, sm)
		}
		v.TaskFigures = vertexFigures(subs, now)
		out.Vertices = append(out.Vertices, v)
	}
	return out
}

// taskFigures renders a task's last sample.
func taskFigures(t *lifecycle.Task, now time.Time) api.TaskFigures {
	s := t.Sample
	f := api.TaskFigures{RecordsIn: t.RecordsIn, RecordsOut: t.RecordsOut,
		RecordsInPerSecond: t.Rates.RecordsIn, RecordsOutPerSecond: t.Rates.RecordsOut}
	if s.At.IsZero() {
		return f
	}
	f.BackPressured, f.Idle, f.Checkpointing = s.BackPressure, s.Idle, s.Checkpointing
	f.Busy = max(0, 1-s.BackPressure-s.Idle-s.Checkpointing)
	if s.Backlog >= 0 {
		f.Backlog = &s.Backlog
	}
	if s.Splits >= 0 {
		f.Splits = &s.Splits
	}
	f.InputWatermark, f.OutputWatermark = watermark(s.InputWatermark), watermark(s.OutputWatermark)
	f.EventTimeLagMillis = lagOf(f.InputWatermark, now)
	if s.BytesRead >= 0 {
		f.Progress = &api.SourceProgress{BytesRead: s.BytesRead, BytesTotal: s.BytesTotal}
	}
	for _, o := range s.OperatorStates {
		f.OperatorStates = append(f.OperatorStates, api.OperatorState(o))
	}
	return f
}

// addOperatorState adds o to the size of its operator in sizes, or
// appends it to sizes for an operator not seen yet, so that operators stay
// in the order they were first seen (chain order).
func addOperatorState(sizes []lifecycle.OperatorState, o lifecycle.OperatorState) []lifecycle.OperatorState {
	for i := range sizes {
		if sizes[i].Operator == o.Operator {
			sizes[i].Keys += o.Keys
			sizes[i].Bytes += o.Bytes
			return sizes
		}
	}
	return append(sizes, o)
}

// addCount adds a subtask's count to its stage's sum so far: absent
// while no subtask told.
func addCount[T int | int64](sum, n *T) *T {
	if n == nil {
		return sum
	}
	s := *n
	if sum != nil {
		s += *sum
	}
	return &s
}

// vertexFigures adds up a stage's subtasks' figures: counts, rates and
// bytes are sums, shares of time means over the subtasks that reported,
// watermarks the least (a stage is as far in event time as its slowest
// subtask), but only once every subtask has one.
func vertexFigures(subs []api.TaskFigures, now time.Time) api.TaskFigures {
	var v api.TaskFigures
	shares := 0
	var in, out *time.Time
	inAll, outAll := true, true
	var states []lifecycle.OperatorState
	for _, f := range subs {
		v.RecordsIn += f.RecordsIn
		v.RecordsOut += f.RecordsOut
		v.RecordsInPerSecond += f.RecordsInPerSecond
		v.RecordsOutPerSecond += f.RecordsOutPerSecond
		if f.Busy+f.BackPressured+f.Idle > 0 {
			shares++
			v.Busy += f.Busy
			v.BackPressured += f.BackPressured
			v.Idle += f.Idle
			v.Checkpointing += f.Checkpointing
		}
		v.Backlog = addCount(v.Backlog, f.Backlog)
		v.Splits = addCount(v.Splits, f.Splits)
		in, inAll = least(in, f.InputWatermark), inAll && f.InputWatermark != nil
		out, outAll = least(out, f.OutputWatermark), outAll && f.OutputWatermark != nil
		for _, o := range f.OperatorStates {
			states = addOperatorState(states, lifecycle.OperatorState(o))
		}
		if p := f.Progress; p != nil {
			if v.Progress == nil {
				v.Progress = &api.SourceProgress{}
			}
			v.Progress.BytesRead += p.BytesRead
			v.Progress.BytesTotal += p.BytesTotal
		}
	}
	for _, o := range states {
		v.OperatorStates = append(v.OperatorStates, api.OperatorState(o))
	}
	if shares > 0 {
		n := float64(shares)
		v.Busy, v.BackPressured, v.Idle, v.Checkpointing = v.Busy/n, v.BackPressured/n, v.Idle/n, v.Checkpointing/n
	}
	if len(subs) > 0 && inAll {
		v.InputWatermark, v.EventTimeLagMillis = in, lagOf(in, now)
	}
	if len(subs) > 0 && outAll {
		v.OutputWatermark = out
	}
	return v
}

// maxJSONTime is the last millisecond JSON's RFC 3339 can write, in the
// year 9999.
const maxJSONTime = 253402300799999

// watermark renders a sample's watermark, nil when there is none or it is
// no date JSON can write.
func watermark(ms int64) *time.Time {
	if ms == lifecycle.NoWatermark || ms < 0 || ms > maxJSONTime {
		return nil
	}
	t := time.UnixMilli(ms).UTC()
	return &t
}

// lagOf returns now minus the watermark wm in milliseconds, nil without one.
func lagOf(wm *time.Time, now time.Time) *int64 {
	if wm == nil {
		return nil
	}
	lag := now.Sub(*wm).Milliseconds()
	return &lag
}

// least returns the earlier of two optional times.
func least(a, b *time.Time) *time.Time {
	if a == nil || (b != nil && b.Before(*a)) {
		return b
	}
	return a
}
