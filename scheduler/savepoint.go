package scheduler

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"github.com/floe-stream/floe/internal/ckmeta"
	"github.com/floe-stream/floe/internal/plan"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/lifecycle"
	"github.com/floe-stream/floe/storage/ckstore"
)

// savepointTimeout bounds how long a savepoint may take.
const savepointTimeout = 10 * time.Minute

// Savepoint implements api.Service.
func (s *Server) Savepoint(ctx context.Context, id, dir string) (api.Savepoint, error) {
	return s.savepoint(ctx, id, dir, false)
}

// Stop implements api.Service.
func (s *Server) Stop(ctx context.Context, id, dir string) (api.Savepoint, error) {
	return s.savepoint(ctx, id, dir, true)
}

// savepoint takes a checkpoint now, waits for it and copies it, with every
// file it refers to, into a self-contained savepoint. With stop, the job
// then stops.
func (s *Server) savepoint(ctx context.Context, id, dir string, stop bool) (api.Savepoint, error) {
	s.mu.Lock()
	ckpt, acts, err := s.m.Savepoint(s.now(), id)
	if err != nil {
		s.mu.Unlock()
		return api.Savepoint{}, err
	}
	j := s.jobs[id]
	if dir == "" {
		dir = strings.TrimSuffix(j.url, "/") + "/savepoints"
	}
	done := make(chan *ckmeta.Metadata, 1)
	s.waiters[waiterKey{job: id, id: ckpt}] = done
	s.exec(acts)
	src := j.store
	s.mu.Unlock()

	ctx, cancel := context.WithTimeout(ctx, savepointTimeout)
	defer cancel()
	var md *ckmeta.Metadata
	select {
	case md = <-done:
	case <-ctx.Done():
		return api.Savepoint{}, fmt.Errorf("savepoint of job %s: %w", id, ctx.Err())
	}
	if md == nil {
		return api.Savepoint{}, fmt.Errorf("%w: the checkpoint of the savepoint failed; see the job's checkpoints", api.ErrConflict)
	}
	defer s.unpin(id, md.ID)
	sp, err := s.copySavepoint(ctx, src, dir, md)
	if err != nil {
		return api.Savepoint{}, err
	}
	s.log.Info("savepoint taken", "job", id, "path", sp.Path)
	if stop {
		s.apply(func(now time.Time) []lifecycle.Action { return s.m.StopWithSavepoint(now, id, sp.Path) })
	}
	return sp, nil
}

// unpin lets retention delete a checkpoint copied into a savepoint.
func (s *Server) unpin(job string, id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m.Unpin(job, id)
}

// waiterKey names a checkpoint a savepoint waits for.
type waiterKey struct {
	job string
	id  int64
}

// copySavepoint copies a completed checkpoint into dir as a savepoint: its
// snapshot files under state/, and its metadata, with paths relative to
// the savepoint, written last.
func (s *Server) copySavepoint(ctx context.Context, src ckstore.Store, dir string, md *ckmeta.Metadata) (api.Savepoint, error) {
	dst, err := s.cfg.OpenStore(ctx, dir)
	if err != nil {
		return api.Savepoint{}, fmt.Errorf("%w: savepoint directory: %v", api.ErrBadRequest, err)
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
					return api.Savepoint{}, fmt.Errorf("savepoint: copying %s: %w", f.Path, err)
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
		return api.Savepoint{}, fmt.Errorf("savepoint: writing metadata: %w", err)
	}
	return api.Savepoint{ID: md.ID, Path: strings.TrimSuffix(dst.String(), "/") + "/" + name}, nil
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
	return remap(&md, p, url, allowDropped)
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

// startFromSavepoint makes a submitted job restore a savepoint on its first
// attempt. A job without checkpoints of its own still restores it (with
// checkpoints that are never triggered).
func (s *Server) startFromSavepoint(ctx context.Context, j *job, ls *lifecycle.Submission, sub api.Submission) error {
	if ls.Checkpoints == nil {
		c, err := s.cfg.OpenStore(ctx, s.cfg.CheckpointStorage)
		if err != nil {
			return err
		}
		j.url, j.store = s.cfg.CheckpointStorage, c
		ls.Checkpoints = &lifecycle.Checkpointing{Retain: 1, Store: c.String()}
	}
	md, err := s.loadSavepoint(ctx, strings.TrimSuffix(sub.FromSavepoint, "/"), ls.Plan, sub.AllowNonRestoredState)
	if err != nil {
		return err
	}
	ls.Restore = md
	return nil
}
