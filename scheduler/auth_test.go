package scheduler

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/auth"
	"github.com/floe-stream/floe/scheduler/internal/journal"
	"github.com/floe-stream/floe/scheduler/internal/lifecycle"
)

// tokenFile writes a token file with a viewer, an operator and an admin
// whose tokens are their roles' names, and returns its path.
func tokenFile(t *testing.T) string {
	t.Helper()
	var lines []string
	for _, u := range []auth.User{{Name: "vic", Role: auth.Viewer}, {Name: "olga", Role: auth.Operator}, {Name: "ada", Role: auth.Admin}} {
		lines = append(lines, auth.Line(u, u.Role.String()))
	}
	path := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// bearer is the header of a request with token.
func bearer(token string) http.Header {
	return http.Header{"Authorization": {"Bearer " + token}}
}

// TestForwardedWriteAuthorisesTheUser sends writes with users' tokens to
// a follower of a group whose members check tokens: the leader authorises
// the user whose token the follower forwards, not the follower; and the
// members, which present an admin's token, still announce themselves to
// each other and read each other's applied index.
func TestForwardedWriteAuthorisesTheUser(t *testing.T) {
	tokens := tokenFile(t)
	g := startGroup(t, 2, func(c *Config) { c.AuthTokens, c.MemberToken = tokens, "admin" })
	leader, f := g.leader(), g.follower()
	waitUntil(t, func() bool { _, err := f.leaderREST(); return err == nil })

	tests := []struct {
		name   string
		header http.Header
		status int
		want   string
	}{
		{"no token", nil, http.StatusUnauthorized, "needs a bearer token"},
		{"unknown token", bearer("intruder"), http.StatusUnauthorized, "does not know the bearer token"},
		{"viewer", bearer("viewer"), http.StatusForbidden, "token vic has role viewer; DELETE /v1/jobs/{id} needs operator"},
		// The operator may cancel: the leader looks for the job.
		{"operator", bearer("operator"), http.StatusNotFound, "no job"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := g.do(t, f, http.MethodDelete, "/v1/jobs/nope", "", tt.header)
			if resp.StatusCode != tt.status || !strings.Contains(body, tt.want) {
				t.Errorf("DELETE through a follower: %s %s, want %d with %q", resp.Status, body, tt.status, tt.want)
			}
			if got := resp.Header.Get(leaderHeader); got != leader.RESTAddr() {
				t.Errorf("the answer came from %q, want the leader %s", got, leader.RESTAddr())
			}
		})
	}
	// A follower's reads are its own, checked against its own users.
	if resp, body := g.do(t, f, http.MethodGet, "/v1/jobs", "", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /v1/jobs without a token on a follower: %s %s, want 401", resp.Status, body)
	}
	if resp, body := g.do(t, f, http.MethodGet, "/v1/jobs", "", bearer("viewer")); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /v1/jobs as a viewer on a follower: %s %s, want 200", resp.Status, body)
	}
	// The follower announced itself (a PUT that needs an admin), and
	// each member reads the other's applied index (a viewer's GET).
	for _, s := range g.servers {
		waitUntil(t, func() bool {
			st, err := s.Cluster(context.Background())
			return err == nil && allReachable(st)
		})
	}
}

// TestAuthTokensFile checks that a token file that cannot be read or
// parsed stops the scheduler from starting, with an error that says where.
func TestAuthTokensFile(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken")
	if err := os.WriteFile(broken, []byte("# users\nvic viewer\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, want string }{
		{broken, "token file " + broken + ": line 2: want NAME ROLE sha256:HEX, got 2 fields"},
		{filepath.Join(dir, "missing"), "no such file"},
	}
	for _, tt := range tests {
		s, err := NewServer(Config{RPCAddr: "127.0.0.1:0", RESTAddr: "127.0.0.1:0", DataDir: t.TempDir(), AuthTokens: tt.path})
		if err == nil {
			s.close()
			t.Errorf("NewServer with --auth-tokens %s started", tt.path)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewServer with --auth-tokens %s: %v, want an error containing %q", tt.path, err, tt.want)
		}
	}
}

// TestReloadAuthTokens checks that a reload takes users added to the token
// file since the start, and that a file that no longer parses leaves the
// users as they were.
func TestReloadAuthTokens(t *testing.T) {
	tokens := tokenFile(t)
	s, err := NewServer(Config{RPCAddr: "127.0.0.1:0", RESTAddr: "127.0.0.1:0", DataDir: t.TempDir(), AuthTokens: tokens})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
	g := &group{hc: &http.Client{}, scheme: "http"}
	t.Cleanup(g.hc.CloseIdleConnections)
	status := func(token string) int {
		resp, _ := g.do(t, s, http.MethodGet, "/v1/jobs", "", bearer(token))
		return resp.StatusCode
	}

	added, err := auth.Append(tokens, auth.User{Name: "newcomer", Role: auth.Viewer}, strings.NewReader(strings.Repeat("x", 32)))
	if err != nil {
		t.Fatal(err)
	}
	if got := status(added); got != http.StatusUnauthorized {
		t.Errorf("a token added to the file, before the reload: %d, want 401", got)
	}
	if err := s.ReloadAuthTokens(); err != nil {
		t.Fatal(err)
	}
	if got := status(added); got != http.StatusOK {
		t.Errorf("a token added to the file, after the reload: %d, want 200", got)
	}
	if err := os.WriteFile(tokens, []byte("newcomer viewer\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.ReloadAuthTokens(); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("reloading a broken file: %v, want an error naming line 1", err)
	}
	if got := status(added); got != http.StatusOK {
		t.Errorf("after a failed reload: %d, want the users as they were (200)", got)
	}
}

// TestViewerState journals word count with state.readableBy opening
// "counts" to viewers, and asks the server, also after a snapshot is
// restored, which states viewers may read.
func TestViewerState(t *testing.T) {
	spec, err := os.ReadFile("../udfs/wordcount/job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	spec = append(spec, "state:\n  readableBy: {counts: viewer, totals: operator}\n"...)
	cfg := lifecycle.Config{HeartbeatInterval: time.Second, HeartbeatTimeout: 10 * time.Second}
	f := journal.New(cfg, planSubmit)
	b, err := journal.Encode(journal.Submit{At: time.Unix(1_000_000, 0).UTC(), Job: "j", Spec: spec,
		Params: map[string]string{"input": "/in", "output": "/out"}})
	if err != nil {
		t.Fatal(err)
	}
	if r := f.Apply(1, b).(*journal.Result); r.Err != nil {
		t.Fatal(r.Err)
	}
	snap, err := f.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	g := journal.New(cfg, planSubmit)
	if err := g.Restore(snap); err != nil {
		t.Fatal(err)
	}
	for name, fsm := range map[string]*journal.FSM{"journaled": f, "restored": g} {
		s := &Server{fsm: fsm}
		for _, tt := range []struct {
			job, state string
			want       bool
		}{{"j", "counts", true}, {"j", "totals", false}, {"j", "other", false}, {"nope", "counts", false}} {
			if got := s.viewerState(context.Background(), tt.job, tt.state); got != tt.want {
				t.Errorf("%s: viewerState(%s, %s) = %v, want %v", name, tt.job, tt.state, got, tt.want)
			}
		}
	}
}

// lockedBuffer is a log that tests read while servers write to it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestMemberTokenRefused checks that a follower whose token the leader
// refuses says so in its log, rather than failing quietly to make its
// addresses known.
func TestMemberTokenRefused(t *testing.T) {
	tokens := tokenFile(t)
	var log lockedBuffer
	startGroup(t, 2, func(c *Config) {
		c.AuthTokens, c.MemberToken = tokens, "viewer" // not an admin's
		c.Logger = slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelWarn}))
	})
	const warning = `msg="the leader refuses this member's token`
	waitUntil(t, func() bool { return strings.Contains(log.String(), warning) })
	// Announcing goes on every second; the warning does not.
	time.Sleep(2 * announceInterval)
	if n := strings.Count(log.String(), warning); n != 1 {
		t.Errorf("the warning is logged %d times, want once:\n%s", n, log.String())
	}
}
