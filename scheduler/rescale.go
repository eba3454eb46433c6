package scheduler

import (
	"context"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/journal"
)

// Rescale implements api.Service.
func (s *Server) Rescale(ctx context.Context, id string, r api.RescaleRequest) error {
	res, err := s.propose(ctx, journal.Rescale{At: s.now(), Job: id, Parallelism: r.Parallelism, Operators: r.Operators})
	if err != nil {
		return err
	}
	return res.Err
}

// planFor plans a job's spec at a parallelism and per-operator overrides,
// keeping the checkpoint configuration it was submitted with.
func planFor(specYAML []byte, params map[string]string, ckpts *jobspec.Checkpoints, par int, ops map[string]int) (*plan.Plan, error) {
	spec, err := jobspec.Parse(specYAML, "/", params)
	if err != nil {
		return nil, err
	}
	if par != 0 {
		if err := spec.WithParallelism(par); err != nil {
			return nil, err
		}
	}
	for uid, n := range ops {
		if err := spec.WithOperatorParallelism(uid, n); err != nil {
			return nil, err
		}
	}
	spec.Checkpoints = ckpts
	return plan.Build(spec)
}
