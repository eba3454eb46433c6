package taskmanager

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/floe-stream/floe/host/task"
	"github.com/floe-stream/floe/internal/ckmeta"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
	"github.com/floe-stream/floe/storage/ckstore"
)

// stores opens each checkpoint storage URL once per task manager.
type stores struct {
	opener ckstore.Opener
	mu     sync.Mutex
	open   map[string]ckstore.Store
}

func (s *stores) get(ctx context.Context, url string) (ckstore.Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.open[url]; ok {
		return st, nil
	}
	st, err := s.opener(ctx, url)
	if err != nil {
		return nil, err
	}
	if s.open == nil {
		s.open = map[string]ckstore.Store{}
	}
	s.open[url] = st
	return st, nil
}

// checkpointing wires a task to the job's checkpoints, or returns nil when
// the job takes none.
func (tm *TaskManager) checkpointing(ctx context.Context, r *running, req *floev1.DeployTaskRequest) (*task.Checkpointing, *ckmeta.Restore, error) {
	if req.CheckpointStorage == "" {
		return nil, nil, nil
	}
	store, err := tm.stores.get(ctx, req.CheckpointStorage)
	if err != nil {
		return nil, nil, fmt.Errorf("checkpoint storage: %w", err)
	}
	tmp := filepath.Join(tm.cfg.DataDir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, nil, err
	}
	var restore *ckmeta.Restore
	if len(req.Restore) > 0 {
		restore = &ckmeta.Restore{}
		if err := ckmeta.Unmarshal(req.Restore, restore); err != nil {
			return nil, nil, fmt.Errorf("restore handle: %w", err)
		}
	}
	restoreStore := task.CheckpointStore(store)
	if restore != nil && restore.Store != "" {
		if tm.roots.Restricted() {
			if _, err := tm.roots.CheckStore("restore", restore.Store); err != nil {
				return nil, nil, fmt.Errorf("refusing to restore: %w", err)
			}
		}
		if restoreStore, err = tm.stores.get(ctx, restore.Store); err != nil {
			return nil, nil, fmt.Errorf("restoring from %s: %w", restore.Store, err)
		}
	}
	id := req.Task
	redact := redactor(req) // a reason may quote the store's URL, built from a secret say
	return &task.Checkpointing{
		Store: store, RestoreStore: restoreStore, JobID: id.JobId, Attempt: int(id.Attempt), TempDir: tmp,
		Ack: func(ckpt int64, st ckmeta.SubtaskState) {
			b, err := ckmeta.Marshal(st)
			if err == nil {
				err = tm.call(func(ctx context.Context, sched floev1.SchedulerClient) error {
					_, err := sched.AcknowledgeCheckpoint(ctx, &floev1.AcknowledgeCheckpointRequest{Task: id, CheckpointId: ckpt, State: b})
					return err
				})
			}
			if err != nil {
				// NB: an ack lost in a failover is not retried: the new
				// leader abandons the checkpoints in flight.
				tm.log.Warn("acknowledging checkpoint", "checkpoint", ckpt, "err", err)
			}
		},
		Decline: func(ckpt int64, reason string) {
			reason = redact(reason)
			tm.log.Warn("declining checkpoint", "task", keyOf(id), "checkpoint", ckpt, "reason", reason)
			tm.call(func(ctx context.Context, sched floev1.SchedulerClient) error {
				_, err := sched.DeclineCheckpoint(ctx, &floev1.DeclineCheckpointRequest{Task: id, CheckpointId: ckpt, Reason: reason})
				return err
			})
		},
		Ending: func() { tm.report(r, floev1.TaskState_TASK_STATE_ENDING, "") },
	}, restore, nil
}

// call makes one RPC to the leader with a timeout; it fails with
// errNoLeader while there is none.
func (tm *TaskManager) call(fn func(ctx context.Context, sched floev1.SchedulerClient) error) error {
	sched, err := tm.leader()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(tm.ctx, 10*time.Second)
	defer cancel()
	return fn(ctx, sched)
}

// tasksOf returns the running tasks of a job attempt.
func (tm *TaskManager) tasksOf(job string, attempt int32) []*task.Task {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	var out []*task.Task
	for k, r := range tm.tasks {
		if k.job == job && k.attempt == attempt {
			r.mu.Lock()
			if r.task != nil {
				out = append(out, r.task)
			}
			r.mu.Unlock()
		}
	}
	return out
}

// TriggerCheckpoint implements floev1.TaskManagerServer.
func (tm *TaskManager) TriggerCheckpoint(ctx context.Context, req *floev1.TriggerCheckpointRequest) (*floev1.TriggerCheckpointResponse, error) {
	if err := tm.fence(req.Term); err != nil {
		return nil, err
	}
	n := 0
	for _, t := range tm.tasksOf(req.JobId, req.Attempt) {
		trigger := t.TriggerCheckpoint
		if req.Suspend {
			trigger = t.TriggerSuspend
		}
		if trigger(req.CheckpointId) {
			n++
		}
	}
	if n == 0 {
		return nil, status.Errorf(codes.FailedPrecondition, "no running source task or ending sink of job %s attempt %d here", req.JobId, req.Attempt)
	}
	return &floev1.TriggerCheckpointResponse{}, nil
}

// NotifyCheckpointComplete implements floev1.TaskManagerServer.
func (tm *TaskManager) NotifyCheckpointComplete(ctx context.Context, req *floev1.NotifyCheckpointRequest) (*floev1.NotifyCheckpointResponse, error) {
	if err := tm.fence(req.Term); err != nil {
		return nil, err
	}
	for _, t := range tm.tasksOf(req.JobId, req.Attempt) {
		t.NotifyCheckpointComplete(req.CheckpointId)
	}
	return &floev1.NotifyCheckpointResponse{}, nil
}
