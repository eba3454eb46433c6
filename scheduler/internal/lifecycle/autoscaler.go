package lifecycle

import (
	"fmt"
	"slices"
	"time"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/autoscale"
)

// Autoscaling is a job's autoscaling policy and the decisions taken
// under it. The scheduler's driver decides (scheduler/autoscaler.go, with
// scheduler/internal/autoscale); the machine records the decisions it is
// given and applies those that change a parallelism as a rescale, so that
// both are journaled and survive a change of leader.
type Autoscaling struct {
	// Config is the policy: the spec's autoscaler: section until
	// SetAutoscaler changes it.
	Config jobspec.Autoscaler
	// Decisions are the latest decisions, oldest first: at most
	// MaxDecisions of them.
	Decisions []autoscale.Decision `json:",omitempty"`
	// LastRescale is when the autoscaler last rescaled the job, zero if
	// never: its cooldown and the start of its metrics window.
	LastRescale time.Time `json:",omitzero"`
	// Rescales counts the autoscaler's rescales that were started.
	Rescales int `json:",omitempty"`
}

// MaxDecisions is how many decisions a job keeps.
const MaxDecisions = 50

// SetAutoscaler replaces a job's autoscaling policy. A job that has ended
// cannot have one.
func (m *Machine) SetAutoscaler(now time.Time, id string, cfg jobspec.Autoscaler) ([]Action, error) {
	m.begin(now)
	j, ok := m.jobs[id]
	switch {
	case !ok:
		return nil, fmt.Errorf("%w: no job %q", api.ErrNotFound, id)
	case api.Terminal(j.State):
		return nil, fmt.Errorf("%w: job %s is %s", api.ErrConflict, id, j.State)
	case cfg.Enabled && j.ckpt == nil:
		return nil, fmt.Errorf("%w: job %s takes no checkpoints; the autoscaler rescales through them (submit it with --checkpoint-interval)", api.ErrConflict, id)
	}
	was := j.Autoscaler.Config.Enabled
	j.Autoscaler.Config = cfg
	if was != cfg.Enabled {
		m.setState(j, j.State, map[bool]string{true: "autoscaler enabled", false: "autoscaler disabled"}[cfg.Enabled])
	}
	return m.end(), nil
}

// Autoscale records a decision of the autoscaler for a job and, when it
// changes a vertex's parallelism, starts the rescale it asks for: the
// operators of each changed stage get the stage's new parallelism. The
// error is Rescale's when the job cannot be rescaled now; the decision is
// recorded all the same, with why it was not applied.
func (m *Machine) Autoscale(now time.Time, id string, d autoscale.Decision) ([]Action, error) {
	m.begin(now)
	j, ok := m.jobs[id]
	if !ok {
		return nil, fmt.Errorf("%w: no job %q", api.ErrNotFound, id)
	}
	var acts []Action
	var err error
	if d.Change {
		ops := stageOperators(j.Plan, d)
		if acts, err = m.Rescale(now, id, 0, ops); err != nil {
			d.Reason += "; not applied: " + err.Error()
		} else {
			j.Autoscaler.LastRescale = now
			j.Autoscaler.Rescales++
		}
	}
	j.Autoscaler.Decisions = append(j.Autoscaler.Decisions, d)
	if n := len(j.Autoscaler.Decisions); n > MaxDecisions {
		j.Autoscaler.Decisions = slices.Delete(j.Autoscaler.Decisions, 0, n-MaxDecisions)
	}
	return acts, err
}

// stageOperators returns the uid of every source, operator and sink of
// each stage whose parallelism d changes, with the stage's new
// parallelism.
func stageOperators(p *plan.Plan, d autoscale.Decision) map[string]int {
	ops := map[string]int{}
	for _, v := range d.Vertices {
		if v.New == v.Current || v.ID < 0 || v.ID >= len(p.Stages) {
			continue
		}
		st := p.Stages[v.ID]
		if st.Source != nil {
			ops[st.Source.UID] = v.New
		}
		for _, o := range st.Operators {
			ops[o.UID] = v.New
		}
		if st.Sink != nil {
			ops[st.Sink.UID] = v.New
		}
	}
	return ops
}

// Rescaling tells whether a rescale of the job is under way.
func (j *Job) Rescaling() bool { return j.rescale != nil }
