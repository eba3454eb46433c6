package taskmanager

import (
	"context"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

// This file is the task manager's side of the scheduler's lifecycle: it
// registers with the scheduler that leads, heartbeats to it, and, when it
// loses it, keeps its tasks running while it looks for the next leader,
// re-registers with them and cancels what the new leader does not adopt.

// schedConn is the connection to one of the configured schedulers.
type schedConn struct {
	addr   string
	index  int
	conn   *grpc.ClientConn
	client floev1.SchedulerClient
}

// errNoLeader fails a call to the scheduler while the task manager has
// none: it lost its scheduler and has not re-registered yet.
var errNoLeader = status.Error(codes.Unavailable, "no scheduler: this task manager is looking for the leader")

// registerTimeout bounds one Register call, so that a scheduler that hangs
// (a paused process) does not stop the task manager from trying the others.
const registerTimeout = 5 * time.Second

// maxBackoff caps the pause between rounds through the schedulers.
const maxBackoff = 2 * time.Second

// leader returns the client of the scheduler this task manager is
// registered with, or errNoLeader. Every call to the scheduler goes through
// it, so a re-registration switches them all at once.
func (tm *TaskManager) leader() (floev1.SchedulerClient, error) {
	s := tm.lead.Load()
	if s == nil {
		return nil, errNoLeader
	}
	return s.client, nil
}

// heartbeats registers and heartbeats until the task manager stops. When
// the scheduler forgets this task manager it cancels every task and
// registers afresh; when it loses the scheduler it keeps its tasks for
// Config.SchedulerGrace while it re-registers, reporting them.
func (tm *TaskManager) heartbeats() {
	var (
		lostAt time.Time // when the scheduler was lost; zero at a fresh start
		next   int       // the index of the scheduler to try first
	)
	for {
		s := tm.registerAny(next, lostAt)
		if s == nil {
			return
		}
		forgotten := tm.beatUntilLost(s)
		if tm.ctx.Err() != nil {
			return // the leader stays, to hear of the tasks canceled on the way out
		}
		tm.lead.Store(nil)
		if forgotten {
			tm.cancelAll("the scheduler declared this task manager dead")
			lostAt, next = time.Time{}, s.index
			continue
		}
		lostAt, next = time.Now(), (s.index+1)%len(tm.scheds)
		if tm.cfg.SchedulerGrace < 0 {
			tm.cancelAll("lost the scheduler")
		}
	}
}

// registerAny tries the schedulers in turn from index next, with a growing
// pause after each round, until one accepts; it returns that one, or nil
// when the task manager stops. A zero lostAt registers afresh; otherwise it
// re-registers with the tasks and cancels them once the grace is over.
func (tm *TaskManager) registerAny(next int, lostAt time.Time) *schedConn {
	backoff := 100 * time.Millisecond
	graceOver := lostAt.IsZero() || tm.cfg.SchedulerGrace < 0
	for i := 0; ; i++ {
		if tm.ctx.Err() != nil {
			return nil
		}
		tm.expireKept("")
		if !graceOver && time.Since(lostAt) > tm.cfg.SchedulerGrace {
			tm.cancelAll("no scheduler took the tasks within the grace period")
			graceOver = true
		}
		s := tm.scheds[(next+i)%len(tm.scheds)]
		tm.log.Info("registering with a scheduler", "scheduler", s.addr, "reregister", !lostAt.IsZero())
		err := tm.register(s, !lostAt.IsZero())
		if err == nil {
			return s
		}
		tm.log.Warn("registering with a scheduler", "scheduler", s.addr, "err", err)
		if (i+1)%len(tm.scheds) == 0 {
			if sleep(tm.ctx, backoff) != nil {
				return nil
			}
			backoff = min(2*backoff, maxBackoff)
		}
	}
}

// register registers with s. Re-registering, it reports the tasks it runs
// and the ends it has not reported, under its previous id, and cancels the
// tasks that s does not adopt.
func (tm *TaskManager) register(s *schedConn, again bool) error {
	host, _ := os.Hostname()
	req := &floev1.RegisterRequest{RpcAddr: tm.Addr(), Slots: int32(tm.cfg.Slots), Hostname: host}
	var snap snapshot
	if again {
		snap = tm.snapshot()
		req.PreviousId, req.Tasks = tm.taskManagerID(), snap.updates
		for _, u := range req.Tasks {
			u.TaskManagerId = req.PreviousId
		}
	}
	ctx, cancel := context.WithTimeout(tm.ctx, registerTimeout)
	defer cancel()
	resp, err := s.client.Register(ctx, req)
	if err != nil {
		return err
	}
	if err := tm.fence(resp.Term); err != nil {
		return err // a deposed leader that does not know it yet
	}
	tm.mu.Lock()
	tm.id = resp.TaskManagerId
	tm.interval = time.Duration(resp.HeartbeatIntervalMs) * time.Millisecond
	tm.timeout = time.Duration(resp.HeartbeatTimeoutMs) * time.Millisecond
	tm.mu.Unlock()
	tm.lead.Store(s)
	tm.log.Info("registered with the scheduler", "id", resp.TaskManagerId, "scheduler", s.addr, "term", resp.Term,
		"reported", len(req.Tasks), "adopted", len(resp.Adopted))
	if again {
		tm.settle(snap, resp.Adopted)
	} else {
		tm.dropEnds()
	}
	return nil
}

// beatUntilLost heartbeats to s until it is lost, or until the task
// manager stops; it returns true when s no longer knows this task manager.
// s is lost when it answers no heartbeat for the timeout or, when there are
// other schedulers to turn to, as soon as it answers UNAVAILABLE (it is not
// the leader, or not up).
//
// NB: with a single scheduler an UNAVAILABLE heartbeat is not a loss until
// the timeout: a broken connection says UNAVAILABLE too, there is no other
// scheduler to turn to, and a scheduler without failover answers a
// re-registration with a new id and no adopted task, which would cost every
// task for a blip.
func (tm *TaskManager) beatUntilLost(s *schedConn) (forgotten bool) {
	tm.mu.Lock()
	id, interval, timeout := tm.id, tm.interval, tm.timeout
	tm.mu.Unlock()
	last := time.Now()
	for sleep(tm.ctx, interval) == nil {
		tm.expireKept("")
		ctx, cancel := context.WithTimeout(tm.ctx, interval+timeout/2)
		resp, err := s.client.Heartbeat(ctx, &floev1.HeartbeatRequest{TaskManagerId: id, Tasks: tm.metrics()})
		cancel()
		switch {
		case err == nil && resp.Known:
			last = time.Now()
			tm.flushEnds()
		case err == nil:
			tm.log.Warn("the scheduler no longer knows this task manager; registering again", "id", id, "scheduler", s.addr)
			return true
		case status.Code(err) == codes.Unavailable && len(tm.scheds) > 1:
			tm.log.Warn("lost the scheduler: it is unavailable; keeping the tasks while re-registering", "scheduler", s.addr, "err", err)
			return false
		case time.Since(last) > timeout:
			tm.log.Warn("lost the scheduler; keeping the tasks while re-registering", "scheduler", s.addr, "err", err,
				"silent_for", time.Since(last).Round(time.Millisecond), "grace", tm.cfg.SchedulerGrace)
			return false
		}
	}
	return false
}

// snapshot is what a re-registration reports: the tasks running and the
// ends not yet reported, as they were when it was taken.
type snapshot struct {
	updates []*floev1.TaskStatusUpdate
	running map[taskKey]*running
	ends    map[taskKey]*floev1.TaskStatusUpdate
}

func (tm *TaskManager) snapshot() snapshot {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	snap := snapshot{running: map[taskKey]*running{}, ends: map[taskKey]*floev1.TaskStatusUpdate{}}
	for k, r := range tm.tasks {
		snap.running[k] = r
		snap.updates = append(snap.updates, r.status())
	}
	for k, u := range tm.ends {
		snap.ends[k] = u
		snap.updates = append(snap.updates, proto.CloneOf(u))
	}
	return snap
}

// settle follows a re-registration: the reported ends are delivered, and
// the reported tasks the new leader did not adopt are canceled. Tasks
// deployed since the snapshot are the new leader's own and stay.
func (tm *TaskManager) settle(snap snapshot, adopted []*floev1.TaskID) {
	keep := map[taskKey]bool{}
	for _, id := range adopted {
		keep[keyOf(id)] = true
	}
	tm.mu.Lock()
	defer tm.mu.Unlock()
	for k, u := range snap.ends {
		if tm.ends[k] == u {
			delete(tm.ends, k)
		}
	}
	n := 0
	for k, r := range snap.running {
		if !keep[k] && tm.tasks[k] == r {
			r.cancel()
			n++
		}
	}
	if n > 0 {
		tm.log.Warn("canceling the tasks the scheduler did not adopt", "tasks", n, "adopted", len(adopted))
	}
}

// fence admits a call from a leader of term t: it refuses a term older than
// the highest this task manager has seen, which t raises. Term 0, from a
// scheduler without terms, passes only while no term was seen.
func (tm *TaskManager) fence(t int64) error {
	for {
		cur := tm.term.Load()
		if t < cur {
			return status.Errorf(codes.FailedPrecondition, "fenced: term %d is older than %d", t, cur)
		}
		if t == cur || tm.term.CompareAndSwap(cur, t) {
			return nil
		}
	}
}
