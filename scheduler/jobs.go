package scheduler

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	_ "github.com/floe-stream/floe/host/connector/builtin" // the connectors that specs name
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/artifact"
	"github.com/floe-stream/floe/scheduler/internal/journal"
	"github.com/floe-stream/floe/scheduler/internal/lifecycle"
)

// Submit implements api.Service. It checks the submission, stores its
// modules and opens its checkpoint storage, then journals the job: its
// command carries the spec, the overrides and where things are, and every
// scheduler plans it from that (planSubmit).
func (s *Server) Submit(ctx context.Context, sub api.Submission) (string, error) {
	if !s.isLeading() {
		return "", errNotLeader
	}
	spec, err := jobspec.Parse(sub.Spec, "/", sub.Params)
	if err != nil {
		return "", fmt.Errorf("%w: %v", api.ErrBadRequest, err)
	}
	id, err := s.submit(ctx, sub, spec)
	// NB: what fails after parsing (a checkpoint store URL built from a
	// parameter, say) may quote a secret parameter.
	return id, spec.RedactError(err)
}

// submit is Submit once the spec is parsed.
func (s *Server) submit(ctx context.Context, sub api.Submission, spec *jobspec.Job) (string, error) {
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
	if err := s.checkCapacity(p, sub.WaitForSlots); err != nil {
		return "", err
	}
	if err := s.checkPaths(sub, spec); err != nil {
		return "", err
	}
	if err := withDigests(spec, sub.Digests); err != nil {
		return "", err
	}
	digests, fresh, err := s.storeModules(ctx, spec, sub.Modules)
	if err != nil {
		return "", err
	}
	id := newJobID()
	c := journal.Submit{At: s.now(), Job: id, Spec: sub.Spec, Params: maps.Clone(sub.Params), Parallelism: sub.Parallelism,
		CheckpointInterval: sub.CheckpointInterval, Digests: digests}
	store, err := s.openCheckpoints(ctx, &c, p, sub.FromSavepoint != "")
	if err != nil {
		return "", err
	}
	if sub.FromSavepoint != "" {
		md, err := s.loadSavepoint(ctx, strings.TrimSuffix(sub.FromSavepoint, "/"), p, sub.AllowNonRestoredState)
		if err != nil {
			return "", err
		}
		c.Restore, c.RestoreStore = md, md.Store
	}
	if err := s.journalModules(ctx, sub.Modules, digests, fresh); err != nil {
		return "", err
	}
	if store != nil {
		s.mu.Lock()
		s.stores[id] = store
		s.mu.Unlock()
	}
	r, err := s.proposeSubmit(ctx, c, spec)
	if err == nil {
		err = r.Err
	}
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	slots := s.machine().Job(id).Slots
	s.mu.Unlock()
	s.log.Info("job submitted", "job", id, "name", spec.Name, "slots", slots)
	s.wake()
	return id, nil
}

// checkCapacity refuses a job that needs more slots than the live task
// managers have in all, used or not: it would wait for task managers that
// may never come. waitForSlots accepts it (its status says it waits), and so
// does a cluster with no task manager yet, which is still starting.
func (s *Server) checkCapacity(p *plan.Plan, waitForSlots bool) error {
	need := lifecycle.NeededSlots(p)
	s.mu.Lock()
	have, tms := s.machine().Capacity(s.now())
	s.mu.Unlock()
	if waitForSlots || tms == 0 || need <= have {
		return nil
	}
	return fmt.Errorf("%w: the job needs %d slots (one per subtask of its widest stage) and the cluster's %d task manager(s) have %d in all; "+
		"lower its parallelism, add task managers, or submit with --wait-for-slots to wait for them", api.ErrConflict, need, tms, have)
}

// withDigests makes the modules of a spec that a submission names by digest
// instead of uploading them references, as if the spec named them so.
func withDigests(spec *jobspec.Job, digests map[string]string) error {
	for _, name := range slices.Sorted(maps.Keys(digests)) {
		_, declared := spec.Modules[name]
		_, isRef := spec.ModuleRefs[name]
		if !declared || isRef {
			return fmt.Errorf("%w: a digest was sent for module %q, which the spec does not name by path", api.ErrBadRequest, name)
		}
		if spec.ModuleRefs == nil {
			spec.ModuleRefs = map[string]jobspec.ModuleRef{}
		}
		spec.ModuleRefs[name] = jobspec.ModuleRef{Digest: digests[name]}
	}
	return nil
}

// storeModules checks the modules of a submission: the spec's references
// name modules the scheduler has, the upload holds the others, each valid
// for this host, and the functions the spec calls are in them. It stores
// the uploaded ones by digest and returns every module's digest, and the
// info of the uploaded modules the log does not know yet.
func (s *Server) storeModules(ctx context.Context, spec *jobspec.Job, mods map[string][]byte) (map[string]string, map[string]journal.ModuleInfo, error) {
	if err := checkUploads(spec, mods); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", api.ErrBadRequest, err)
	}
	digests, fresh := map[string]string{}, map[string]journal.ModuleInfo{}
	tables := map[string]map[string]jobspec.FunctionKind{}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(spec.Modules)) {
		var info journal.ModuleInfo
		var err error
		if ref, ok := spec.ModuleRefs[name]; ok {
			digests[name] = ref.Digest
			info, err = s.referenced(ctx, name, ref)
		} else {
			digests[name] = artifact.Digest(mods[name])
			var known bool
			if info, known, err = s.validate(ctx, name, digests[name], mods[name]); err == nil && !known {
				info.Name = name
				fresh[name] = info
			}
		}
		if err != nil {
			errs = append(errs, err)
		} else if t := kinds(info); t != nil {
			tables[name] = t
		}
	}
	if len(errs) > 0 {
		return nil, nil, fmt.Errorf("%w: %v", api.ErrBadRequest, errors.Join(errs...))
	}
	if err := spec.CheckFunctions("", tables); err != nil {
		// NB: %w keeps the FieldErrors, which floe sql points back at the
		// script's CREATE FUNCTION.
		return nil, nil, fmt.Errorf("%w: %w", api.ErrBadRequest, err)
	}
	for _, wasm := range mods {
		if _, err := s.artifacts.Put(wasm); err != nil {
			return nil, nil, err
		}
	}
	return digests, fresh, nil
}

// functions compiles a module, which checks it, and returns the functions
// it registers with their kinds, and whether its SDK lists them at all.
func (s *Server) functions(ctx context.Context, name string, wasm []byte) (map[string]jobspec.FunctionKind, bool, error) {
	m, err := s.engine.Compile(ctx, name, wasm)
	if err != nil {
		return nil, false, err
	}
	defer m.Close(ctx)
	fns, ok, err := m.Functions(ctx)
	if err != nil || !ok {
		return nil, false, err
	}
	table := make(map[string]jobspec.FunctionKind, len(fns))
	for f, kind := range fns {
		table[f] = jobspec.FunctionKind(kind)
	}
	return table, true, nil
}

// journalModules replicates the uploaded modules of a submission that the
// log does not hold yet, or holds without their info, before the job that
// needs them.
func (s *Server) journalModules(ctx context.Context, mods map[string][]byte, digests map[string]string, fresh map[string]journal.ModuleInfo) error {
	for _, name := range slices.Sorted(maps.Keys(mods)) {
		d := digests[name]
		s.mu.Lock()
		_, ok := s.fsm.Modules()[d]
		s.mu.Unlock()
		info, isFresh := fresh[name]
		if ok && !isFresh {
			continue
		}
		c := journal.Module{At: s.now(), Digest: d, Wasm: mods[name]}
		if isFresh {
			c.Info = &info
		}
		if _, err := s.propose(ctx, c); err != nil {
			return fmt.Errorf("replicating module %q: %w", name, err)
		}
	}
	return nil
}

func newJobID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Jobs implements api.Service.
func (s *Server) Jobs(ctx context.Context) ([]api.JobStatus, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	jobs := s.machine().Jobs()
	out := make([]api.JobStatus, 0, len(jobs))
	for i := len(jobs) - 1; i >= 0; i-- {
		st := s.status(jobs[i])
		st.Vertices, st.History, st.HistoryDropped = nil, nil, 0
		out = append(out, st)
	}
	return out, nil
}

// Job implements api.Service.
func (s *Server) Job(ctx context.Context, id string) (api.JobStatus, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.machine().Job(id)
	if j == nil {
		return api.JobStatus{}, fmt.Errorf("%w: no job %q", api.ErrNotFound, id)
	}
	return s.status(j), nil
}

// status renders a job, with the values of its secret parameters hidden in
// every message: a task's failure can quote one, in a path built from it say.
// The caller holds s.mu.
func (s *Server) status(j *lifecycle.Job) api.JobStatus {
	redact := j.Plan.Job.Redact
	st := api.JobStatus{
		ID: j.ID, Name: j.Plan.Job.Name, State: j.State, Message: redact(j.Message), Attempt: j.Attempt,
		Parallelism: j.Plan.Job.Parallelism, SubmittedAt: j.Submitted, History: slices.Clone(j.History),
		HistoryDropped: j.HistoryDropped,
	}
	for i := range st.History {
		st.History[i].Message = redact(st.History[i].Message)
	}
	if !j.Started.IsZero() {
		t := j.Started
		st.StartedAt = &t
	}
	if !j.Ended.IsZero() {
		t := j.Ended
		st.EndedAt = &t
	}
	for si, stage := range j.Plan.Stages {
		v := api.VertexStatus{Stage: si, Name: stage.Name, Parallelism: stage.Parallelism}
		if len(stage.Outputs) == 1 {
			v.Output = stage.Outputs[0].Partitioning.String()
		}
		for _, e := range stage.Inputs {
			v.Inputs = append(v.Inputs, api.VertexInput{Stage: e.From, Partitioning: e.Partitioning.String()})
		}
		for sub := 0; sub < stage.Parallelism; sub++ {
			ss := api.SubtaskStatus{Subtask: sub, State: api.TaskScheduled}
			// NB: during a rescale the plan has the new parallelism before
			// the new tasks exist.
			if si < len(j.Tasks) && sub < len(j.Tasks[si]) {
				t := j.Tasks[si][sub]
				ss = api.SubtaskStatus{Subtask: sub, State: t.State, TaskManager: t.TaskManager, Attempt: j.TaskAttempt(si, sub), RecordsIn: t.RecordsIn,
					RecordsOut: t.RecordsOut, BackPressure: t.BackPressure, Error: redact(t.Err)}
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
	r, err := s.propose(ctx, journal.Cancel{At: s.now(), Job: id})
	if err != nil {
		return err
	}
	return r.Err
}
