package scheduler

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	_ "github.com/floe-stream/floe/host/connector/builtin" // the connectors that specs name
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
	"github.com/floe-stream/floe/scheduler/api"
)

// job is a submitted job and its current attempt.
type job struct {
	id       string
	spec     []byte
	params   map[string]string
	par      int
	digests  map[string]string
	plan     *plan.Plan
	slots    int
	strategy jobspec.RestartStrategy

	state     string
	message   string
	attempt   int
	restarts  int
	restartAt time.Time
	submitted time.Time
	started   time.Time
	ended     time.Time
	history   []api.Event
	// placement is the task manager of each slot of the current attempt.
	placement []string
	// tasks are the current attempt's subtasks, by stage and subtask.
	tasks [][]*taskInfo
	// ckpts is nil for a job without checkpoints.
	ckpts *checkpoints
	// finalSent tells that the final commit was sent to the attempt.
	finalSent bool
	// states are the keyed states its operators declared, by name.
	states map[string]declared
	// opPar overrides the parallelism of single operators by uid.
	opPar map[string]int
	// waiters wait for checkpoints to complete (savepoints).
	waiters []waiter
	// finishedSources are the source subtasks of the current attempt that
	// have read everything.
	finishedSources map[int]bool
	// rescale is the rescale under way, or nil.
	rescale *rescale
	// lastPlacement is the placement of the latest attempt, kept after the
	// job ends so its state stays queryable for the retention time.
	lastPlacement []string
}

// taskInfo is what the scheduler knows of one subtask.
type taskInfo struct {
	state        string
	tm           string
	recordsIn    int64
	recordsOut   int64
	backPressure float64
	err          string
}

// uses reports whether the current attempt has a slot on task manager tm.
func (j *job) uses(tm string) bool { return slices.Contains(j.placement, tm) }

// Submit implements api.Service.
func (s *Server) Submit(ctx context.Context, sub api.Submission) (string, error) {
	spec, err := jobspec.Parse(sub.Spec, "/", sub.Params)
	if err != nil {
		return "", fmt.Errorf("%w: %v", api.ErrBadRequest, err)
	}
	if sub.Parallelism != 0 {
		if err := spec.WithParallelism(sub.Parallelism); err != nil {
			return "", fmt.Errorf("%w: %v", api.ErrBadRequest, err)
		}
	}
	if sub.CheckpointInterval != 0 {
		if err := spec.WithCheckpointInterval(sub.CheckpointInterval); err != nil {
			return "", fmt.Errorf("%w: %v", api.ErrBadRequest, err)
		}
	}
	p, err := plan.Build(spec)
	if err != nil {
		return "", fmt.Errorf("%w: %v", api.ErrBadRequest, err)
	}
	digests, err := s.storeModules(ctx, spec, sub.Modules)
	if err != nil {
		return "", err
	}
	j := &job{
		id: newJobID(), spec: sub.Spec, params: maps.Clone(sub.Params), par: sub.Parallelism,
		digests: digests, plan: p, slots: maxParallelism(p), strategy: spec.RestartStrategy,
		submitted: s.now(),
	}
	if j.ckpts, err = s.openCheckpoints(ctx, j); err != nil {
		return "", err
	}
	if sub.FromSavepoint != "" {
		if err := s.startFromSavepoint(ctx, j, sub); err != nil {
			return "", err
		}
	}
	s.mu.Lock()
	s.jobs[j.id] = j
	s.order = append(s.order, j.id)
	s.setState(j, api.JobWaiting, "submitted")
	s.mu.Unlock()
	s.log.Info("job submitted", "job", j.id, "name", spec.Name, "slots", j.slots)
	s.wake()
	return j.id, nil
}

// storeModules checks that the upload holds exactly the spec's modules,
// each valid for this host, and stores them by digest.
func (s *Server) storeModules(ctx context.Context, spec *jobspec.Job, mods map[string][]byte) (map[string]string, error) {
	var errs []error
	for name := range spec.Modules {
		if _, ok := mods[name]; !ok {
			errs = append(errs, fmt.Errorf("module %q named by the spec was not uploaded", name))
		}
	}
	for name := range mods {
		if _, ok := spec.Modules[name]; !ok {
			errs = append(errs, fmt.Errorf("uploaded module %q is not declared in the spec's modules", name))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %v", api.ErrBadRequest, errors.Join(errs...))
	}
	digests := map[string]string{}
	for name, wasm := range mods {
		m, err := s.engine.Compile(ctx, name, wasm)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", api.ErrBadRequest, err)
		}
		m.Close(ctx)
		if digests[name], err = s.artifacts.Put(wasm); err != nil {
			return nil, err
		}
	}
	return digests, nil
}

func newJobID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func maxParallelism(p *plan.Plan) int {
	n := 0
	for _, st := range p.Stages {
		n = max(n, st.Parallelism)
	}
	return n
}

// setState moves a job to state and records it. The caller holds s.mu.
func (s *Server) setState(j *job, state, msg string) {
	j.state, j.message = state, msg
	now := s.now()
	j.history = append(j.history, api.Event{Time: now, State: state, Message: msg})
	if api.Terminal(state) {
		j.ended = now
	}
}

// task returns the scheduler's record of a subtask of a job's current
// attempt, or nil for an unknown or stale one. The caller holds s.mu.
func (s *Server) task(id *floev1.TaskID) *taskInfo {
	if id == nil {
		return nil
	}
	j, ok := s.jobs[id.JobId]
	if !ok || int(id.Attempt) != j.attempt || j.tasks == nil {
		return nil
	}
	if id.Stage < 0 || int(id.Stage) >= len(j.tasks) || id.Subtask < 0 || int(id.Subtask) >= len(j.tasks[id.Stage]) {
		return nil
	}
	return j.tasks[id.Stage][id.Subtask]
}

// Jobs implements api.Service.
func (s *Server) Jobs(ctx context.Context) ([]api.JobStatus, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]api.JobStatus, 0, len(s.order))
	for i := len(s.order) - 1; i >= 0; i-- {
		st := s.status(s.jobs[s.order[i]])
		st.Vertices, st.History = nil, nil
		out = append(out, st)
	}
	return out, nil
}

// Job implements api.Service.
func (s *Server) Job(ctx context.Context, id string) (api.JobStatus, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.jobs[id]
	if !ok {
		return api.JobStatus{}, fmt.Errorf("%w: no job %q", api.ErrNotFound, id)
	}
	return s.status(j), nil
}

// status renders a job. The caller holds s.mu.
func (s *Server) status(j *job) api.JobStatus {
	st := api.JobStatus{
		ID: j.id, Name: j.plan.Job.Name, State: j.state, Message: j.message, Attempt: j.attempt,
		Parallelism: j.plan.Job.Parallelism, SubmittedAt: j.submitted, History: slices.Clone(j.history),
	}
	if !j.started.IsZero() {
		t := j.started
		st.StartedAt = &t
	}
	if !j.ended.IsZero() {
		t := j.ended
		st.EndedAt = &t
	}
	for si, stage := range j.plan.Stages {
		v := api.VertexStatus{Stage: si, Name: stage.Name, Parallelism: stage.Parallelism}
		for sub := 0; sub < stage.Parallelism; sub++ {
			ss := api.SubtaskStatus{Subtask: sub, State: api.TaskScheduled}
			// NB: during a rescale the plan has the new parallelism before
			// the new tasks exist.
			if si < len(j.tasks) && sub < len(j.tasks[si]) {
				t := j.tasks[si][sub]
				ss = api.SubtaskStatus{Subtask: sub, State: t.state, TaskManager: t.tm, RecordsIn: t.recordsIn,
					RecordsOut: t.recordsOut, BackPressure: t.backPressure, Error: t.err}
			}
			v.RecordsIn += ss.RecordsIn
			v.RecordsOut += ss.RecordsOut
			v.BackPressure = max(v.BackPressure, ss.BackPressure)
			v.Subtasks = append(v.Subtasks, ss)
		}
		st.Vertices = append(st.Vertices, v)
	}
	return st
}

// Cancel implements api.Service.
func (s *Server) Cancel(ctx context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.jobs[id]
	if !ok {
		return fmt.Errorf("%w: no job %q", api.ErrNotFound, id)
	}
	if api.Terminal(j.state) {
		return fmt.Errorf("%w: job %s has already ended (%s)", api.ErrConflict, id, j.state)
	}
	s.stopCheckpoints(j, "job canceled")
	s.stopAttempt(j)
	s.setState(j, api.JobCanceled, "canceled by user")
	s.log.Info("job canceled", "job", id)
	return nil
}
