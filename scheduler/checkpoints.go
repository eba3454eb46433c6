package scheduler

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/floe-stream/floe/internal/plan"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/coordinator"
	"github.com/floe-stream/floe/scheduler/internal/lifecycle"
)

// openCheckpoints opens a job's checkpoint storage and returns its
// checkpointing configuration, or nil when the job takes no checkpoints.
func (s *Server) openCheckpoints(ctx context.Context, j *job, p *plan.Plan) (*lifecycle.Checkpointing, error) {
	c := p.Job.Checkpoints
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
	j.url, j.store = url, store
	return &lifecycle.Checkpointing{
		Coordinator: coordinator.Config{Interval: c.Interval, Timeout: c.Timeout, MinPause: c.MinPause, MaxConcurrent: c.MaxConcurrent},
		Retain:      c.Retain, Store: store.String(),
	}, nil
}

// AcknowledgeCheckpoint implements floev1.SchedulerServer.
func (s *Server) AcknowledgeCheckpoint(ctx context.Context, req *floev1.AcknowledgeCheckpointRequest) (*floev1.AcknowledgeCheckpointResponse, error) {
	task := fromTaskID(req.Task)
	s.apply(func(now time.Time) []lifecycle.Action { return s.m.Ack(now, task, req.CheckpointId, req.State) })
	return &floev1.AcknowledgeCheckpointResponse{}, nil
}

// DeclineCheckpoint implements floev1.SchedulerServer.
func (s *Server) DeclineCheckpoint(ctx context.Context, req *floev1.DeclineCheckpointRequest) (*floev1.DeclineCheckpointResponse, error) {
	task := fromTaskID(req.Task)
	s.apply(func(now time.Time) []lifecycle.Action { return s.m.Decline(now, task, req.CheckpointId, req.Reason) })
	return &floev1.DeclineCheckpointResponse{}, nil
}

// Checkpoints implements api.Service.
func (s *Server) Checkpoints(ctx context.Context, id string) ([]api.CheckpointStatus, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.m.Job(id)
	if j == nil {
		return nil, fmt.Errorf("%w: no job %q", api.ErrNotFound, id)
	}
	out := []api.CheckpointStatus{}
	h := j.Checkpoints()
	for i := len(h) - 1; i >= 0; i-- {
		st := *h[i]
		st.Subtasks = slices.Clone(st.Subtasks)
		out = append(out, st)
	}
	return out, nil
}
