package scheduler

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/floe-stream/floe/internal/ckmeta"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/journal"
	"github.com/floe-stream/floe/scheduler/internal/lifecycle"
	"github.com/floe-stream/floe/storage/ckstore"
)

// exec carries out the lifecycle's actions. The caller holds s.mu and the
// server leads; every call to a task manager or a store happens in a
// goroutine the server owns, and its outcome, when the lifecycle needs
// it, comes back as an event. Every call to a task manager carries the
// leader's term, so that a task manager refuses a deposed leader's.
func (s *Server) exec(acts []lifecycle.Action) {
	term := int64(s.term)
	for _, a := range acts {
		switch a := a.(type) {
		case lifecycle.Deploy:
			s.execDeploy(a)
		case lifecycle.CancelTasks:
			req := &floev1.CancelTasksRequest{JobId: a.Job, Attempt: int32(a.Attempt), Term: term}
			var addr string
			if a.Check {
				if tm := s.machine().TaskManager(a.TaskManager); tm != nil {
					addr = tm.Addr
				}
			}
			s.call(a.TaskManager, func(ctx context.Context, tm *taskManager) {
				_, err := tm.client.CancelTasks(ctx, req)
				switch {
				case err == nil || s.ctx.Err() != nil:
				case a.Check && status.Code(err) == codes.Unavailable:
					// A task's channel with it broke and it cannot be
					// called: it is gone, whatever its heartbeat says.
					s.event(journal.LoseTaskManager{At: s.now(), TaskManager: tm.id, Reason: lifecycle.Unreachable(tm.id, addr, status.Convert(err).Message())})
					s.wake()
				default:
					s.log.Warn("canceling tasks", "tm", tm.id, "job", req.JobId, "err", err)
				}
			})
		case lifecycle.CancelTask:
			req := &floev1.CancelTasksRequest{JobId: a.Task.Job, Attempt: int32(a.Task.Attempt), Tasks: []*floev1.TaskID{taskID(a.Task)}, Term: term}
			s.call(a.TaskManager, func(ctx context.Context, tm *taskManager) {
				if _, err := tm.client.CancelTasks(ctx, req); err != nil && s.ctx.Err() == nil {
					s.log.Warn("canceling a task", "tm", tm.id, "task", a.Task, "err", err)
				}
			})
		case lifecycle.Resume:
			s.execResume(a)
		case lifecycle.TriggerCheckpoint:
			req := &floev1.TriggerCheckpointRequest{JobId: a.Job, Attempt: int32(a.Attempt), CheckpointId: a.ID, Term: term, Suspend: a.Suspend}
			s.call(a.TaskManager, func(ctx context.Context, tm *taskManager) {
				if _, err := tm.client.TriggerCheckpoint(ctx, req); err != nil && s.ctx.Err() == nil {
					task := lifecycle.TaskID{Job: a.Job, Attempt: a.Attempt}
					s.event(journal.Decline{At: s.now(), Task: task, ID: a.ID, Reason: fmt.Sprintf("triggering on %s: %v", tm.id, err)})
				}
			})
		case lifecycle.NotifyCheckpoint:
			req := &floev1.NotifyCheckpointRequest{JobId: a.Job, Attempt: int32(a.Attempt), CheckpointId: a.ID, Term: term}
			s.call(a.TaskManager, func(ctx context.Context, tm *taskManager) {
				if _, err := tm.client.NotifyCheckpointComplete(ctx, req); err != nil && s.ctx.Err() == nil {
					s.log.Warn("notifying checkpoint completion", "tm", tm.id, "checkpoint", req.CheckpointId, "err", err)
				}
			})
		case lifecycle.WriteMetadata:
			s.spawn(func() { s.writeMetadata(a) })
		case lifecycle.DeleteFiles:
			s.spawn(func() { s.deleteFiles(a) })
		case lifecycle.CloseTaskManager:
			if tm, ok := s.tms[a.TaskManager]; ok {
				delete(s.tms, a.TaskManager)
				s.spawn(func() { tm.conn.Close() })
			}
		case lifecycle.SavepointReady:
			s.spawn(func() { s.copySavepointOf(a) })
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

// connected makes the connection dialed to the task manager at addr the
// connection to task manager id, once its registration is applied. The
// caller holds s.mu.
func (s *Server) connected(addr, id string) {
	conn, ok := s.dialed[addr]
	if !ok || id == "" {
		return
	}
	delete(s.dialed, addr)
	if old, ok := s.tms[id]; ok && old.conn != conn {
		s.spawn(func() { old.conn.Close() })
	}
	s.tms[id] = &taskManager{id: id, conn: conn, client: floev1.NewTaskManagerClient(conn)}
}

// dial records the connection to a task manager that registers at addr,
// for connected to take. The caller must not hold s.mu.
func (s *Server) dial(addr string, conn *grpc.ClientConn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.dialed[addr]; ok {
		old.Close()
	}
	s.dialed[addr] = conn
}

// undial closes a connection dialed for a registration that failed, unless
// the registration took it.
func (s *Server) undial(addr string, conn *grpc.ClientConn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dialed[addr] == conn {
		delete(s.dialed, addr)
		conn.Close()
	}
}

// jobStore returns a job's checkpoint storage, opening it on first use (a
// job journaled before a restart reopens its storage from its URL).
func (s *Server) jobStore(ctx context.Context, id string) (ckstore.Store, error) {
	s.mu.Lock()
	st, ok := s.stores[id]
	sub := s.fsm.Submitted(id)
	s.mu.Unlock()
	if ok {
		return st, nil
	}
	if sub == nil || sub.CheckpointURL == "" {
		return nil, fmt.Errorf("job %s has no checkpoint storage", id)
	}
	st, err := s.cfg.OpenStore(ctx, sub.CheckpointURL)
	if err != nil {
		return nil, fmt.Errorf("job %s: checkpoint storage %s: %w", id, sub.CheckpointURL, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev, ok := s.stores[id]; ok {
		return prev, nil
	}
	s.stores[id] = st
	return st, nil
}

// writeMetadata writes a checkpoint's metadata, last, and reports the
// outcome to the lifecycle, which only then counts it complete.
func (s *Server) writeMetadata(a lifecycle.WriteMetadata) {
	md := a.Metadata
	ctx, cancel := context.WithTimeout(s.ctx, time.Minute)
	defer cancel()
	store, err := s.jobStore(ctx, a.Job)
	var b []byte
	if err == nil {
		b, err = ckmeta.Marshal(md)
	}
	if err == nil {
		err = store.Put(ctx, ckmeta.MetadataPath(md.JobID, md.ID), bytes.NewReader(b), int64(len(b)))
	}
	c := journal.MetadataWritten{At: s.now(), Job: a.Job, Attempt: a.Attempt, Metadata: md}
	if err != nil {
		c.Err = err.Error()
	}
	s.event(c)
}

// deleteFiles deletes files no checkpoint needs any more.
func (s *Server) deleteFiles(a lifecycle.DeleteFiles) {
	ctx, cancel := context.WithTimeout(s.ctx, time.Minute)
	defer cancel()
	store, err := s.jobStore(ctx, a.Job)
	if err != nil {
		s.log.Warn("deleting old checkpoint files", "job", a.Job, "err", s.redactor(a.Job)(err.Error()))
		return
	}
	redact := s.redactor(a.Job)
	for _, p := range a.Paths {
		if err := store.Delete(ctx, p); err != nil {
			s.log.Warn("deleting an old checkpoint file", "path", redact(p), "err", redact(err.Error()))
		}
	}
}

// redactor returns what hides the values of job's secret parameters in a
// message, or what changes nothing for a job this scheduler no longer has.
// The caller must not hold s.mu.
func (s *Server) redactor(job string) func(string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if j := s.machine().Job(job); j != nil {
		return j.Plan.Job.Redact
	}
	return func(text string) string { return text }
}

// taskID converts a lifecycle task id to the wire's.
func taskID(t lifecycle.TaskID) *floev1.TaskID {
	return &floev1.TaskID{JobId: t.Job, Attempt: int32(t.Attempt), Stage: int32(t.Stage), Subtask: int32(t.Subtask)}
}

// fromTaskID converts the wire's task id; a nil one names no job.
func fromTaskID(t *floev1.TaskID) lifecycle.TaskID {
	return lifecycle.TaskID{Job: t.GetJobId(), Attempt: int(t.GetAttempt()), Stage: int(t.GetStage()), Subtask: int(t.GetSubtask())}
}
