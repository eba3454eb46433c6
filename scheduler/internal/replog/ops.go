package replog

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hashicorp/raft"
)

// Propose appends cmd to the log and waits until it is committed and applied
// here; it returns what FSM.Apply returned for it. On a follower it fails
// with ErrNotLeader. When this member loses the leadership with cmd in
// flight, the error satisfies both ErrNotLeader and ErrLeadershipLost: cmd
// may still be committed by the next leader. When ctx ends first, Propose
// returns ctx's error and cmd may still be applied.
//
// The log keeps cmd until it is written; the caller must not change it.
func (l *Log) Propose(ctx context.Context, cmd []byte) (any, error) {
	f := l.raft.Apply(cmd, enqueueTimeout(ctx))
	if err := l.wait(ctx, f); err != nil {
		return nil, err
	}
	return f.Response(), nil
}

// Barrier returns once every entry committed before the call is applied
// here. It fails with ErrNotLeader on a follower. A new leader calls it
// before it acts on its FSM's state.
func (l *Log) Barrier(ctx context.Context) error {
	return l.wait(ctx, l.raft.Barrier(enqueueTimeout(ctx)))
}

// Snapshot takes a snapshot now and compacts the log, as raft does by
// itself every SnapshotThreshold entries.
func (l *Log) Snapshot() error {
	if err := l.raft.Snapshot().Error(); err != nil {
		return fmt.Errorf("replog: snapshot: %w", err)
	}
	return nil
}

// enqueueTimeout is how long raft may wait to accept a command: until ctx's
// deadline, or for ever (0) when it has none.
func enqueueTimeout(ctx context.Context) time.Duration {
	d, ok := ctx.Deadline()
	if !ok {
		return 0
	}
	return max(time.Until(d), time.Nanosecond)
}

// wait waits for f or for ctx, whichever ends first, and translates raft's
// errors into this package's.
func (l *Log) wait(ctx context.Context, f raft.Future) error {
	if ctx.Done() == nil {
		return translate(f.Error())
	}
	res := make(chan error, 1)
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return ErrClosed
	}
	l.wg.Add(1)
	l.mu.Unlock()
	go func() {
		defer l.wg.Done()
		// NB: a raft future always resolves: by the entry's outcome, a
		// lost leadership or the shutdown that Close does before waiting.
		res <- f.Error()
	}()
	select {
	case err := <-res:
		return translate(err)
	case <-ctx.Done():
		return ctx.Err()
	}
}

func translate(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, raft.ErrNotLeader):
		return ErrNotLeader
	case errors.Is(err, raft.ErrLeadershipLost), errors.Is(err, raft.ErrLeadershipTransferInProgress):
		return fmt.Errorf("%w: %w", ErrNotLeader, ErrLeadershipLost)
	case errors.Is(err, raft.ErrRaftShutdown):
		return ErrClosed
	case errors.Is(err, raft.ErrEnqueueTimeout):
		return fmt.Errorf("replog: %w", context.DeadlineExceeded)
	}
	return fmt.Errorf("replog: %w", err)
}

// IsLeader reports whether this member is the leader now.
func (l *Log) IsLeader() bool {
	return l.raft.State() == raft.Leader
}

// LeaderChanges delivers true when this member becomes the leader and false
// when it stops being the leader, alternately, starting with true. It is
// buffered and never blocks raft: a reader that falls behind sees a lost and
// regained leadership as a false followed by a true. It is closed by Close.
func (l *Log) LeaderChanges() <-chan bool {
	return l.changes
}

// forwardLeaderChanges turns src, raft's leader channel, which keeps only
// the latest value, into l.changes, which alternates: a true that follows
// a true means the leadership was lost and regained in between.
func (l *Log) forwardLeaderChanges(src <-chan bool) {
	defer l.wg.Done()
	defer close(l.changes)
	leader := false
	for {
		select {
		case v := <-src:
			if v == leader && !l.send(!v) {
				return
			}
			if !l.send(v) {
				return
			}
			leader = v
		case <-l.done:
			return
		}
	}
}

// send sends v on l.changes; it returns false when the log is closed first.
func (l *Log) send(v bool) bool {
	select {
	case l.changes <- v:
		return true
	case <-l.done:
		return false
	}
}

// Leader returns the current leader's id and Raft address, or "" when no
// leader is known.
func (l *Log) Leader() (id, addr string) {
	a, i := l.raft.LeaderWithID()
	return string(i), string(a)
}

// ID returns this member's Raft id.
func (l *Log) ID() string { return l.id }

// Term returns the current Raft term.
func (l *Log) Term() uint64 {
	return l.raft.CurrentTerm()
}

// Applied returns the index of the last entry applied to the FSM here.
// Raft's own entries (elections' no-ops, configurations) count too.
func (l *Log) Applied() uint64 {
	return l.raft.AppliedIndex()
}

// Members returns the members of the latest configuration, sorted by ID.
// It returns nil once the log is closed.
func (l *Log) Members() []Member {
	f := l.raft.GetConfiguration()
	if f.Error() != nil {
		return nil
	}
	_, leader := l.raft.LeaderWithID()
	var ms []Member
	for _, s := range f.Configuration().Servers {
		ms = append(ms, Member{ID: string(s.ID), Addr: string(s.Address), Leader: s.ID == leader})
	}
	slices.SortFunc(ms, func(a, b Member) int { return cmp.Compare(a.ID, b.ID) })
	return ms
}
