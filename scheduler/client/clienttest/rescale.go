package clienttest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/scheduler/api"
)

// RescaleCall is one call of Rescale that named a known job, as Rescales
// reports it.
type RescaleCall struct {
	Job     string
	Request api.RescaleRequest
}

// Rescale checks a rescale as the scheduler would and, if it is allowed,
// starts it the way the scheduler reports one: the job's history gets a
// RUNNING event "rescaling: taking checkpoint N" at once, and the next four
// calls of Job(id), after any steps that Script queued before, move it to
// WAITING ("rescaling from 2/2/2 to 2/4/4 from checkpoint N"), DEPLOYING
// (the next attempt, when its vertices and parallelism change), RUNNING and
// RUNNING again with "rescaled to 2/4/4: 0s downtime (0s since the
// request)". A job that ends meanwhile drops the rest. N is one more than
// the newest checkpoint that AddCheckpoint gave the job.
//
// The errors wrap api.ErrNotFound for an unknown job; api.ErrConflict for a
// job that is not RUNNING, takes no checkpoints (its spec has no checkpoints
// section and it was submitted without a CheckpointInterval) or is being
// rescaled; and api.ErrBadRequest for a request with neither a parallelism
// nor operators, a parallelism outside 1..maxParallelism or an unknown uid.
// FailRescales scripts other outcomes.
func (f *Fake) Rescale(_ context.Context, id string, r api.RescaleRequest) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, err := f.find(id)
	if err != nil {
		return err
	}
	f.rescales = append(f.rescales, RescaleCall{Job: id, Request: cloneRescale(r)})
	if len(j.rescaleErrs) > 0 {
		err, j.rescaleErrs = j.rescaleErrs[0], j.rescaleErrs[1:]
		if err != nil {
			return err
		}
	}
	to, err := j.rescaled(r)
	if err != nil {
		return err
	}
	f.startRescale(j, to)
	return nil
}

// rescaled checks that j may be rescaled as r asks and returns its spec at
// the new parallelism.
func (j *fakeJob) rescaled(r api.RescaleRequest) (*jobspec.Job, error) {
	id, state := j.status.ID, j.status.State
	switch {
	case state != api.JobRunning:
		return nil, fmt.Errorf("%w: job %s is %s; only a running job can be rescaled", api.ErrConflict, id, state)
	case j.spec.Checkpoints == nil:
		return nil, fmt.Errorf("%w: job %s takes no checkpoints; rescaling moves state through one (submit it with --checkpoint-interval)",
			api.ErrConflict, id)
	case j.rescaling:
		return nil, fmt.Errorf("%w: job %s is already being rescaled", api.ErrConflict, id)
	case r.Parallelism == 0 && len(r.Operators) == 0:
		return nil, fmt.Errorf("%w: give a parallelism or operators' parallelism", api.ErrBadRequest)
	}
	to := *j.spec
	to.Sources, to.Operators, to.Sinks = slices.Clone(to.Sources), slices.Clone(to.Operators), slices.Clone(to.Sinks)
	var err error
	if r.Parallelism != 0 {
		err = to.WithParallelism(r.Parallelism)
	}
	for _, uid := range slices.Sorted(maps.Keys(r.Operators)) {
		if err == nil {
			err = to.WithOperatorParallelism(uid, r.Operators[uid])
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", api.ErrBadRequest, err)
	}
	return &to, nil
}

// startRescale records the start of a rescale of j to the spec to and
// queues its steps. f.mu is held.
func (f *Fake) startRescale(j *fakeJob, to *jobspec.Job) {
	ckpt := int64(1)
	if len(j.ckpts) > 0 {
		ckpt = j.ckpts[0].ID + 1
	}
	from, dest, attempt := stages(j.spec), stages(to), j.status.Attempt+1
	j.rescaling = true
	f.setState(j, api.JobRunning, fmt.Sprintf("rescaling: taking checkpoint %d", ckpt))
	j.script = append(j.script,
		step{rescale: true, event: api.Event{State: api.JobWaiting,
			Message: fmt.Sprintf("rescaling from %s to %s from checkpoint %d", from, dest, ckpt)}},
		step{rescale: true, deploy: to, event: api.Event{State: api.JobDeploying,
			Message: fmt.Sprintf("attempt %d on %d slots, restoring checkpoint %d", attempt, slots(to), ckpt)}},
		step{rescale: true, event: api.Event{State: api.JobRunning, Message: fmt.Sprintf("attempt %d running", attempt)}},
		step{rescale: true, done: true, event: api.Event{State: api.JobRunning,
			Message: fmt.Sprintf("rescaled to %s: 0s downtime (0s since the request)", dest)}},
	)
}

// take moves j to the next state of its script. f.mu is held.
func (f *Fake) take(j *fakeJob, st step) {
	if st.deploy != nil {
		j.spec = st.deploy
		s := &j.status
		s.Attempt++
		s.Parallelism = st.deploy.Parallelism
		s.Vertices = vertices(st.deploy)
	}
	if st.done {
		j.rescaling = false
	}
	f.setState(j, st.event.State, st.event.Message)
}

// stages renders the parallelism of the job's vertices as the scheduler
// does, e.g. "2/4/4".
func stages(job *jobspec.Job) string {
	var s []string
	for _, v := range vertices(job) {
		s = append(s, fmt.Sprint(v.Parallelism))
	}
	return strings.Join(s, "/")
}

// slots is how many slots the job needs: its largest parallelism.
func slots(job *jobspec.Job) int {
	n := 0
	for _, v := range vertices(job) {
		n = max(n, v.Parallelism)
	}
	return n
}

// FailRescales makes the next len(errs) calls of Rescale for job id return
// errs in turn, after the call is recorded and before anything else is
// checked; a nil entry lets its call through. It panics for an unknown id.
func (f *Fake) FailRescales(id string, errs ...error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, err := f.lookup(id)
	if err != nil {
		panic(err)
	}
	j.rescaleErrs = append(j.rescaleErrs, errs...)
}

// Rescales returns every call of Rescale that named a known job, oldest
// first, whether or not it succeeded.
func (f *Fake) Rescales() []RescaleCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]RescaleCall, len(f.rescales))
	for i, c := range f.rescales {
		out[i] = RescaleCall{Job: c.Job, Request: cloneRescale(c.Request)}
	}
	return out
}

func cloneRescale(r api.RescaleRequest) api.RescaleRequest {
	r.Operators = maps.Clone(r.Operators)
	return r
}
