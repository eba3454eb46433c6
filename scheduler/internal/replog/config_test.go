package replog

import (
	"github.com/hashicorp/go-hclog"

	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// TestConfigErrors lists the configurations Open refuses before it touches
// the directory.
func TestConfigErrors(t *testing.T) {
	peers := []string{"127.0.0.1:7001", "127.0.0.1:7002", "127.0.0.1:7003"}
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no directory", Config{}, "no directory"},
		{"a group member with no address", Config{Dir: "d", Peers: peers}, "needs a Raft address"},
		{"an address outside the peers", Config{Dir: "d", Bind: "127.0.0.1:7009", Peers: peers}, "do not include"},
		{"an id other than the address", Config{Dir: "d", ID: "a", Bind: peers[0], Peers: peers}, "id is its Raft address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open(tc.cfg, &testFSM{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Open returned %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// TestMembersFixed opens a single member's directory as a member of a
// group, and the other way round: Open refuses both, since the members are
// fixed when the log is created.
func TestMembersFixed(t *testing.T) {
	addrs := freeAddrs(t, 3)
	single := Config{Dir: t.TempDir()}
	group := Config{Dir: t.TempDir(), Bind: addrs[0], Peers: addrs}
	for _, cfg := range []Config{single, group} {
		l, err := Open(cfg, &testFSM{})
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	swapped := []Config{
		{Dir: group.Dir},
		{Dir: single.Dir, Bind: addrs[0], Peers: addrs},
	}
	for _, cfg := range swapped {
		_, err := Open(cfg, &testFSM{})
		if err == nil || !strings.Contains(err.Error(), "changing a group's members is not supported") {
			t.Errorf("Open(%+v) returned %v, want an error about the members", cfg, err)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for raft's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestLogger checks that raft's log reaches the slog logger, with raft's
// hclog.Fmt values rendered.
func TestLogger(t *testing.T) {
	var buf syncBuffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	l, _ := open(t, Config{Dir: t.TempDir(), Logger: logger})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{`msg="entering leader state" component=raft`, "servers=\"[{Suffrage:Voter ID:single Address:single}]\""} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %s:\n%s", want, out)
		}
	}
}

func TestFirstElectionIsNoWarning(t *testing.T) {
	const msg = "heartbeat timeout reached, starting election"
	tests := []struct {
		level hclog.Level
		msg   string
		kv    []any
		want  bool
	}{
		{hclog.Warn, msg, []any{"last-leader-addr", "", "last-leader-id", ""}, true},
		{hclog.Warn, msg, []any{"last-leader-addr", "10.0.0.1:7000", "last-leader-id", "s1"}, false},
		{hclog.Warn, msg, nil, false},
		{hclog.Info, msg, []any{"last-leader-addr", ""}, false},
		{hclog.Warn, "failed to contact", []any{"last-leader-addr", ""}, false},
	}
	for _, tt := range tests {
		if got := firstElection(tt.level, tt.msg, tt.kv); got != tt.want {
			t.Errorf("firstElection(%v, %q, %v) = %v, want %v", tt.level, tt.msg, tt.kv, got, tt.want)
		}
	}
}
