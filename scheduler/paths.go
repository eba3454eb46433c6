package scheduler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/floe-stream/floe/internal/confine"
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/journal"
)

// This file keeps jobs to the local paths the scheduler allows
// (Config.AllowedPaths, internal/confine) and to one running job per sink
// directory. Task managers check the paths again, against their own roots,
// before they open anything (host/taskmanager).

// pathRules are the server's rules on the paths jobs touch.
type pathRules struct {
	// roots are Config.AllowedPaths, resolved.
	roots *confine.Roots
	// mu is held from the check that no other job writes a submission's
	// sink directories to the journaling of the submission, so that two
	// submissions of one directory cannot both pass.
	mu sync.Mutex
}

// checkPaths refuses, with ErrBadRequest naming each field and path, a
// submission whose job or savepoint lies outside the allowed paths, and a
// job whose sinks write one directory twice.
func (s *Server) checkPaths(sub api.Submission, spec *jobspec.Job) error {
	var errs []error
	if err := s.paths.roots.CheckJob(spec); err != nil {
		errs = append(errs, err)
	}
	if sub.FromSavepoint != "" && s.paths.roots.Restricted() {
		if _, err := s.paths.roots.CheckStore("fromSavepoint", sub.FromSavepoint); err != nil {
			errs = append(errs, err)
		}
	}
	seen := map[string]string{}
	written := confine.WrittenDirs(spec)
	for _, field := range slices.Sorted(maps.Keys(written)) {
		if other, ok := seen[written[field]]; ok {
			errs = append(errs, fmt.Errorf("%s: directory %q is written by %s too; one sink per directory", field, written[field], other))
		}
		seen[written[field]] = field
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", api.ErrBadRequest, errors.Join(errs...))
	}
	return nil
}

// proposeSubmit journals the submission c of job spec unless a job that
// has not ended writes one of the directories spec's sinks write: then it
// fails with ErrConflict naming that job.
func (s *Server) proposeSubmit(ctx context.Context, c journal.Submit, spec *jobspec.Job) (*journal.Result, error) {
	written := confine.WrittenDirs(spec)
	if len(written) == 0 {
		return s.propose(ctx, c)
	}
	s.paths.mu.Lock()
	defer s.paths.mu.Unlock()
	if err := s.sinkConflict(written); err != nil {
		return nil, err
	}
	return s.propose(ctx, c)
}

// sinkConflict returns an ErrConflict error when a job that has not ended
// writes one of the directories written, by field.
func (s *Server) sinkConflict(written map[string]string) error {
	type other struct {
		id, name, state string
		spec            *jobspec.Job
	}
	var others []other
	s.mu.Lock()
	for _, j := range s.machine().Jobs() {
		if !api.Terminal(j.State) {
			others = append(others, other{j.ID, j.Plan.Job.Name, j.State, j.Plan.Job})
		}
	}
	s.mu.Unlock()
	// NB: resolving touches the file system, so it runs without s.mu.
	for _, o := range others {
		theirs := confine.WrittenDirs(o.spec)
		for _, field := range slices.Sorted(maps.Keys(written)) {
			for _, dir := range theirs {
				if dir == written[field] {
					return fmt.Errorf("%w: %s: directory %q is the sink of job %s (%s), which is %s; one running job per sink directory",
						api.ErrConflict, field, dir, o.id, o.name, o.state)
				}
			}
		}
	}
	return nil
}
