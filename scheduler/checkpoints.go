package scheduler

import (
	"context"
	"fmt"
	"slices"

	"github.com/floe-stream/floe/internal/plan"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/journal"
	"github.com/floe-stream/floe/storage/ckstore"
)

// openCheckpoints opens a job's checkpoint storage, when it takes
// checkpoints or restores a savepoint, and records it in the job's
// command; the store is the server's once the job is journaled.
func (s *Server) openCheckpoints(ctx context.Context, c *journal.Submit, p *plan.Plan, restores bool) (ckstore.Store, error) {
	url := s.cfg.CheckpointStorage
	switch {
	case p.Job.Checkpoints != nil && p.Job.Checkpoints.Storage != "":
		url = p.Job.Checkpoints.Storage
	case p.Job.Checkpoints == nil && !restores:
		return nil, nil
	}
	store, err := s.cfg.OpenStore(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("%w: checkpoint storage: %v", api.ErrBadRequest, err)
	}
	c.CheckpointURL, c.CheckpointStore = url, store.String()
	return store, nil
}

// AcknowledgeCheckpoint implements floev1.SchedulerServer.
func (s *Server) AcknowledgeCheckpoint(ctx context.Context, req *floev1.AcknowledgeCheckpointRequest) (*floev1.AcknowledgeCheckpointResponse, error) {
	c := journal.Ack{At: s.now(), Task: fromTaskID(req.Task), ID: req.CheckpointId, State: req.State}
	if _, err := s.propose(ctx, c); err != nil {
		return nil, rpcError(err)
	}
	return &floev1.AcknowledgeCheckpointResponse{}, nil
}

// DeclineCheckpoint implements floev1.SchedulerServer.
func (s *Server) DeclineCheckpoint(ctx context.Context, req *floev1.DeclineCheckpointRequest) (*floev1.DeclineCheckpointResponse, error) {
	c := journal.Decline{At: s.now(), Task: fromTaskID(req.Task), ID: req.CheckpointId, Reason: req.Reason}
	if _, err := s.propose(ctx, c); err != nil {
		return nil, rpcError(err)
	}
	return &floev1.DeclineCheckpointResponse{}, nil
}

// Checkpoints implements api.Service.
func (s *Server) Checkpoints(ctx context.Context, id string) ([]api.CheckpointStatus, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.machine().Job(id)
	if j == nil {
		return nil, fmt.Errorf("%w: no job %q", api.ErrNotFound, id)
	}
	out := []api.CheckpointStatus{}
	h := j.Checkpoints()
	for i := len(h) - 1; i >= 0; i-- {
		st := *h[i]
		st.Subtasks = slices.Clone(st.Subtasks)
		// A decline's reason or the storage URL may quote a secret
		// parameter, as a job's messages may (status).
		st.Message, st.Path = j.Plan.Job.Redact(st.Message), j.Plan.Job.Redact(st.Path)
		out = append(out, st)
	}
	return out, nil
}
