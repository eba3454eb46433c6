package scheduler

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/floe-stream/floe/internal/ckmeta"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/lifecycle"
	"github.com/floe-stream/floe/storage/ckstore"
)

// apply feeds one event, at the clock's time, to the job lifecycle and
// carries out the actions it returns.
func (s *Server) apply(event func(now time.Time) []lifecycle.Action) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.exec(event(s.now()))
}

// exec carries out the lifecycle's actions. The caller holds s.mu; every
// call to a task manager or a store happens in a goroutine the server
// owns, and its outcome, when the lifecycle needs it, comes back as an
// event.
func (s *Server) exec(acts []lifecycle.Action) {
	for _, a := range acts {
		switch a := a.(type) {
		case lifecycle.Deploy:
			s.execDeploy(a)
		case lifecycle.CancelTasks:
			req := &floev1.CancelTasksRequest{JobId: a.Job, Attempt: int32(a.Attempt)}
			s.call(a.TaskManager, func(ctx context.Context, tm *taskManager) {
				if _, err := tm.client.CancelTasks(ctx, req); err != nil && s.ctx.Err() == nil {
					s.log.Warn("canceling tasks", "tm", tm.id, "job", req.JobId, "err", err)
				}
			})
		case lifecycle.TriggerCheckpoint:
			req := &floev1.TriggerCheckpointRequest{JobId: a.Job, Attempt: int32(a.Attempt), CheckpointId: a.ID}
			s.call(a.TaskManager, func(ctx context.Context, tm *taskManager) {
				if _, err := tm.client.TriggerCheckpoint(ctx, req); err != nil && s.ctx.Err() == nil {
					task := lifecycle.TaskID{Job: a.Job, Attempt: a.Attempt}
					reason := fmt.Sprintf("triggering on %s: %v", tm.id, err)
					s.apply(func(now time.Time) []lifecycle.Action { return s.m.Decline(now, task, a.ID, reason) })
				}
			})
		case lifecycle.NotifyCheckpoint:
			req := &floev1.NotifyCheckpointRequest{JobId: a.Job, Attempt: int32(a.Attempt), CheckpointId: a.ID}
			s.call(a.TaskManager, func(ctx context.Context, tm *taskManager) {
				if _, err := tm.client.NotifyCheckpointComplete(ctx, req); err != nil && s.ctx.Err() == nil {
					s.log.Warn("notifying checkpoint completion", "tm", tm.id, "checkpoint", req.CheckpointId, "err", err)
				}
			})
		case lifecycle.WriteMetadata:
			store := s.jobs[a.Job].store
			s.spawn(func() { s.writeMetadata(store, a) })
		case lifecycle.DeleteFiles:
			store := s.jobs[a.Job].store
			s.spawn(func() {
				ctx, cancel := context.WithTimeout(s.ctx, time.Minute)
				defer cancel()
				for _, p := range a.Paths {
					if err := store.Delete(ctx, p); err != nil {
						s.log.Warn("deleting an old checkpoint file", "path", p, "err", err)
					}
				}
			})
		case lifecycle.CloseTaskManager:
			if tm, ok := s.tms[a.TaskManager]; ok {
				delete(s.tms, a.TaskManager)
				s.spawn(func() { tm.conn.Close() })
			}
		case lifecycle.SavepointReady:
			k := waiterKey{job: a.Job, id: a.ID}
			if done, ok := s.waiters[k]; ok {
				delete(s.waiters, k)
				done <- a.Metadata
			}
		case lifecycle.JobState:
			if a.State == api.JobWaiting {
				s.wake() // to place it soon
			}
		default:
			panic(fmt.Sprintf("scheduler: unknown lifecycle action %T", a))
		}
	}
}

// call makes a call to a task manager, if it is still connected, in a
// goroutine the server owns, with a 10s timeout. The caller holds s.mu.
func (s *Server) call(id string, fn func(ctx context.Context, tm *taskManager)) {
	tm, ok := s.tms[id]
	if !ok {
		return
	}
	s.spawn(func() {
		ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
		defer cancel()
		fn(ctx, tm)
	})
}

// writeMetadata writes a checkpoint's metadata, last, and reports the
// outcome to the lifecycle, which only then counts it complete.
func (s *Server) writeMetadata(store ckstore.Store, a lifecycle.WriteMetadata) {
	md := a.Metadata
	b, err := ckmeta.Marshal(md)
	if err == nil {
		ctx, cancel := context.WithTimeout(s.ctx, time.Minute)
		err = store.Put(ctx, ckmeta.MetadataPath(md.JobID, md.ID), bytes.NewReader(b), int64(len(b)))
		cancel()
	}
	s.apply(func(now time.Time) []lifecycle.Action { return s.m.MetadataWritten(now, a.Job, a.Attempt, md, err) })
}

// taskID converts a lifecycle task id to the wire's.
func taskID(t lifecycle.TaskID) *floev1.TaskID {
	return &floev1.TaskID{JobId: t.Job, Attempt: int32(t.Attempt), Stage: int32(t.Stage), Subtask: int32(t.Subtask)}
}

// fromTaskID converts the wire's task id; a nil one names no job.
func fromTaskID(t *floev1.TaskID) lifecycle.TaskID {
	return lifecycle.TaskID{Job: t.GetJobId(), Attempt: int(t.GetAttempt()), Stage: int(t.GetStage()), Subtask: int(t.GetSubtask())}
}
