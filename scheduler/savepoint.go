package scheduler

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/floe-stream/floe/internal/ckmeta"
	"github.com/floe-stream/floe/internal/plan"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/journal"
	"github.com/floe-stream/floe/scheduler/internal/lifecycle"
	"github.com/floe-stream/floe/storage/ckstore"
)

// Savepoint implements api.Service.
func (s *Server) Savepoint(ctx context.Context, id, dir string) (api.SavepointTrigger, error) {
	return s.savepoint(ctx, id, dir, false)
}

// Stop implements api.Service.
func (s *Server) Stop(ctx context.Context, id, dir string) (api.SavepointTrigger, error) {
	return s.savepoint(ctx, id, dir, true)
}

// SavepointStatus implements api.Service.
func (s *Server) SavepointStatus(ctx context.Context, id, trigger string) (api.SavepointTrigger, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.machine().SavepointTrigger(id, trigger)
	if err != nil {
		return api.SavepointTrigger{}, err
	}
	if j := s.machine().Job(id); j != nil {
		t.Failure, t.Path, t.Dir = j.Plan.Job.Redact(t.Failure), j.Plan.Job.Redact(t.Path), j.Plan.Job.Redact(t.Dir)
	}
	return t, nil
}

// savepoint journals a savepoint's trigger, which takes a checkpoint now,
// and returns the trigger at once. The rest happens as the lifecycle's
// actions say: once the checkpoint completes, copySavepointOf copies it,
// with every file it refers to, into a self-contained savepoint and
// journals the outcome (and, with stop, the job stops).
func (s *Server) savepoint(ctx context.Context, id, dir string, stop bool) (api.SavepointTrigger, error) {
	if dir != "" && s.paths.roots.Restricted() {
		if _, err := s.paths.roots.CheckStore("dir", dir); err != nil {
			return api.SavepointTrigger{}, fmt.Errorf("%w: %w", api.ErrBadRequest, err)
		}
	}
	if dir == "" {
		s.mu.Lock()
		sub := s.fsm.Submitted(id)
		s.mu.Unlock()
		if sub == nil {
			return api.SavepointTrigger{}, fmt.Errorf("%w: no job %q", api.ErrNotFound, id)
		}
		dir = strings.TrimSuffix(sub.CheckpointURL, "/") + "/savepoints"
	}
	trigger, err := newTrigger()
	if err != nil {
		return api.SavepointTrigger{}, err
	}
	r, err := s.propose(ctx, journal.Savepoint{At: s.now(), Job: id, Trigger: trigger, Dir: dir, Stop: stop})
	if err == nil {
		err = r.Err
	}
	if err != nil {
		return api.SavepointTrigger{}, err
	}
	s.log.Info("savepoint triggered", "job", id, "trigger", trigger, "checkpoint", r.Savepoint, "stop", stop)
	return s.SavepointStatus(ctx, id, trigger)
}

// newTrigger returns a fresh random savepoint trigger id.
func newTrigger() (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("savepoint trigger id: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// copySavepointOf copies the checkpoint a savepoint waits for into its
// directory and journals how it went. It runs in a goroutine the server
// owns; a deposed leader's outcome is refused by the log, and the new
// leader has failed the savepoint already.
func (s *Server) copySavepointOf(a lifecycle.SavepointReady) {
	done := journal.SavepointDone{Job: a.Job, Trigger: a.Trigger, ID: a.ID}
	src, err := s.jobStore(s.ctx, a.Job)
	var sp savepointCopy
	if err == nil {
		sp, err = s.copySavepoint(s.ctx, src, a.Dir, a.Metadata)
	}
	if err != nil {
		done.Failure = err.Error()
		s.log.Warn("savepoint failed", "job", a.Job, "trigger", a.Trigger, "err", err)
	} else {
		done.Path = sp.Path
		s.log.Info("savepoint taken", "job", a.Job, "trigger", a.Trigger, "path", sp.Path)
	}
	done.At = s.now()
	s.event(done)
}

// savepointCopy is where copySavepoint put a savepoint.
type savepointCopy struct {
	ID   int64
	Path string
}

// copySavepoint copies a completed checkpoint into dir as a savepoint: its
// snapshot files under state/, and its metadata, with paths relative to
// the savepoint, written last.
func (s *Server) copySavepoint(ctx context.Context, src ckstore.Store, dir string, md *ckmeta.Metadata) (savepointCopy, error) {
	dst, err := s.cfg.OpenStore(ctx, dir)
	if err != nil {
		return savepointCopy{}, fmt.Errorf("%w: savepoint directory: %v", api.ErrBadRequest, err)
	}
	name := fmt.Sprintf("savepoint-%s-%d", md.JobID[:min(6, len(md.JobID))], md.ID)
	sp := *md
	sp.Savepoint = true
	sp.Subtasks = append([]ckmeta.SubtaskState(nil), md.Subtasks...)
	copied := map[string]string{}
	for i := range sp.Subtasks {
		st := &sp.Subtasks[i]
		files := append([]ckmeta.File(nil), st.Keyed...)
		for k, f := range files {
			to, ok := copied[f.Path]
			if !ok {
				to = path.Join("state", fmt.Sprintf("%d-%d-%d.snap", st.Stage, st.Subtask, k))
				if err := copyObject(ctx, src, f.Path, dst, path.Join(name, to)); err != nil {
					return savepointCopy{}, fmt.Errorf("savepoint: copying %s: %w", f.Path, err)
				}
				copied[f.Path] = to
			}
			files[k].Path = to
		}
		st.Keyed = files
	}
	b, err := ckmeta.Marshal(&sp)
	if err == nil {
		err = dst.Put(ctx, path.Join(name, "_metadata"), bytes.NewReader(b), int64(len(b)))
	}
	if err != nil {
		return savepointCopy{}, fmt.Errorf("savepoint: writing metadata: %w", err)
	}
	return savepointCopy{ID: md.ID, Path: strings.TrimSuffix(dst.String(), "/") + "/" + name}, nil
}

func copyObject(ctx context.Context, src ckstore.Store, from string, dst ckstore.Store, to string) error {
	size, err := src.Stat(ctx, from)
	if err != nil {
		return err
	}
	r, err := src.Get(ctx, from)
	if err != nil {
		return err
	}
	defer r.Close()
	return dst.Put(ctx, to, r, size)
}

// loadSavepoint reads a savepoint's metadata and maps its state onto the
// plan of the job that starts from it: stages are matched by their name
// (the uids of their steps). State of a stage the new job lacks is refused
// unless allowed.
func (s *Server) loadSavepoint(ctx context.Context, url string, p *plan.Plan, allowDropped bool) (*ckmeta.Metadata, error) {
	store, err := s.cfg.OpenStore(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("%w: savepoint %s: %v", api.ErrBadRequest, url, err)
	}
	rc, err := store.Get(ctx, "_metadata")
	if err != nil {
		return nil, fmt.Errorf("%w: savepoint %s: %v", api.ErrBadRequest, url, err)
	}
	b, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		return nil, fmt.Errorf("%w: savepoint %s: %v", api.ErrBadRequest, url, err)
	}
	var md ckmeta.Metadata
	if err := ckmeta.Unmarshal(b, &md); err != nil || md.Version != ckmeta.Version {
		return nil, fmt.Errorf("%w: savepoint %s: not a version %d savepoint (%v)", api.ErrBadRequest, url, ckmeta.Version, err)
	}
	if md.MaxParallelism != p.Job.MaxParallelism {
		return nil, fmt.Errorf("%w: savepoint %s has maxParallelism %d, the job %d: it is fixed for the life of the state",
			api.ErrBadRequest, url, md.MaxParallelism, p.Job.MaxParallelism)
	}
	root, err := restoreRoot(url, &md)
	if err != nil {
		return nil, err
	}
	return remap(&md, p, root, allowDropped)
}

// restoreRoot returns the URL a restored checkpoint's file paths are
// relative to. A savepoint's are relative to itself; a retained
// checkpoint's (…/JOB/chk-N) to the checkpoint storage of its job, two
// levels up, so it must be given where the job wrote it.
func restoreRoot(url string, md *ckmeta.Metadata) (string, error) {
	if md.Savepoint {
		return url, nil
	}
	dir := "/" + path.Dir(ckmeta.MetadataPath(md.JobID, md.ID))
	if !strings.HasSuffix(url, dir) {
		return "", fmt.Errorf("%w: %s is checkpoint %d of job %s, not a savepoint: give it at its place in the job's checkpoint storage, …%s",
			api.ErrBadRequest, url, md.ID, md.JobID, dir)
	}
	return strings.TrimSuffix(url, dir), nil
}

// remap renumbers a savepoint's stages to the plan's, by stage name.
func remap(md *ckmeta.Metadata, p *plan.Plan, url string, allowDropped bool) (*ckmeta.Metadata, error) {
	index := map[string]int{}
	for i, st := range p.Stages {
		index[st.Name] = i
	}
	out := *md
	out.Store = url
	out.Stages = make([]ckmeta.Stage, len(p.Stages))
	for i, st := range p.Stages {
		out.Stages[i] = ckmeta.Stage{Name: st.Name, Parallelism: st.Parallelism}
	}
	for oldIdx, st := range md.Stages {
		if _, ok := index[st.Name]; !ok && !allowDropped {
			return nil, fmt.Errorf("%w: savepoint %s has state for stage %q, which the job lacks (pass --allow-non-restored-state to drop it)",
				api.ErrBadRequest, url, st.Name)
		}
		if i, ok := index[st.Name]; ok {
			out.Stages[i].Parallelism = md.Stages[oldIdx].Parallelism
		}
	}
	out.Subtasks = nil
	for _, sub := range md.Subtasks {
		i, ok := index[md.Stages[sub.Stage].Name]
		if !ok {
			continue
		}
		sub.Stage = i
		out.Subtasks = append(out.Subtasks, sub)
	}
	return &out, nil
}
