package journal

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/floe-stream/floe/scheduler/api"
)

// ModuleInfo returns what is known of the module of digest d besides its
// bytes, and whether anything is: ok is false for a module the FSM does not
// hold and for one journaled without its info (Module.Info nil).
func (f *FSM) ModuleInfo(d string) (info ModuleInfo, ok bool) {
	info, ok = f.infos[d]
	return info, ok
}

// ModuleUsers returns the ids, sorted, of the jobs that run the module of
// digest d and have not ended.
func (f *FSM) ModuleUsers(d string) []string {
	var ids []string
	for _, id := range slices.Sorted(maps.Keys(f.submits)) {
		j := f.m.Job(id)
		if j == nil || api.Terminal(j.State) {
			continue
		}
		if slices.Contains(slices.Collect(maps.Values(f.submits[id].Digests)), d) {
			ids = append(ids, id)
		}
	}
	return ids
}

// checkDigests refuses a job whose modules the log does not hold: one
// deleted (DropModule) after the leader checked the submission and before
// the job was journaled.
func (f *FSM) checkDigests(c Submit) error {
	for _, name := range slices.Sorted(maps.Keys(c.Digests)) {
		if _, ok := f.modules[c.Digests[name]]; !ok {
			return fmt.Errorf("%w: module %q: the scheduler has no module sha256:%s (deleted meanwhile?)", api.ErrBadRequest, name, c.Digests[name])
		}
	}
	return nil
}

// dropModule applies DropModule.
func (f *FSM) dropModule(d string) error {
	if _, ok := f.modules[d]; !ok {
		return fmt.Errorf("%w: no module sha256:%s", api.ErrNotFound, d)
	}
	if users := f.ModuleUsers(d); len(users) > 0 {
		return fmt.Errorf("%w: module sha256:%s is run by job(s) %s, which have not ended; cancel them first",
			api.ErrConflict, d, strings.Join(users, ", "))
	}
	delete(f.modules, d)
	delete(f.infos, d)
	return nil
}
