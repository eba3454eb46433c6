package scheduler

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/floe-stream/floe/internal/ckmeta"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/coordinator"
	"github.com/floe-stream/floe/storage/ckstore"
)

// maxHistory bounds the checkpoints a job's status lists.
const maxHistory = 50

// checkpoints is a job's checkpointing: the coordinator, where checkpoints
// go, the completed ones retained, and the history shown to users.
type checkpoints struct {
	coord     *coordinator.Coordinator
	url       string
	store     ckstore.Store
	retain    int
	completed []*ckmeta.Metadata // oldest first
	history   []*api.CheckpointStatus
	// pinned are checkpoints being copied into savepoints: their files
	// stay until the copy is done.
	pinned map[int64]*ckmeta.Metadata
}

// openCheckpoints prepares a job's checkpointing, or returns nil when the
// job takes none.
func (s *Server) openCheckpoints(ctx context.Context, j *job) (*checkpoints, error) {
	c := j.plan.Job.Checkpoints
	if c == nil {
		return nil, nil
	}
	url := c.Storage
	if url == "" {
		url = s.cfg.CheckpointStorage
	}
	store, err := s.cfg.OpenStore(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("%w: checkpoint storage: %v", api.ErrBadRequest, err)
	}
	return &checkpoints{
		coord: coordinator.New(coordinator.Config{Interval: c.Interval, Timeout: c.Timeout, MinPause: c.MinPause, MaxConcurrent: c.MaxConcurrent}),
		url:   url, store: store, retain: c.Retain,
	}, nil
}

// latest returns the newest completed checkpoint, or nil.
func (c *checkpoints) latest() *ckmeta.Metadata {
	if c == nil || len(c.completed) == 0 {
		return nil
	}
	return c.completed[len(c.completed)-1]
}

func (c *checkpoints) status(id int64) *api.CheckpointStatus {
	for _, h := range c.history {
		if h.ID == id {
			return h
		}
	}
	return nil
}

// startCheckpoints begins checkpointing a running attempt. The caller
// holds s.mu.
func (s *Server) startCheckpoints(j *job) {
	if j.ckpts == nil {
		return
	}
	var tasks, sources []coordinator.Task
	for si, st := range j.plan.Stages {
		for sub := 0; sub < st.Parallelism; sub++ {
			if si == 0 && j.finishedSources[sub] {
				continue // it finished before the attempt was all running
			}
			tasks = append(tasks, coordinator.Task{Stage: si, Subtask: sub})
			if si == 0 {
				sources = append(sources, coordinator.Task{Stage: si, Subtask: sub})
			}
		}
	}
	j.ckpts.coord.Start(s.now(), tasks, sources)
}

// stopCheckpoints ends checkpointing of the current attempt. The caller
// holds s.mu.
func (s *Server) stopCheckpoints(j *job, reason string) {
	if j.ckpts != nil {
		s.checkpointActions(j, j.ckpts.coord.Stop(reason))
	}
}

// tickCheckpoints advances a job's coordinator. The caller holds s.mu.
func (s *Server) tickCheckpoints(j *job, now time.Time) {
	if j.ckpts != nil {
		s.checkpointActions(j, j.ckpts.coord.Tick(now))
	}
}

// checkpointActions carries out what the coordinator decided. The caller
// holds s.mu; I/O happens in goroutines.
func (s *Server) checkpointActions(j *job, acts []coordinator.Action) {
	for _, a := range acts {
		switch a := a.(type) {
		case coordinator.Trigger:
			s.recordCheckpoint(j, &api.CheckpointStatus{ID: a.ID, Status: api.CheckpointInProgress, Attempt: j.attempt, TriggeredAt: s.now()})
			s.triggerAt(j, a)
		case coordinator.Abort:
			s.failCheckpoint(j, a.ID, a.Reason)
		case coordinator.Complete:
			md, err := s.metadata(j, a)
			if err != nil {
				s.failCheckpoint(j, a.ID, err.Error())
				continue
			}
			store, attempt := j.ckpts.store, j.attempt
			s.spawn(func() { s.finishCheckpoint(j, store, attempt, md) })
		}
	}
}

func (s *Server) recordCheckpoint(j *job, st *api.CheckpointStatus) {
	h := append(j.ckpts.history, st)
	if len(h) > maxHistory {
		h = h[len(h)-maxHistory:]
	}
	j.ckpts.history = h
}

func (s *Server) failCheckpoint(j *job, id int64, reason string) {
	s.rescaleFailed(j, id, reason)
	j.wakeWaiters(id, nil)
	if st := j.ckpts.status(id); st != nil && st.Status == api.CheckpointInProgress {
		st.Status, st.Message = api.CheckpointFailed, reason
		st.DurationMillis = s.now().Sub(st.TriggeredAt).Milliseconds()
	}
	s.log.Warn("checkpoint failed", "job", j.id, "checkpoint", id, "reason", reason)
}

// triggerAt asks the task managers of the sources to start a checkpoint; a
// task manager that cannot declines it.
func (s *Server) triggerAt(j *job, a coordinator.Trigger) {
	seen := map[string]bool{}
	for _, src := range a.Sources {
		id := j.placement[src.Subtask]
		tm, ok := s.tms[id]
		if !ok || seen[id] {
			continue
		}
		seen[id] = true
		req := &floev1.TriggerCheckpointRequest{JobId: j.id, Attempt: int32(j.attempt), CheckpointId: a.ID}
		s.spawn(func() {
			ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
			defer cancel()
			if _, err := tm.client.TriggerCheckpoint(ctx, req); err != nil && s.ctx.Err() == nil {
				s.declined(req.JobId, req.Attempt, req.CheckpointId, coordinator.Task{}, fmt.Sprintf("triggering on %s: %v", tm.id, err))
			}
		})
	}
}

// declined feeds a decline to the job's coordinator.
func (s *Server) declined(jobID string, attempt int32, id int64, task coordinator.Task, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.jobs[jobID]
	if !ok || j.ckpts == nil || int(attempt) != j.attempt {
		return
	}
	s.checkpointActions(j, j.ckpts.coord.Decline(s.now(), id, task, reason))
}

// AcknowledgeCheckpoint implements floev1.SchedulerServer.
func (s *Server) AcknowledgeCheckpoint(ctx context.Context, req *floev1.AcknowledgeCheckpointRequest) (*floev1.AcknowledgeCheckpointResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := req.Task
	j, ok := s.jobs[id.GetJobId()]
	if ok && j.ckpts != nil && int(id.Attempt) == j.attempt {
		task := coordinator.Task{Stage: int(id.Stage), Subtask: int(id.Subtask)}
		s.checkpointActions(j, j.ckpts.coord.Ack(s.now(), req.CheckpointId, task, req.State))
	}
	return &floev1.AcknowledgeCheckpointResponse{}, nil
}

// DeclineCheckpoint implements floev1.SchedulerServer.
func (s *Server) DeclineCheckpoint(ctx context.Context, req *floev1.DeclineCheckpointRequest) (*floev1.DeclineCheckpointResponse, error) {
	id := req.Task
	task := coordinator.Task{Stage: int(id.GetStage()), Subtask: int(id.GetSubtask())}
	s.declined(id.GetJobId(), id.GetAttempt(), req.CheckpointId, task, req.Reason)
	return &floev1.DeclineCheckpointResponse{}, nil
}

// metadata assembles a completed checkpoint's metadata from the tasks'
// acknowledgements. The caller holds s.mu.
func (s *Server) metadata(j *job, a coordinator.Complete) (*ckmeta.Metadata, error) {
	md := &ckmeta.Metadata{
		Version: ckmeta.Version, JobID: j.id, JobName: j.plan.Job.Name, ID: a.ID, Attempt: j.attempt,
		MaxParallelism: j.plan.Job.MaxParallelism, TriggeredAt: a.Triggered, CompletedAt: s.now(),
	}
	for _, st := range j.plan.Stages {
		md.Stages = append(md.Stages, ckmeta.Stage{Name: st.Name, Parallelism: st.Parallelism})
	}
	for task, h := range a.Handles {
		var st ckmeta.SubtaskState
		if err := ckmeta.Unmarshal(h, &st); err != nil {
			return nil, fmt.Errorf("acknowledgement of task %s: %w", task, err)
		}
		md.Subtasks = append(md.Subtasks, st)
	}
	// A source that finished before acknowledging has read all its splits.
	for sub := range j.finishedSources {
		if _, acked := a.Handles[coordinator.Task{Stage: 0, Subtask: sub}]; !acked {
			md.Subtasks = append(md.Subtasks, ckmeta.SubtaskState{Stage: 0, Subtask: sub, Source: [][]byte{}})
		}
	}
	slices.SortFunc(md.Subtasks, func(a, b ckmeta.SubtaskState) int {
		if a.Stage != b.Stage {
			return a.Stage - b.Stage
		}
		return a.Subtask - b.Subtask
	})
	return md, nil
}

// finishCheckpoint writes a checkpoint's metadata, last, and then counts it
// complete: retains it, drops what older checkpoints no longer need, and
// tells the tasks so that sinks commit.
func (s *Server) finishCheckpoint(j *job, store ckstore.Store, attempt int, md *ckmeta.Metadata) {
	b, err := ckmeta.Marshal(md)
	if err == nil {
		ctx, cancel := context.WithTimeout(s.ctx, time.Minute)
		err = store.Put(ctx, ckmeta.MetadataPath(j.id, md.ID), bytes.NewReader(b), int64(len(b)))
		cancel()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.failCheckpoint(j, md.ID, fmt.Sprintf("writing metadata: %v", err))
		return
	}
	j.ckpts.completed = append(j.ckpts.completed, md)
	if st := j.ckpts.status(md.ID); st != nil {
		incr, full := md.Sizes()
		t := md.CompletedAt
		st.Status, st.CompletedAt, st.IncrementalBytes, st.FullBytes = api.CheckpointCompleted, &t, incr, full
		st.DurationMillis = md.CompletedAt.Sub(md.TriggeredAt).Milliseconds()
		st.Path = store.String() + "/" + ckmeta.MetadataPath(j.id, md.ID)
		for _, sub := range md.Subtasks {
			st.Subtasks = append(st.Subtasks, api.CheckpointSubtaskStatus{Stage: sub.Stage, Subtask: sub.Subtask,
				AlignmentMillis: sub.AlignmentMillis, SyncMillis: sub.SyncMillis, IncrementalBytes: sub.IncrementalBytes, FullBytes: sub.FullBytes})
		}
	}
	s.log.Info("checkpoint completed", "job", j.id, "checkpoint", md.ID)
	j.wakeWaiters(md.ID, md)
	s.retire(j)
	if attempt == j.attempt && (j.state == api.JobRunning || j.state == api.JobDeploying) {
		s.notifyTasks(j, md.ID)
		s.rescaleAfter(j, md.ID)
	}
}

// retire keeps the newest retained checkpoints and deletes the files only
// older ones refer to. The caller holds s.mu.
func (s *Server) retire(j *job) {
	c := j.ckpts
	if len(c.completed) <= c.retain {
		return
	}
	old := c.completed[:len(c.completed)-c.retain]
	c.completed = slices.Clone(c.completed[len(c.completed)-c.retain:])
	keep := map[string]bool{}
	for _, md := range c.completed {
		for _, f := range md.Files() {
			keep[f] = true
		}
	}
	for _, md := range c.pinned {
		for _, f := range md.Files() {
			keep[f] = true
		}
	}
	var drop []string
	for _, md := range old {
		if md.Store != "" {
			continue // a savepoint the job started from: not ours to delete
		}
		drop = append(drop, ckmeta.MetadataPath(j.id, md.ID))
		for _, f := range md.Files() {
			if !keep[f] {
				drop = append(drop, f)
				keep[f] = true // once
			}
		}
	}
	store := c.store
	s.spawn(func() {
		ctx, cancel := context.WithTimeout(s.ctx, time.Minute)
		defer cancel()
		for _, p := range drop {
			if err := store.Delete(ctx, p); err != nil {
				s.log.Warn("deleting an old checkpoint file", "path", p, "err", err)
			}
		}
	})
}

// notifyTasks tells every task manager of the current attempt that
// checkpoint id is complete. The caller holds s.mu.
func (s *Server) notifyTasks(j *job, id int64) {
	seen := map[string]bool{}
	for _, tmID := range j.placement {
		tm, ok := s.tms[tmID]
		if !ok || seen[tmID] {
			continue
		}
		seen[tmID] = true
		req := &floev1.NotifyCheckpointRequest{JobId: j.id, Attempt: int32(j.attempt), CheckpointId: id}
		s.spawn(func() {
			ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
			defer cancel()
			if _, err := tm.client.NotifyCheckpointComplete(ctx, req); err != nil && s.ctx.Err() == nil {
				s.log.Warn("notifying checkpoint completion", "tm", tm.id, "checkpoint", id, "err", err)
			}
		})
	}
}

// restoreFor returns the restore handle of a subtask of the attempt being
// deployed: its share of the latest completed checkpoint. The caller holds
// s.mu.
func (s *Server) restoreFor(j *job, stage, sub int) ([]byte, error) {
	md := j.ckpts.latest()
	if md == nil {
		return nil, nil
	}
	r, err := md.RestoreFor(stage, sub, j.plan.Stages[stage].Parallelism)
	if err != nil {
		return nil, err
	}
	return ckmeta.Marshal(r)
}

// dropBadCheckpoint forgets the checkpoint a failed restore found
// unreadable (missing or corrupt files), so the next attempt falls back to
// the one before. A restore that failed for another reason (a store or a
// broker that is down) is retried from the same checkpoint: falling back
// would undo the effects it committed. The caller holds s.mu.
func (s *Server) dropBadCheckpoint(j *job, reason string) {
	md := j.ckpts.latest()
	if md == nil || !strings.Contains(reason, ckmeta.Unreadable(md.ID)+":") {
		return
	}
	j.ckpts.completed = j.ckpts.completed[:len(j.ckpts.completed)-1]
	s.log.Warn("checkpoint cannot be restored; falling back to the previous one", "job", j.id, "checkpoint", md.ID, "reason", reason)
	if st := j.ckpts.status(md.ID); st != nil {
		st.Status, st.Message = api.CheckpointFailed, "restore failed: "+reason
	}
}

// Checkpoints implements api.Service.
func (s *Server) Checkpoints(ctx context.Context, id string) ([]api.CheckpointStatus, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.jobs[id]
	if !ok {
		return nil, fmt.Errorf("%w: no job %q", api.ErrNotFound, id)
	}
	out := []api.CheckpointStatus{}
	if j.ckpts == nil {
		return out, nil
	}
	for i := len(j.ckpts.history) - 1; i >= 0; i-- {
		st := *j.ckpts.history[i]
		st.Subtasks = slices.Clone(st.Subtasks)
		out = append(out, st)
	}
	return out, nil
}
