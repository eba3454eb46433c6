package scheduler

import (
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
		snap.Jobs = append(snap.Jobs, jobSnapshot(j))
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
		v := schedmetrics.Vertex{Name: stage.Name, StateBytes: -1}
		if si < len(j.Tasks) {
			for _, t := range j.Tasks[si] {
				v.RecordsIn += t.RecordsIn
				v.RecordsOut += t.RecordsOut
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
