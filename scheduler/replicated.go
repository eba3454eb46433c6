package scheduler

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/coordinator"
	"github.com/floe-stream/floe/scheduler/internal/journal"
	"github.com/floe-stream/floe/scheduler/internal/lifecycle"
	"github.com/floe-stream/floe/scheduler/internal/replog"
)

// This file is where the job lifecycle meets the replicated log: every
// event is proposed as a journal command, applied in log order by
// fsmAdapter under s.mu, and its actions are carried out only on the
// leader, once it has caught up with the log and fed the machine Lead.

// errNotLeader fails calls to a scheduler that does not lead.
var errNotLeader = fmt.Errorf("%w: this scheduler is not the leader", api.ErrUnavailable)

// openLog opens the replicated log in DataDir/raft and replays it into
// the server's FSM.
func (s *Server) openLog() error {
	dir := filepath.Join(s.cfg.DataDir, "raft")
	l, err := replog.Open(replog.Config{Dir: dir, Bind: s.cfg.RaftAddr, Peers: s.cfg.RaftPeers,
		ElectionTimeout: s.cfg.ElectionTimeout, TLS: s.cfg.TLS, Logger: s.log.With("component", "raft")}, fsmAdapter{s})
	if err != nil {
		return fmt.Errorf("scheduler: opening the job log in %s: %w", dir, err)
	}
	s.rlog = l
	return nil
}

// fsmAdapter applies the log's commands to the server's journal.FSM under
// s.mu, and carries out their actions when the server leads.
type fsmAdapter struct{ s *Server }

// Apply implements replog.FSM.
func (a fsmAdapter) Apply(index uint64, cmd []byte) any {
	s := a.s
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.fsm.Apply(index, cmd).(*journal.Result)
	if errors.Is(r.Err, journal.ErrMalformed) {
		s.log.Error("skipping a command of the job log that this scheduler cannot read", "index", index, "err", r.Err)
	}
	if m, ok := r.Command.(journal.Module); ok {
		s.storeModule(m.Digest, m.Wasm) // on every member: whichever leads serves it
	}
	if m, ok := r.Command.(journal.DropModule); ok && r.Err == nil {
		if err := s.artifacts.Delete(m.Digest); err != nil {
			s.log.Error("deleting a dropped module", "digest", m.Digest, "err", err)
		}
	}
	if !s.leading {
		return r // a follower, or a leader catching up: Lead will decide
	}
	if reg, ok := r.Command.(journal.Register); ok {
		s.connected(reg.Addr, r.TaskManager)
	}
	s.exec(r.Actions)
	return r
}

// Snapshot implements replog.FSM.
func (a fsmAdapter) Snapshot() ([]byte, error) {
	a.s.mu.Lock()
	defer a.s.mu.Unlock()
	return a.s.fsm.Snapshot()
}

// Restore implements replog.FSM.
func (a fsmAdapter) Restore(b []byte) error {
	a.s.mu.Lock()
	defer a.s.mu.Unlock()
	if err := a.s.fsm.Restore(b); err != nil {
		return err
	}
	for d, wasm := range a.s.fsm.Modules() {
		a.s.storeModule(d, wasm)
	}
	return nil
}

// storeModule stores a journaled module in the artifact store, unless it
// is there already.
func (s *Server) storeModule(digest string, wasm []byte) {
	if s.artifacts.Has(digest) {
		return
	}
	if d, err := s.artifacts.Put(wasm); err != nil || d != digest {
		s.log.Error("storing a module of the job log", "digest", digest, "stored as", d, "err", err)
	}
}

// propose journals an event and returns what applying it answered, its
// actions carried out. The caller must not hold s.mu. It fails with
// errNotLeader on a scheduler that does not lead.
func (s *Server) propose(ctx context.Context, c journal.Command) (*journal.Result, error) {
	if !s.isLeading() {
		return nil, errNotLeader
	}
	b, err := journal.Encode(c)
	if err != nil {
		panic(err) // every command of package journal encodes
	}
	v, err := s.rlog.Propose(ctx, b)
	if errors.Is(err, replog.ErrNotLeader) {
		return nil, fmt.Errorf("%w (%v)", errNotLeader, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: journaling the event: %v", api.ErrUnavailable, err)
	}
	return v.(*journal.Result), nil
}

// event proposes an event whose outcome only the lifecycle needs: an
// error is logged.
func (s *Server) event(c journal.Command) {
	if _, err := s.propose(s.ctx, c); err != nil && s.ctx.Err() == nil {
		s.log.Warn("journaling an event", "event", fmt.Sprintf("%T", c), "err", err)
	}
}

// isLeading reports whether the server leads and has fed its machine Lead.
func (s *Server) isLeading() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ready
}

// follow follows the log's leadership until the server stops.
func (s *Server) follow() {
	for {
		select {
		case <-s.ctx.Done():
			return
		case v, ok := <-s.rlog.LeaderChanges():
			if !ok {
				return
			}
			if v {
				s.lead()
			} else {
				s.depose()
			}
		}
	}
}

// lead makes the server the leader: once its machine holds every command
// committed before (Barrier), it carries out actions again and feeds the
// machine Lead, which makes every task manager register again and
// abandons what the previous leader had in flight. It retries while this
// member still leads.
func (s *Server) lead() {
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
		err := s.tryLead()
		if err == nil {
			return
		}
		s.log.Warn("becoming leader", "err", err)
		select {
		case <-s.ctx.Done():
			return
		case <-time.After(wait):
		}
		if !s.rlog.IsLeader() {
			return // the false that follows deposes
		}
	}
}

func (s *Server) tryLead() error {
	ctx, cancel := context.WithTimeout(s.ctx, time.Minute)
	defer cancel()
	if err := s.rlog.Barrier(ctx); err != nil {
		return fmt.Errorf("waiting for the log: %w", err)
	}
	s.mu.Lock()
	s.leading, s.term = true, s.rlog.Term()
	s.mu.Unlock()
	b, err := journal.Encode(journal.Lead{At: s.now()})
	if err != nil {
		panic(err)
	}
	if _, err := s.rlog.Propose(ctx, b); err != nil {
		return fmt.Errorf("journaling Lead: %w", err)
	}
	s.mu.Lock()
	s.ready = true
	jobs := len(s.fsm.Machine().Jobs())
	s.mu.Unlock()
	s.log.Info("leading", "term", s.term, "jobs", jobs, "applied", s.rlog.Applied())
	s.wake()
	if err := s.announce(ctx); err != nil {
		// NB: followers forward no write until this is journaled; the
		// announcing loop tries again.
		s.log.Warn("journaling this scheduler's addresses", "err", err)
	}
	return nil
}

// depose stops the server acting as the leader: actions are no longer
// carried out and the connections to task managers close (they find the
// new leader and register with it).
func (s *Server) depose() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.leading, s.ready = false, false
	s.closeTaskManagers()
	s.log.Info("no longer leading")
}

// planSubmit is the journal's Planner: it turns a Submit back into the
// submission the machine takes, from the spec and overrides it carries.
// It reads nothing but the command, so that every replay plans the same
// job.
func planSubmit(c journal.Submit) (lifecycle.Submission, error) {
	spec, err := jobspec.Parse(c.Spec, "/", c.Params)
	if err != nil {
		return lifecycle.Submission{}, fmt.Errorf("%w: %v", api.ErrBadRequest, err)
	}
	if c.Parallelism != 0 {
		if err := spec.WithParallelism(c.Parallelism); err != nil {
			return lifecycle.Submission{}, fmt.Errorf("%w: %v", api.ErrBadRequest, err)
		}
	}
	if c.CheckpointInterval != 0 {
		if err := spec.WithCheckpointInterval(c.CheckpointInterval); err != nil {
			return lifecycle.Submission{}, fmt.Errorf("%w: %v", api.ErrBadRequest, err)
		}
	}
	p, err := plan.Build(spec)
	if err != nil {
		return lifecycle.Submission{}, fmt.Errorf("%w: %v", api.ErrBadRequest, err)
	}
	ls := lifecycle.Submission{ID: c.Job, Plan: p, Par: c.Parallelism, Strategy: spec.RestartStrategy,
		Replan: func(par int, ops map[string]int) (*plan.Plan, error) {
			return planFor(c.Spec, c.Params, p.Job.Checkpoints, par, ops)
		}}
	if ck := p.Job.Checkpoints; ck != nil {
		ls.Checkpoints = &lifecycle.Checkpointing{
			Coordinator: coordinator.Config{Interval: ck.Interval, Timeout: ck.Timeout, MinPause: ck.MinPause, MaxConcurrent: ck.MaxConcurrent},
			Retain:      ck.Retain, Store: c.CheckpointStore,
		}
	}
	if c.Restore != nil {
		if ls.Checkpoints == nil {
			// A job without checkpoints of its own still restores the
			// savepoint, with checkpoints that are never triggered.
			ls.Checkpoints = &lifecycle.Checkpointing{Retain: 1, Store: c.CheckpointStore}
		}
		md := *c.Restore
		md.Store = c.RestoreStore
		ls.Restore = &md
	}
	return ls, nil
}
