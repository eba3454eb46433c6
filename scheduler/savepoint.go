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
	"github.com/floe-stream/floe/scheduler/internal/journal"
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
	if dir != "" && s.paths.roots.Restricted() {
		if _, err := s.paths.roots.CheckStore("dir", dir); err != nil {
			return api.Savepoint{}, fmt.Errorf("%w: %w", api.ErrBadRequest, err)
		}
	}
	s.mu.Lock()
	s.savepointing[id]++
	s.mu.Unlock()
	defer s.savepointDone(id)
	r, err := s.propose(ctx, journal.Savepoint{At: s.now(), Job: id})
	if err == nil {
		err = r.Err
	}
	if err != nil {
		return api.Savepoint{}, err
	}
	k := waiterKey{job: id, id: r.Savepoint}
	done := make(chan *ckmeta.Metadata, 1)
	s.mu.Lock()
	if md, ok := s.early[k]; ok {
		delete(s.early, k)
		done <- md
	} else {
		s.waiters[k] = done
	}
	url := s.fsm.Submitted(id).CheckpointURL
	s.mu.Unlock()
	if dir == "" {
		dir = strings.TrimSuffix(url, "/") + "/savepoints"
	}

	ctx, cancel := context.WithTimeout(ctx, savepointTimeout)
	defer cancel()
	var md *ckmeta.Metadata
	select {
	case md = <-done:
	case <-ctx.Done():
		s.mu.Lock()
		delete(s.waiters, k)
		s.mu.Unlock()
		return api.Savepoint{}, fmt.Errorf("savepoint of job %s: %w", id, ctx.Err())
	}
	if md == nil {
		return api.Savepoint{}, fmt.Errorf("%w: the checkpoint of the savepoint failed; see the job's checkpoints", api.ErrConflict)
	}
	defer s.unpin(id, md.ID)
	src, err := s.jobStore(ctx, id)
	if err != nil {
		return api.Savepoint{}, err
	}
	sp, err := s.copySavepoint(ctx, src, dir, md)
	if err != nil {
		return api.Savepoint{}, err
	}
	s.log.Info("savepoint taken", "job", id, "path", sp.Path)
	if stop {
		s.event(journal.StopWithSavepoint{At: s.now(), Job: id, Path: sp.Path})
	}
	return sp, nil
}

// savepointReady hands the outcome of a savepoint's checkpoint to the
// call that waits for it, or keeps it for a call that has not started
// waiting yet. The caller holds s.mu.
func (s *Server) savepointReady(a lifecycle.SavepointReady) {
	k := waiterKey{job: a.Job, id: a.ID}
	if done, ok := s.waiters[k]; ok {
		delete(s.waiters, k)
		done <- a.Metadata
	} else if s.savepointing[a.Job] > 0 {
		s.early[k] = a.Metadata
	}
}

// savepointDone ends a savepoint call of job id.
func (s *Server) savepointDone(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.savepointing[id]--; s.savepointing[id] > 0 {
		return
	}
	delete(s.savepointing, id)
	for k := range s.early {
		if k.job == id {
			delete(s.early, k)
		}
	}
}

// unpin lets retention delete a checkpoint copied into a savepoint.
func (s *Server) unpin(job string, id int64) {
	s.event(journal.Unpin{At: s.now(), Job: job, ID: id})
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
