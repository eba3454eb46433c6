package clienttest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	_ "github.com/floe-stream/floe/host/connector/builtin" // the connectors that specs name
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/scheduler/api"
)

// Start is the fake clock's first reading; each submission advances it by a
// second, so jobs have distinct, predictable submission times.
var Start = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// Fake is an in-memory api.Service. Submitted jobs start RUNNING, with one
// vertex per stage of the spec and every subtask RUNNING on task manager
// "tm-1"; they change state only through Cancel, Stop, SetState, Script and
// Rescale. They take no checkpoints: AddCheckpoint gives them some, and
// Savepoint takes savepoints at once (savepoint.go). They
// declare no keyed state: AddState and PutState give them some for
// QueryState. It is safe for concurrent use.
type Fake struct {
	mu       sync.Mutex
	now      time.Time
	jobs     []*fakeJob // oldest first
	tms      []api.TaskManagerStatus
	subs     []api.Submission
	queries  []Query
	rescales []RescaleCall
	// savepoints are the calls of Savepoint and Stop; taken the savepoints
	// taken, by path.
	savepoints []SavepointCall
	taken      map[string]shape
	// nextTrigger numbers the savepoint triggers.
	nextTrigger int
	fail        error
	// observed are the jobs' failures and log lines (observe.go), by id.
	observed map[string]*observed
	// modules are the pushed modules by digest, pushes the digest of
	// every push (modules.go).
	modules map[string]fakeModule
	pushes  []string
}

// fakeJob is a job and the states it will go through on later Job calls.
type fakeJob struct {
	status api.JobStatus
	// spec is the job as submitted, at its current parallelism.
	spec   *jobspec.Job
	script []step
	ckpts  []api.CheckpointStatus // newest first
	states map[string]*fakeState
	// queryErrs are what the next QueryState calls return (FailQueries).
	queryErrs []error
	// rescaleErrs are what the next Rescale calls return (FailRescales).
	rescaleErrs []error
	// rescaling is whether a rescale is under way.
	rescaling bool
	// savepointErrs are what the next Savepoint or Stop calls return
	// (FailSavepoints), savepointScript the savepoints they return
	// (ScriptSavepoints); lastSavepoint is the ID of the latest one.
	savepointErrs   []error
	savepointScript []api.SavepointTrigger
	lastSavepoint   int64
	// triggers are the savepoints of Savepoint and Stop, by trigger id.
	triggers map[string]*api.SavepointTrigger
}

// step is one state a job goes through on a later Job call: a scripted
// event, or a step of a rescale (rescale.go).
type step struct {
	event api.Event
	// rescale marks a step of a rescale. deploy, if not nil, is the spec
	// of the attempt that the step deploys; done ends the rescale.
	rescale bool
	deploy  *jobspec.Job
	done    bool
}

// NewFake returns a Fake without jobs or task managers.
func NewFake() *Fake {
	return &Fake{now: Start}
}

var _ api.Service = (*Fake)(nil)

// Submit parses the spec with jobspec and checks that the uploaded modules
// are exactly the ones the spec declares by path, that those it names by
// digest were pushed (modules.go), and that FromSavepoint is a
// file:// or s3:// URL whose savepoint, if the Fake took it, fits the job
// (checkRestore); every error wraps api.ErrBadRequest. The job gets the id
// job-N for the N-th submission.
func (f *Fake) Submit(_ context.Context, s api.Submission) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failure(); err != nil {
		return "", err
	}
	job, err := check(s)
	if err != nil {
		return "", fmt.Errorf("%w: %v", api.ErrBadRequest, err)
	}
	if err := f.checkRestore(s, job); err != nil {
		return "", err
	}
	if err := f.checkRefs(job); err != nil {
		return "", err
	}
	f.subs = append(f.subs, s)
	f.now = f.now.Add(time.Second)
	id := fmt.Sprintf("job-%d", len(f.subs))
	f.jobs = append(f.jobs, &fakeJob{status: running(id, job, f.now), spec: job})
	return id, nil
}

// check validates a submission as a scheduler would, without running it.
func check(s api.Submission) (*jobspec.Job, error) {
	job, err := jobspec.Parse(s.Spec, "", s.Params)
	if err != nil {
		return nil, err
	}
	if s.Parallelism != 0 {
		if err := job.WithParallelism(s.Parallelism); err != nil {
			return nil, err
		}
	}
	if s.CheckpointInterval != 0 {
		if err := job.WithCheckpointInterval(s.CheckpointInterval); err != nil {
			return nil, err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Digests)) {
		if _, ok := job.Modules[name]; !ok || job.ModuleRefs[name] != (jobspec.ModuleRef{}) {
			return nil, fmt.Errorf("a digest was sent for module %q, which the spec does not name by path", name)
		}
		if job.ModuleRefs == nil {
			job.ModuleRefs = map[string]jobspec.ModuleRef{}
		}
		job.ModuleRefs[name] = jobspec.ModuleRef{Digest: s.Digests[name]}
	}
	for _, name := range slices.Sorted(maps.Keys(job.Modules)) {
		_, uploaded := s.Modules[name]
		_, isRef := job.ModuleRefs[name]
		switch {
		case isRef && uploaded:
			return nil, fmt.Errorf("module %q is named by digest and was uploaded too", name)
		case !isRef && !uploaded:
			return nil, fmt.Errorf("module %q was not uploaded", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Modules)) {
		if _, ok := job.Modules[name]; !ok {
			return nil, fmt.Errorf("module %q is not declared in the spec", name)
		}
	}
	return job, nil
}

// running returns the status of a job that has just started.
func running(id string, job *jobspec.Job, now time.Time) api.JobStatus {
	started := now
	return api.JobStatus{
		ID: id, Name: job.Name, State: api.JobRunning, Attempt: 1, Parallelism: job.Parallelism,
		SubmittedAt: now, StartedAt: &started, Vertices: vertices(job),
		History: []api.Event{{Time: now, State: api.JobRunning}},
	}
}

// vertices returns one vertex per stage of job.
func vertices(job *jobspec.Job) []api.VertexStatus {
	var vs []api.VertexStatus
	for i, s := range job.Sources {
		vs = append(vs, vertex(len(vs), s.UID, job.SourceParallelism(i)))
	}
	for i, op := range job.Operators {
		vs = append(vs, vertex(len(vs), op.UID, job.OperatorParallelism(i)))
	}
	for i, s := range job.Sinks {
		vs = append(vs, vertex(len(vs), s.UID, job.SinkParallelism(i)))
	}
	return vs
}

func vertex(stage int, name string, parallelism int) api.VertexStatus {
	v := api.VertexStatus{Stage: stage, Name: name, Parallelism: parallelism}
	for i := range parallelism {
		v.Subtasks = append(v.Subtasks, api.SubtaskStatus{Subtask: i, State: api.TaskRunning, TaskManager: "tm-1"})
	}
	return v
}

// Jobs lists the jobs, newest first, without vertices and history.
func (f *Fake) Jobs(context.Context) ([]api.JobStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failure(); err != nil {
		return nil, err
	}
	jobs := make([]api.JobStatus, 0, len(f.jobs))
	for _, j := range slices.Backward(f.jobs) {
		s := j.status
		s.Vertices, s.History = nil, nil
		jobs = append(jobs, s)
	}
	return jobs, nil
}

// Job returns a job, after moving it to the next state of its script if it
// has one.
func (f *Fake) Job(_ context.Context, id string) (api.JobStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, err := f.find(id)
	if err != nil {
		return api.JobStatus{}, err
	}
	if len(j.script) > 0 {
		st := j.script[0]
		j.script = j.script[1:]
		f.take(j, st)
	}
	return clone(j.status), nil
}

// Cancel cancels a job that has not ended.
func (f *Fake) Cancel(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, err := f.find(id)
	if err != nil {
		return err
	}
	if api.Terminal(j.status.State) {
		return fmt.Errorf("%w: job %s has already ended (%s)", api.ErrConflict, id, j.status.State)
	}
	f.setState(j, api.JobCanceled, "canceled by a user")
	return nil
}

// Checkpoints returns the checkpoints that AddCheckpoint gave job id, newest
// first; a job without any has an empty, non-nil list.
func (f *Fake) Checkpoints(_ context.Context, id string) ([]api.CheckpointStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, err := f.find(id)
	if err != nil {
		return nil, err
	}
	cps := make([]api.CheckpointStatus, len(j.ckpts))
	for i, cp := range j.ckpts {
		cps[i] = cloneCheckpoint(cp)
	}
	return cps, nil
}

// AddCheckpoint records cp as the newest checkpoint of job id, as the
// scheduler would when it triggers one; add a job's checkpoints oldest
// first. A later checkpoint with the same ID replaces the earlier one in
// place, as the scheduler updates an IN_PROGRESS checkpoint when it ends. It
// panics for an unknown id.
func (f *Fake) AddCheckpoint(id string, cp api.CheckpointStatus) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, err := f.lookup(id)
	if err != nil {
		panic(err)
	}
	cp = cloneCheckpoint(cp)
	for i := range j.ckpts {
		if j.ckpts[i].ID == cp.ID {
			j.ckpts[i] = cp
			return
		}
	}
	j.ckpts = slices.Insert(j.ckpts, 0, cp)
}

// TaskManagers lists the task managers that AddTaskManager added.
func (f *Fake) TaskManagers(context.Context) ([]api.TaskManagerStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failure(); err != nil {
		return nil, err
	}
	return slices.Clone(f.tms), nil
}

// AddTaskManager registers a task manager.
func (f *Fake) AddTaskManager(tm api.TaskManagerStatus) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tms = append(f.tms, tm)
}

// SetState moves job id to state with message, as the scheduler would. It
// panics for an unknown id: that is a broken test.
func (f *Fake) SetState(id, state, message string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, err := f.find(id)
	if err != nil {
		panic(err)
	}
	f.setState(j, state, message)
}

// Script makes each of the next len(steps) calls of Job(id) first move the
// job to the state and message of the next step; the fake's clock stamps the
// step, not its Time. The steps of a later Rescale come after these. It
// panics for an unknown id.
func (f *Fake) Script(id string, steps ...api.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, err := f.find(id)
	if err != nil {
		panic(err)
	}
	for _, e := range steps {
		j.script = append(j.script, step{event: e})
	}
}

// FailNext makes the next call of any Service method return err.
func (f *Fake) FailNext(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail = err
}

// Submissions returns every accepted submission, oldest first.
func (f *Fake) Submissions() []api.Submission {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.subs)
}

// failure returns and clears the error that FailNext set. f.mu is held.
func (f *Fake) failure() error {
	err := f.fail
	f.fail = nil
	return err
}

// find returns job id, or the FailNext error, or an error wrapping
// api.ErrNotFound. f.mu is held.
func (f *Fake) find(id string) (*fakeJob, error) {
	if err := f.failure(); err != nil {
		return nil, err
	}
	return f.lookup(id)
}

// lookup returns job id or an error wrapping api.ErrNotFound, leaving the
// FailNext error for the next Service call. f.mu is held.
func (f *Fake) lookup(id string) (*fakeJob, error) {
	for _, j := range f.jobs {
		if j.status.ID == id {
			return j, nil
		}
	}
	return nil, fmt.Errorf("%w: no job %q", api.ErrNotFound, id)
}

// setState moves j to state, and its subtasks too if state is terminal; a
// job that ends drops the rest of a rescale. f.mu is held.
func (f *Fake) setState(j *fakeJob, state, message string) {
	s := &j.status
	s.State, s.Message = state, message
	s.History = append(s.History, api.Event{Time: f.now, State: state, Message: message})
	if !api.Terminal(state) {
		return
	}
	j.rescaling = false
	j.script = slices.DeleteFunc(j.script, func(st step) bool { return st.rescale })
	ended := f.now
	s.EndedAt = &ended
	for _, v := range s.Vertices {
		for i := range v.Subtasks {
			v.Subtasks[i].State = state
		}
	}
}

// clone copies s deeply enough that the caller cannot change the Fake.
func clone(s api.JobStatus) api.JobStatus {
	s.History = slices.Clone(s.History)
	s.Vertices = slices.Clone(s.Vertices)
	for i := range s.Vertices {
		s.Vertices[i].Subtasks = slices.Clone(s.Vertices[i].Subtasks)
	}
	return s
}

// cloneCheckpoint copies cp so that it shares nothing with the original.
func cloneCheckpoint(cp api.CheckpointStatus) api.CheckpointStatus {
	cp.Subtasks = slices.Clone(cp.Subtasks)
	if cp.CompletedAt != nil {
		t := *cp.CompletedAt
		cp.CompletedAt = &t
	}
	return cp
}
