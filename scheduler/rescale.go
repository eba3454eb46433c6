package scheduler

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/coordinator"
)

// rescale is a rescale under way: the parallelism asked for and the
// checkpoint it will restore from.
type rescale struct {
	par        int
	ops        map[string]int
	checkpoint int64
	requested  time.Time
	stopped    time.Time
	from       string
}

// Rescale implements api.Service.
func (s *Server) Rescale(ctx context.Context, id string, r api.RescaleRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.jobs[id]
	switch {
	case !ok:
		return fmt.Errorf("%w: no job %q", api.ErrNotFound, id)
	case j.state != api.JobRunning:
		return fmt.Errorf("%w: job %s is %s; only a running job can be rescaled", api.ErrConflict, id, j.state)
	case j.ckpts == nil:
		return fmt.Errorf("%w: job %s takes no checkpoints; rescaling moves state through one (submit it with --checkpoint-interval)", api.ErrConflict, id)
	case j.rescale != nil:
		return fmt.Errorf("%w: job %s is already being rescaled", api.ErrConflict, id)
	case r.Parallelism == 0 && len(r.Operators) == 0:
		return fmt.Errorf("%w: give a parallelism or operators' parallelism", api.ErrBadRequest)
	}
	par, ops := j.par, maps.Clone(j.opPar)
	if r.Parallelism != 0 {
		par = r.Parallelism
	}
	if ops == nil {
		ops = map[string]int{}
	}
	maps.Copy(ops, r.Operators)
	if _, err := s.planFor(j, par, ops); err != nil {
		return fmt.Errorf("%w: %v", api.ErrBadRequest, err)
	}
	trig, ok := j.ckpts.coord.TriggerNow(s.now())
	if !ok {
		return fmt.Errorf("%w: job %s cannot take a checkpoint now", api.ErrConflict, id)
	}
	j.rescale = &rescale{par: par, ops: ops, checkpoint: trig.ID, requested: s.now(), from: parallelisms(j.plan)}
	s.setState(j, j.state, fmt.Sprintf("rescaling: taking checkpoint %d", trig.ID))
	s.checkpointActions(j, []coordinator.Action{trig})
	s.log.Info("rescaling job", "job", id, "parallelism", par, "operators", ops, "checkpoint", trig.ID)
	return nil
}

// planFor plans the job's spec at a parallelism and per-operator
// overrides.
func (s *Server) planFor(j *job, par int, ops map[string]int) (*plan.Plan, error) {
	spec, err := jobspec.Parse(j.spec, "/", j.params)
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
	spec.Checkpoints = j.plan.Job.Checkpoints
	return plan.Build(spec)
}

// rescaleAfter stops the job once the checkpoint of its rescale has
// completed and puts it back to placement at the new parallelism. The
// caller holds s.mu.
func (s *Server) rescaleAfter(j *job, id int64) {
	r := j.rescale
	if r == nil || r.checkpoint != id || j.state != api.JobRunning {
		return
	}
	p, err := s.planFor(j, r.par, r.ops)
	if err != nil {
		j.rescale = nil
		s.setState(j, j.state, "rescale failed: "+err.Error())
		return
	}
	s.stopCheckpoints(j, "rescaling")
	s.stopAttempt(j)
	j.par, j.opPar, j.plan, j.slots = r.par, r.ops, p, maxParallelism(p)
	r.stopped = s.now()
	s.setState(j, api.JobWaiting, fmt.Sprintf("rescaling from %s to %s from checkpoint %d", r.from, parallelisms(p), id))
	s.wake()
}

// rescaleFailed abandons a rescale whose checkpoint did not complete. The
// caller holds s.mu.
func (s *Server) rescaleFailed(j *job, id int64, reason string) {
	if r := j.rescale; r != nil && r.checkpoint == id {
		j.rescale = nil
		s.setState(j, j.state, fmt.Sprintf("rescale abandoned: checkpoint %d failed: %s", id, reason))
	}
}

// rescaled reports a finished rescale once the new attempt runs. The
// caller holds s.mu.
func (s *Server) rescaled(j *job) {
	r := j.rescale
	if r == nil || r.stopped.IsZero() {
		return
	}
	j.rescale = nil
	now := s.now()
	s.setState(j, api.JobRunning, fmt.Sprintf("rescaled to %s: %s downtime (%s since the request)",
		parallelisms(j.plan), now.Sub(r.stopped).Round(time.Millisecond), now.Sub(r.requested).Round(time.Millisecond)))
}

// parallelisms renders the stages' parallelism, e.g. "2/4/4".
func parallelisms(p *plan.Plan) string {
	s := ""
	for i, st := range p.Stages {
		if i > 0 {
			s += "/"
		}
		s += fmt.Sprint(st.Parallelism)
	}
	return s
}
