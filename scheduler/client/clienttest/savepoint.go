package clienttest

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/scheduler/api"
)

// DefaultSavepointDir is where the Fake puts a savepoint asked for without
// a dir, as the scheduler puts it under the job's checkpoint storage.
const DefaultSavepointDir = "file:///ckpt/savepoints"

// SavepointCall is one call of Savepoint or Stop that named a known job, as
// Savepoints reports it.
type SavepointCall struct {
	Job, Dir string
	// Stop is whether the call was Stop.
	Stop bool
}

// shape is what the Fake remembers of a savepoint it took, to check a
// submission from it as the scheduler would.
type shape struct {
	maxParallelism int
	uids           []string
}

// Savepoint checks the request as the scheduler would and returns its
// trigger, IN_PROGRESS, at once; the trigger ids are trigger-1,
// trigger-2, … in the order of the calls. The savepoint completes when
// SavepointStatus is first asked about it: as the next one that
// ScriptSavepoints queued for the job (which may be FAILED), or else one
// whose ID is one more than the job's newest checkpoint or savepoint and
// whose Path is <dir>/savepoint-<prefix>-<ID>, where prefix is the job
// id's first 6 characters, with DefaultSavepointDir for an empty dir, as
// the scheduler names it. The job keeps running.
//
// The errors wrap api.ErrNotFound for an unknown job; api.ErrConflict for a
// job that is not RUNNING, takes no checkpoints or is being rescaled; and
// api.ErrBadRequest for a dir that is not a file:// or s3:// URL.
// FailSavepoints scripts other outcomes.
func (f *Fake) Savepoint(_ context.Context, id, dir string) (api.SavepointTrigger, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.savepoint(id, dir, false)
}

// Stop starts a savepoint as Savepoint does; once it completes (see
// Savepoint), the job moves to FINISHED, with the message "stopped with
// savepoint <path>". Its errors are Savepoint's, and a refused Stop leaves
// the job running.
func (f *Fake) Stop(_ context.Context, id, dir string) (api.SavepointTrigger, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.savepoint(id, dir, true)
}

// SavepointStatus returns a trigger of Savepoint or Stop, completing it
// if it was in progress (see Savepoint). The error wraps api.ErrNotFound
// for an unknown job or trigger.
func (f *Fake) SavepointStatus(_ context.Context, id, trigger string) (api.SavepointTrigger, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, err := f.find(id)
	if err != nil {
		return api.SavepointTrigger{}, err
	}
	t, ok := j.triggers[trigger]
	if !ok {
		return api.SavepointTrigger{}, fmt.Errorf("%w: job %s has no savepoint trigger %q", api.ErrNotFound, id, trigger)
	}
	if t.Status == api.SavepointInProgress {
		f.completeTrigger(j, t)
	}
	return *t, nil
}

// completeTrigger ends a trigger as its job's script or the savepoints'
// numbering says. f.mu is held.
func (f *Fake) completeTrigger(j *fakeJob, t *api.SavepointTrigger) {
	out := j.nextSavepoint(t.Dir)
	t.Status, t.ID, t.Path, t.Failure = out.Status, out.ID, out.Path, out.Failure
	if t.Status == "" {
		t.Status = api.SavepointCompleted
	}
	j.lastSavepoint = max(j.lastSavepoint, t.ID)
	if t.Status != api.SavepointCompleted {
		return
	}
	if f.taken == nil {
		f.taken = make(map[string]shape)
	}
	f.taken[t.Path] = shape{maxParallelism: j.spec.MaxParallelism, uids: uids(j.spec)}
	if t.Stop && j.status.State == api.JobRunning {
		f.setState(j, api.JobFinished, "stopped with savepoint "+t.Path)
	}
}

// savepoint records a call of Savepoint or Stop and triggers the
// savepoint. f.mu is held.
func (f *Fake) savepoint(id, dir string, stop bool) (api.SavepointTrigger, error) {
	j, err := f.find(id)
	if err != nil {
		return api.SavepointTrigger{}, err
	}
	f.savepoints = append(f.savepoints, SavepointCall{Job: id, Dir: dir, Stop: stop})
	if len(j.savepointErrs) > 0 {
		err, j.savepointErrs = j.savepointErrs[0], j.savepointErrs[1:]
		if err != nil {
			return api.SavepointTrigger{}, err
		}
	}
	if err := j.canSavepoint(); err != nil {
		return api.SavepointTrigger{}, err
	}
	if err := checkURL("savepoint dir", dir); err != nil {
		return api.SavepointTrigger{}, err
	}
	f.nextTrigger++
	t := &api.SavepointTrigger{Trigger: fmt.Sprintf("trigger-%d", f.nextTrigger), Status: api.SavepointInProgress, Dir: dir, Stop: stop}
	if j.triggers == nil {
		j.triggers = make(map[string]*api.SavepointTrigger)
	}
	j.triggers[t.Trigger] = t
	return *t, nil
}

// canSavepoint reports why j cannot take a savepoint now, if it cannot.
func (j *fakeJob) canSavepoint() error {
	id, state := j.status.ID, j.status.State
	switch {
	case state != api.JobRunning:
		return fmt.Errorf("%w: job %s is %s; savepoints are taken of running jobs", api.ErrConflict, id, state)
	case j.spec.Checkpoints == nil:
		return fmt.Errorf("%w: job %s takes no checkpoints; submit it with --checkpoint-interval to take savepoints",
			api.ErrConflict, id)
	case j.rescaling:
		return fmt.Errorf("%w: job %s is being rescaled", api.ErrConflict, id)
	}
	return nil
}

// nextSavepoint returns the savepoint that j takes next into dir: the next
// scripted one, or a synthesized one.
func (j *fakeJob) nextSavepoint(dir string) api.SavepointTrigger {
	if len(j.savepointScript) > 0 {
		sp := j.savepointScript[0]
		j.savepointScript = j.savepointScript[1:]
		return sp
	}
	n := j.lastSavepoint
	if len(j.ckpts) > 0 {
		n = max(n, j.ckpts[0].ID)
	}
	if dir == "" {
		dir = DefaultSavepointDir
	}
	n++
	prefix := j.status.ID[:min(6, len(j.status.ID))]
	return api.SavepointTrigger{Status: api.SavepointCompleted, ID: n, Path: fmt.Sprintf("%s/savepoint-%s-%d", strings.TrimRight(dir, "/"), prefix, n)}
}

// quoted writes names quoted and joined by commas.
func quoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// checkURL checks that u, if not empty, is a file:// or s3:// URL with a
// path or bucket; what names it in the error.
func checkURL(what, u string) error {
	if u == "" {
		return nil
	}
	p, err := url.Parse(u)
	if err != nil || !(p.Scheme == "file" && p.Path != "" || p.Scheme == "s3" && p.Host != "") {
		return fmt.Errorf("%w: %s %q: want a file:// or s3:// URL", api.ErrBadRequest, what, u)
	}
	return nil
}

// uids returns the uids of job's sources, operators and sinks, in order.
func uids(job *jobspec.Job) []string {
	var out []string
	for _, s := range job.Sources {
		out = append(out, s.UID)
	}
	for _, op := range job.Operators {
		out = append(out, op.UID)
	}
	for _, s := range job.Sinks {
		out = append(out, s.UID)
	}
	return out
}

// checkRestore checks a submission's savepoint as the scheduler would, for
// job: a savepoint the Fake took must have job's maxParallelism, and may
// hold state for uids that job does not have only with
// AllowNonRestoredState; one it did not take it cannot read, and accepts.
// The errors wrap api.ErrBadRequest. f.mu is held.
func (f *Fake) checkRestore(s api.Submission, job *jobspec.Job) error {
	if err := checkURL("fromSavepoint", s.FromSavepoint); err != nil || s.FromSavepoint == "" {
		return err
	}
	sp, ok := f.taken[strings.TrimRight(s.FromSavepoint, "/")]
	if !ok {
		return nil
	}
	if sp.maxParallelism != job.MaxParallelism {
		return fmt.Errorf("%w: savepoint %s has maxParallelism %d, the job %d: it is fixed for the life of the state",
			api.ErrBadRequest, s.FromSavepoint, sp.maxParallelism, job.MaxParallelism)
	}
	have := uids(job)
	var missing []string
	for _, uid := range sp.uids {
		if !slices.Contains(have, uid) {
			missing = append(missing, uid)
		}
	}
	if len(missing) > 0 && !s.AllowNonRestoredState {
		return fmt.Errorf("%w: savepoint %s has state for %s, which the job lacks (pass --allow-non-restored-state to drop it)",
			api.ErrBadRequest, s.FromSavepoint, quoted(missing))
	}
	return nil
}

// ScriptSavepoints makes the next len(sps) savepoints of job id that
// complete end as sps say in turn (their Status, ID, Path and Failure; an
// empty Status is COMPLETED) instead of as a synthesized savepoint. It
// panics for an unknown id.
func (f *Fake) ScriptSavepoints(id string, sps ...api.SavepointTrigger) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, err := f.lookup(id)
	if err != nil {
		panic(err)
	}
	j.savepointScript = append(j.savepointScript, sps...)
}

// FailSavepoints makes the next len(errs) calls of Savepoint or Stop for
// job id return errs in turn, after the call is recorded and before
// anything else is checked; a nil entry lets its call through. It panics
// for an unknown id.
func (f *Fake) FailSavepoints(id string, errs ...error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, err := f.lookup(id)
	if err != nil {
		panic(err)
	}
	j.savepointErrs = append(j.savepointErrs, errs...)
}

// Savepoints returns every call of Savepoint and Stop that named a known
// job, oldest first, whether or not it succeeded.
func (f *Fake) Savepoints() []SavepointCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.savepoints)
}
