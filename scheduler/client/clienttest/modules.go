package clienttest

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/scheduler/api"
)

// This file makes the Fake an api.ModuleService: it stores pushed modules
// by the SHA-256 of their bytes without compiling them (they list no
// functions), counts the pushes (Pushes), and lets a spec name a pushed
// module by digest instead of uploading it.

var _ api.ModuleService = (*Fake)(nil)

// fakeModule is a pushed module.
type fakeModule struct {
	name string
	size int64
}

// PushModule stores a module by digest; an empty one is refused with
// api.ErrBadRequest, as a scheduler refuses invalid Wasm.
func (f *Fake) PushModule(_ context.Context, name string, wasm []byte) (api.ModuleInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failure(); err != nil {
		return api.ModuleInfo{}, err
	}
	if len(wasm) == 0 {
		return api.ModuleInfo{}, fmt.Errorf("%w: an empty module", api.ErrBadRequest)
	}
	sum := sha256.Sum256(wasm)
	d := hex.EncodeToString(sum[:])
	if f.modules == nil {
		f.modules = map[string]fakeModule{}
	}
	f.modules[d] = fakeModule{name: cmp.Or(name, f.modules[d].name), size: int64(len(wasm))}
	f.pushes = append(f.pushes, d)
	return f.moduleInfo(d), nil
}

// Pushes returns the digests of every PushModule call, in order.
func (f *Fake) Pushes() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.pushes)
}

// Modules lists the pushed modules by name and digest.
func (f *Fake) Modules(context.Context) ([]api.ModuleInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failure(); err != nil {
		return nil, err
	}
	out := []api.ModuleInfo{}
	for d := range f.modules {
		out = append(out, f.moduleInfo(d))
	}
	slices.SortFunc(out, func(a, b api.ModuleInfo) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Digest, b.Digest))
	})
	return out, nil
}

// Module returns a pushed module: api.ErrBadRequest for a malformed digest,
// api.ErrNotFound for one never pushed.
func (f *Fake) Module(_ context.Context, digest string) (api.ModuleInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, err := f.pushed(digest)
	if err != nil {
		return api.ModuleInfo{}, err
	}
	return f.moduleInfo(d), nil
}

// DeleteModule deletes a pushed module, refused with api.ErrConflict while
// a job that has not ended names it.
func (f *Fake) DeleteModule(_ context.Context, digest string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, err := f.pushed(digest)
	if err != nil {
		return err
	}
	if users := f.moduleUsers(d); len(users) > 0 {
		return fmt.Errorf("%w: module sha256:%s is run by job(s) %s", api.ErrConflict, d, strings.Join(users, ", "))
	}
	delete(f.modules, d)
	return nil
}

// pushed returns the digest of a pushed module, or the FailNext error, or
// an error as Module describes. f.mu is held.
func (f *Fake) pushed(digest string) (string, error) {
	if err := f.failure(); err != nil {
		return "", err
	}
	d := strings.TrimPrefix(digest, "sha256:")
	if !jobspec.IsDigest(d) {
		return "", fmt.Errorf("%w: %q is not a module digest", api.ErrBadRequest, digest)
	}
	if _, ok := f.modules[d]; !ok {
		return "", fmt.Errorf("%w: no module sha256:%s", api.ErrNotFound, d)
	}
	return d, nil
}

// moduleInfo renders pushed module d. f.mu is held.
func (f *Fake) moduleInfo(d string) api.ModuleInfo {
	m := f.modules[d]
	return api.ModuleInfo{Digest: d, Name: m.name, Size: m.size, UsedBy: f.moduleUsers(d)}
}

// moduleUsers returns the ids of the jobs that name module d by digest and
// have not ended. f.mu is held.
func (f *Fake) moduleUsers(d string) []string {
	var ids []string
	for _, j := range f.jobs {
		if api.Terminal(j.status.State) {
			continue
		}
		for _, ref := range j.spec.ModuleRefs {
			if ref.Digest == d {
				ids = append(ids, j.status.ID)
				break
			}
		}
	}
	return ids
}

// checkRefs checks that every module a spec names by digest was pushed.
// f.mu is held.
func (f *Fake) checkRefs(job *jobspec.Job) error {
	for _, name := range slices.Sorted(maps.Keys(job.ModuleRefs)) {
		ref := job.ModuleRefs[name]
		if _, ok := f.modules[ref.Digest]; !ok {
			return fmt.Errorf("%w: module %q: the scheduler has no module sha256:%s", api.ErrBadRequest, name, ref.Digest)
		}
	}
	return nil
}
