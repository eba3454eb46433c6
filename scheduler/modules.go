package scheduler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/artifact"
	"github.com/floe-stream/floe/scheduler/internal/journal"
)

// This file keeps modules as artifacts of their own: pushed once, listed,
// deleted, and named by digest in specs. A module is validated (compiled,
// its function table read) once, by the leader that first stores it; its
// table is journaled with it (journal.ModuleInfo), so no scheduler compiles
// it again for a job that names it or uploads it again.

var _ api.ModuleService = (*Server)(nil)

// PushModule implements api.ModuleService.
func (s *Server) PushModule(ctx context.Context, name string, wasm []byte) (api.ModuleInfo, error) {
	if !s.isLeading() {
		return api.ModuleInfo{}, errNotLeader
	}
	if name != "" && (!jobspec.IsName(name) || len(name) > 64) {
		return api.ModuleInfo{}, fmt.Errorf("%w: module name %q must match [A-Za-z0-9._-]+ and be at most 64 characters", api.ErrBadRequest, name)
	}
	d := artifact.Digest(wasm)
	info, known, err := s.validate(ctx, cmp.Or(name, "sha256:"+d), d, wasm)
	if err != nil {
		return api.ModuleInfo{}, fmt.Errorf("%w: %v", api.ErrBadRequest, err)
	}
	if !known || name != "" && name != info.Name {
		info.Name = cmp.Or(name, info.Name)
		if err := s.journalModule(ctx, d, wasm, info); err != nil {
			return api.ModuleInfo{}, err
		}
	}
	return s.Module(ctx, d)
}

// Modules implements api.ModuleService.
func (s *Server) Modules(ctx context.Context) ([]api.ModuleInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]api.ModuleInfo, 0, len(s.fsm.Modules()))
	for d := range s.fsm.Modules() {
		out = append(out, s.moduleStatus(d))
	}
	slices.SortFunc(out, func(a, b api.ModuleInfo) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Digest, b.Digest))
	})
	return out, nil
}

// Module implements api.ModuleService.
func (s *Server) Module(ctx context.Context, digest string) (api.ModuleInfo, error) {
	d, err := parseDigest(digest)
	if err != nil {
		return api.ModuleInfo{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.fsm.Modules()[d]; !ok {
		return api.ModuleInfo{}, fmt.Errorf("%w: no module sha256:%s", api.ErrNotFound, d)
	}
	return s.moduleStatus(d), nil
}

// DeleteModule implements api.ModuleService.
func (s *Server) DeleteModule(ctx context.Context, digest string) error {
	d, err := parseDigest(digest)
	if err != nil {
		return err
	}
	r, err := s.propose(ctx, journal.DropModule{At: s.now(), Digest: d})
	if err != nil {
		return err
	}
	return r.Err
}

// parseDigest reads a module's digest, hex or sha256:hex.
func parseDigest(s string) (string, error) {
	d := strings.TrimPrefix(s, "sha256:")
	if !jobspec.IsDigest(d) {
		return "", fmt.Errorf("%w: %q is not a module digest: want 64 lower-case hex digits of a SHA-256, or sha256: and them", api.ErrBadRequest, s)
	}
	return d, nil
}

// moduleStatus renders the module of digest d, which the FSM holds. The
// caller holds s.mu.
func (s *Server) moduleStatus(d string) api.ModuleInfo {
	info, _ := s.fsm.ModuleInfo(d)
	st := api.ModuleInfo{Digest: d, Name: info.Name, Size: int64(len(s.fsm.Modules()[d])), UsedBy: s.fsm.ModuleUsers(d)}
	if info.Listed {
		st.Functions = maps.Clone(info.Functions)
		if st.Functions == nil {
			st.Functions = map[string]string{}
		}
	}
	return st
}

// validate returns the info of the module wasm of digest d: the journaled
// one when the log has it (known), or else what compiling the module reads,
// without a name; label names the module in errors.
func (s *Server) validate(ctx context.Context, label, d string, wasm []byte) (info journal.ModuleInfo, known bool, err error) {
	s.mu.Lock()
	info, known = s.fsm.ModuleInfo(d)
	s.mu.Unlock()
	if known {
		return info, true, nil
	}
	fns, listed, err := s.functions(ctx, label, wasm)
	if err != nil {
		return journal.ModuleInfo{}, false, err
	}
	info = journal.ModuleInfo{Listed: listed}
	if listed {
		info.Functions = make(map[string]string, len(fns))
		for f, kind := range fns {
			info.Functions[f] = string(kind)
		}
	}
	return info, false, nil
}

// referenced returns the info of the module a spec names by digest as
// module name: an error when the scheduler lacks it or the spec's name
// for it differs from its own.
func (s *Server) referenced(ctx context.Context, name string, ref jobspec.ModuleRef) (journal.ModuleInfo, error) {
	s.mu.Lock()
	wasm, has := s.fsm.Modules()[ref.Digest]
	s.mu.Unlock()
	if !has {
		return journal.ModuleInfo{}, fmt.Errorf("module %q: the scheduler has no module sha256:%s; push it first (floe module push)", name, ref.Digest)
	}
	info, _, err := s.validate(ctx, name, ref.Digest, wasm)
	switch {
	case err != nil:
		return journal.ModuleInfo{}, fmt.Errorf("module %q: %w", name, err)
	case ref.Name != "" && info.Name != "" && ref.Name != info.Name:
		return journal.ModuleInfo{}, fmt.Errorf("module %q: sha256:%s was pushed as %q, not %q", name, ref.Digest, info.Name, ref.Name)
	}
	return info, nil
}

// kinds returns a module's function table as jobspec.CheckFunctions takes
// it, or nil when it lists none.
func kinds(info journal.ModuleInfo) map[string]jobspec.FunctionKind {
	if !info.Listed {
		return nil
	}
	table := make(map[string]jobspec.FunctionKind, len(info.Functions))
	for f, kind := range info.Functions {
		table[f] = jobspec.FunctionKind(kind)
	}
	return table
}

// journalModule stores a module and replicates it with its info.
func (s *Server) journalModule(ctx context.Context, d string, wasm []byte, info journal.ModuleInfo) error {
	if _, err := s.artifacts.Put(wasm); err != nil {
		return err
	}
	_, err := s.propose(ctx, journal.Module{At: s.now(), Digest: d, Wasm: wasm, Info: &info})
	return err
}

// checkUploads checks that a submission uploads exactly the modules its
// spec names by path.
func checkUploads(spec *jobspec.Job, mods map[string][]byte) error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(spec.Modules)) {
		_, uploaded := mods[name]
		_, isRef := spec.ModuleRefs[name]
		switch {
		case isRef && uploaded:
			errs = append(errs, fmt.Errorf("module %q is named by digest in the spec (%s) and was uploaded too", name, spec.ModuleRefs[name]))
		case !isRef && !uploaded:
			errs = append(errs, fmt.Errorf("module %q named by the spec was not uploaded", name))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(mods)) {
		if _, ok := spec.Modules[name]; !ok {
			errs = append(errs, fmt.Errorf("uploaded module %q is not declared in the spec's modules", name))
		}
	}
	return errors.Join(errs...)
}
