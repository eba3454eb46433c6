package lifecycle

import (
	"fmt"
	"maps"
	"time"

	"github.com/floe-stream/floe/internal/plan"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/coordinator"
)

// rescale is a rescale under way: the parallelism asked for, its plan and
// the checkpoint it will restore from.
type rescale struct {
	par        int
	ops        map[string]int
	plan       *plan.Plan
	checkpoint int64
	requested  time.Time
	stopped    time.Time
	from       string
	// partial tells that only the changed stages are redeployed
	// (partial.go); failed is why its suspend checkpoint failed, until
	// the fallback to the whole-job path.
	partial bool
	changed []int
	failed  string
}

// Rescale asks for a running job to run at parallelism par (zero: keep
// it) with operators' overrides ops. It takes a checkpoint now; once that
// completes, the attempt stops and the job is placed again at the new
// parallelism, restoring it.
func (m *Machine) Rescale(now time.Time, id string, par int, ops map[string]int) ([]Action, error) {
	m.begin(now)
	j, ok := m.jobs[id]
	switch {
	case !ok:
		return nil, fmt.Errorf("%w: no job %q", api.ErrNotFound, id)
	case j.State != api.JobRunning:
		return nil, fmt.Errorf("%w: job %s is %s; only a running job can be rescaled", api.ErrConflict, id, j.State)
	case j.ckpt == nil:
		return nil, fmt.Errorf("%w: job %s takes no checkpoints; rescaling moves state through one (submit it with --checkpoint-interval)", api.ErrConflict, id)
	case j.rescale != nil:
		return nil, fmt.Errorf("%w: job %s is already being rescaled", api.ErrConflict, id)
	case par == 0 && len(ops) == 0:
		return nil, fmt.Errorf("%w: give a parallelism or operators' parallelism", api.ErrBadRequest)
	}
	newPar, newOps := j.Par, maps.Clone(j.OpPar)
	if par != 0 {
		newPar = par
	}
	if newOps == nil {
		newOps = map[string]int{}
	}
	maps.Copy(newOps, ops)
	p, err := j.replan(newPar, newOps)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", api.ErrBadRequest, err)
	}
	trig, ok := j.ckpt.coord.TriggerNow(now)
	if !ok {
		return nil, fmt.Errorf("%w: job %s cannot take a checkpoint now", api.ErrConflict, id)
	}
	j.rescale = &rescale{par: newPar, ops: newOps, plan: p, checkpoint: trig.ID, requested: now, from: parallelisms(j.Plan)}
	// NB: a task that has ended cannot be resumed to send its end on the
	// new channels, which a new subtask would wait for: only a job whose
	// tasks all run is rescaled partially.
	if changed, ok := changedStages(j.Plan, p); ok && m.cfg.PartialRescale && j.all(api.TaskRunning) {
		j.rescale.partial, j.rescale.changed = true, changed
	}
	m.setState(j, j.State, fmt.Sprintf("rescaling: taking checkpoint %d", trig.ID))
	m.checkpointActions(j, []coordinator.Action{trig})
	m.log.Info("rescaling job", "job", id, "parallelism", newPar, "operators", newOps, "checkpoint", trig.ID)
	return m.end(), nil
}

// rescaleAfter stops the job once the checkpoint of its rescale has
// completed and puts it back to placement at the new parallelism.
func (m *Machine) rescaleAfter(j *Job, id int64) {
	r := j.rescale
	if r == nil || r.checkpoint != id || j.State != api.JobRunning {
		return
	}
	if r.partial {
		m.partialAfter(j, id)
		return
	}
	m.stopCheckpoints(j, "rescaling")
	m.stopAttempt(j)
	j.Par, j.OpPar, j.Plan, j.Slots = r.par, r.ops, r.plan, maxParallelism(r.plan)
	r.stopped = m.now
	m.setState(j, api.JobWaiting, fmt.Sprintf("rescaling from %s to %s from checkpoint %d", r.from, parallelisms(r.plan), id))
}

// rescaleFailed abandons a rescale whose checkpoint did not complete. A
// partial rescale's tasks may be suspended at its barrier: unless the
// attempt is being stopped anyway, the job falls back to the whole-job
// path once the coordinator's actions are carried out (checkpointActions).
func (m *Machine) rescaleFailed(j *Job, id int64, reason string) {
	if r := j.rescale; r != nil && r.checkpoint == id && r.partial && r.stopped.IsZero() && !j.ckpt.stopping {
		r.failed = reason
		return
	}
	if r := j.rescale; r != nil && r.checkpoint == id {
		j.rescale = nil
		m.setState(j, j.State, fmt.Sprintf("rescale abandoned: checkpoint %d failed: %s", id, reason))
	}
}

// rescaled reports a finished rescale once the new attempt runs.
func (m *Machine) rescaled(j *Job) {
	r := j.rescale
	if r == nil || r.stopped.IsZero() {
		return
	}
	if r.partial {
		m.resumeKept(j)
	}
	j.rescale = nil
	j.Stats.Rescales++
	j.Stats.LastRescaleDowntime = m.now.Sub(r.stopped)
	// NB: clients parse this message (the CLI, the benchmarks): a partial
	// rescale says so in its DEPLOYING message instead.
	m.setState(j, api.JobRunning, fmt.Sprintf("rescaled to %s: %s downtime (%s since the request)",
		parallelisms(j.Plan), m.now.Sub(r.stopped).Round(time.Millisecond), m.now.Sub(r.requested).Round(time.Millisecond)))
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
