package replog

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
)

// member is one member of a test group, with what it has said about its
// leadership.
type member struct {
	cfg     Config
	log     *Log
	fsm     *testFSM
	changes chan []bool // the member's LeaderChanges so far, handed over by collect
}

// startGroup opens n members on loopback TCP with a short election timeout.
func startGroup(t *testing.T, n int) []*member {
	t.Helper()
	addrs := freeAddrs(t, n)
	var ms []*member
	for _, a := range addrs {
		// The default election timeout (1s): a shorter one lets a loaded
		// machine (make test under -race on 2 cores) delay heartbeats past
		// it, and a leader that changes mid-test fails a proposal with
		// "leadership lost", which the test cannot retry without risking a
		// duplicate.
		m := &member{cfg: Config{Dir: t.TempDir(), Bind: a, Peers: addrs}}
		m.open(t)
		ms = append(ms, m)
	}
	return ms
}

// open opens m with a fresh FSM and collects its leader changes until the
// log closes them.
func (m *member) open(t *testing.T) {
	t.Helper()
	m.log, m.fsm = open(t, m.cfg)
	m.changes = make(chan []bool, 1)
	go func(ch <-chan bool, out chan<- []bool) {
		var seen []bool
		for v := range ch {
			seen = append(seen, v)
		}
		out <- seen
	}(m.log.LeaderChanges(), m.changes)
}

// close closes m and returns the leader changes it reported.
func (m *member) close(t *testing.T) []bool {
	t.Helper()
	if err := m.log.Close(); err != nil {
		t.Fatalf("closing %s: %v", m.cfg.Bind, err)
	}
	return <-m.changes
}

// awaitLeader waits until exactly one of ms is the leader and every one of
// them knows it, and returns it.
func awaitLeader(t *testing.T, ms []*member) *member {
	t.Helper()
	var leader *member
	eventually(t, "the members agree on one leader", func() bool {
		leader = nil
		for _, m := range ms {
			if m.log.IsLeader() {
				if leader != nil {
					return false
				}
				leader = m
			}
		}
		if leader == nil {
			return false
		}
		for _, m := range ms {
			if id, _ := m.log.Leader(); id != leader.cfg.Bind {
				return false
			}
		}
		return true
	})
	return leader
}

// awaitCommands waits until every one of ms has applied want.
func awaitCommands(t *testing.T, ms []*member, want []string) {
	t.Helper()
	for _, m := range ms {
		eventually(t, fmt.Sprintf("%s applied %d commands", m.cfg.Bind, len(want)), func() bool {
			return slices.Equal(m.fsm.commands(), want)
		})
	}
}

// TestThreeMembers runs a group of three on loopback TCP through a
// leader's loss: one leader is elected, its proposals reach every FSM and a
// follower refuses proposals; when the leader closes, a survivor leads in a
// later term and proposals go on; the old leader, reopened, catches up.
func TestThreeMembers(t *testing.T) {
	ms := startGroup(t, 3)
	leader := awaitLeader(t, ms)
	propose(t, leader.log, commandList(1, 5))
	awaitCommands(t, ms, commandList(1, 5))

	if got := leader.log.Members(); len(got) != 3 || !slices.IsSortedFunc(got, func(a, b Member) int { return cmp.Compare(a.ID, b.ID) }) {
		t.Errorf("Members() = %v, want the three members sorted by ID", got)
	}
	for _, mb := range leader.log.Members() {
		if mb.Leader != (mb.ID == leader.cfg.Bind) || mb.Addr != mb.ID {
			t.Errorf("Members() has %+v; the leader is %s", mb, leader.cfg.Bind)
		}
	}
	for _, m := range ms {
		if m == leader {
			continue
		}
		if _, err := m.log.Propose(context.Background(), []byte("on a follower")); !errors.Is(err, ErrNotLeader) {
			t.Errorf("Propose on the follower %s returned %v, want ErrNotLeader", m.cfg.Bind, err)
		}
		if err := m.log.Barrier(context.Background()); !errors.Is(err, ErrNotLeader) {
			t.Errorf("Barrier on the follower %s returned %v, want ErrNotLeader", m.cfg.Bind, err)
		}
	}

	term := leader.log.Term()
	if changes := leader.close(t); len(changes) == 0 || !changes[0] {
		t.Errorf("the first leader reported the leader changes %v, want true first", changes)
	}
	survivors := slices.DeleteFunc(slices.Clone(ms), func(m *member) bool { return m == leader })
	next := awaitLeader(t, survivors)
	if next.log.Term() <= term {
		t.Errorf("the new leader's term is %d, want more than %d", next.log.Term(), term)
	}
	if err := next.log.Barrier(context.Background()); err != nil {
		t.Fatalf("Barrier on the new leader: %v", err)
	}
	propose(t, next.log, commandList(6, 5))
	awaitCommands(t, survivors, commandList(1, 10))

	leader.open(t)
	awaitCommands(t, ms, commandList(1, 10))
	awaitLeader(t, ms)

	for _, m := range ms {
		changes := m.close(t)
		if !alternates(changes) {
			t.Errorf("%s reported the leader changes %v, want true and false alternately from true", m.cfg.Bind, changes)
		}
		if m == next && (len(changes) == 0 || !changes[0]) {
			t.Errorf("the second leader reported the leader changes %v, want true first", changes)
		}
	}
}

// alternates reports whether vs is true, false, true... from true.
func alternates(vs []bool) bool {
	for i, v := range vs {
		if v != (i%2 == 0) {
			return false
		}
	}
	return true
}
