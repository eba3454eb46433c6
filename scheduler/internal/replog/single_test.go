package replog

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// open opens cfg with a fresh testFSM and closes it when the test ends.
func open(t *testing.T, cfg Config) (*Log, *testFSM) {
	t.Helper()
	fsm := &testFSM{}
	l, err := Open(cfg, fsm)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l, fsm
}

func propose(t *testing.T, l *Log, cmds []string) {
	t.Helper()
	for _, c := range cmds {
		if _, err := l.Propose(context.Background(), []byte(c)); err != nil {
			t.Fatalf("Propose(%s): %v", c, err)
		}
	}
}

// singleConfigs are the two kinds of single member: with no network, and
// bound to a TCP address as a scheduler with --ha-addr and no peers is.
func singleConfigs(t *testing.T) []struct {
	name string
	cfg  Config
} {
	addr := freeAddrs(t, 1)[0]
	return []struct {
		name string
		cfg  Config
	}{
		{"in memory", Config{Dir: t.TempDir()}},
		{"tcp", Config{Dir: t.TempDir(), Bind: addr}},
		{"tcp, listed as its own peer", Config{Dir: t.TempDir(), Bind: addr, Peers: []string{addr}}},
	}
}

// TestSingleMemberAppliesInOrderAndReplays proposes commands to a single
// member, which is the leader when Open returns, then closes it and opens
// the same directory with a fresh FSM: every command is replayed, in
// order, before Open returns.
func TestSingleMemberAppliesInOrderAndReplays(t *testing.T) {
	for _, tc := range singleConfigs(t) {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			l, fsm := open(t, tc.cfg)
			t.Logf("a new single member was the leader %s after Open was called", time.Since(start))
			if !l.IsLeader() {
				t.Fatal("a single member is not the leader when Open returns")
			}
			want := commandList(1, 20)
			for i, c := range want {
				res, err := l.Propose(context.Background(), []byte(c))
				if err != nil {
					t.Fatalf("Propose(%s): %v", c, err)
				}
				if res != i+1 {
					t.Fatalf("Propose(%s) returned %v, want FSM.Apply's result %d", c, res, i+1)
				}
			}
			if got := fsm.commands(); !slices.Equal(got, want) {
				t.Fatalf("FSM holds %v, want %v", got, want)
			}
			if id, _ := l.Leader(); id != cmp.Or(tc.cfg.Bind, "single") {
				t.Errorf("Leader() = %q, want this member", id)
			}
			term := l.Term()
			if err := l.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if err := l.Close(); err != nil {
				t.Fatalf("a second Close: %v", err)
			}

			start = time.Now()
			l2, fsm2 := open(t, tc.cfg)
			t.Logf("a restarted single member was the leader %s after Open was called", time.Since(start))
			if got := fsm2.commands(); !slices.Equal(got, want) {
				t.Fatalf("after reopening, FSM holds %v, want %v", got, want)
			}
			if !l2.IsLeader() || l2.Term() <= term {
				t.Fatalf("after reopening: leader %v, term %d; want the leader in a term after %d", l2.IsLeader(), l2.Term(), term)
			}
			propose(t, l2, commandList(21, 1))
			if got := fsm2.commands(); !slices.Equal(got, commandList(1, 21)) {
				t.Fatalf("FSM holds %v after one more command", got)
			}
		})
	}
}

// TestSnapshotThenTail compacts the log with a snapshot, appends more, and
// reopens: the fresh FSM is restored from the snapshot and then given only
// the entries after it.
func TestSnapshotThenTail(t *testing.T) {
	for _, tc := range []struct {
		name     string
		snapshot func(t *testing.T, l *Log)
	}{
		{"taken on demand", func(t *testing.T, l *Log) {
			if err := l.Snapshot(); err != nil {
				t.Fatal(err)
			}
		}},
		{"taken by the threshold", func(t *testing.T, l *Log) {
			eventually(t, "a snapshot was taken", func() bool {
				metas, err := l.snaps.List()
				return err == nil && len(metas) > 0
			})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Dir: t.TempDir(), SnapshotThreshold: 4, SnapshotInterval: 10 * time.Millisecond}
			l, _ := open(t, cfg)
			propose(t, l, commandList(1, 10))
			tc.snapshot(t, l)
			metas, err := l.snaps.List()
			if err != nil || len(metas) == 0 {
				t.Fatalf("no snapshot listed: %v", err)
			}
			snapIndex := metas[0].Index
			propose(t, l, commandList(11, 5))
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}

			_, fsm := open(t, cfg)
			if got := fsm.commands(); !slices.Equal(got, commandList(1, 15)) {
				t.Fatalf("after reopening, FSM holds %v, want c1..c15", got)
			}
			fsm.mu.Lock()
			defer fsm.mu.Unlock()
			if fsm.restores != 1 {
				t.Errorf("FSM restored %d times, want once", fsm.restores)
			}
			if len(fsm.indices) == 0 || fsm.indices[0] <= snapIndex {
				t.Errorf("after the snapshot at index %d the FSM was given the entries %v; want only later ones", snapIndex, fsm.indices)
			}
		})
	}
}

// TestDirInUse opens a directory twice: the second Open fails with
// ErrDirInUse until the first Log is closed.
func TestDirInUse(t *testing.T) {
	cfg := Config{Dir: t.TempDir()}
	l, _ := open(t, cfg)
	if _, err := Open(cfg, &testFSM{}); !errors.Is(err, ErrDirInUse) {
		t.Fatalf("a second Open on a directory in use returned %v, want ErrDirInUse", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	open(t, cfg)
}

// TestClosed checks that calls on a closed Log fail with ErrClosed rather
// than hang.
func TestClosed(t *testing.T) {
	l, _ := open(t, Config{Dir: t.TempDir()})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := l.Propose(ctx, []byte("x")); !errors.Is(err, ErrClosed) {
		t.Errorf("Propose after Close returned %v, want ErrClosed", err)
	}
	if err := l.Barrier(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Barrier after Close returned %v, want ErrClosed", err)
	}
	if _, ok := <-l.LeaderChanges(); ok {
		// The first value may be the true of the election; the channel
		// must then be closed.
		for range l.LeaderChanges() {
		}
	}
}
