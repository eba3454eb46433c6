package scheduler

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/tlsconf"
	"github.com/floe-stream/floe/scheduler/api"
)

// group is a group of schedulers serving REST in this process.
type group struct {
	servers []*Server
	// stop stops each server and waits until it has.
	stop []func()
	hc   *http.Client
	// scheme is the REST API's: https when the group runs TLS.
	scheme string
}

// startGroup starts n schedulers as one group, each serving REST on a
// free port, and waits until one leads. Each opt changes every member's
// config. The group stops at the test's end.
func startGroup(t *testing.T, n int, opts ...func(*Config)) *group {
	t.Helper()
	return startGroupTLS(t, n, nil, opts...)
}

// startGroupTLS starts a group whose members share the TLS identity c
// (plaintext when nil); the group's HTTP client presents it too.
func startGroupTLS(t *testing.T, n int, c *tlsconf.Config, opts ...func(*Config)) *group {
	t.Helper()
	var peers []string
	for range n {
		peers = append(peers, freeAddr(t))
	}
	// The timeout only stops a hung test: a module push through a follower
	// compiles the module under the race detector, which took over 30s in
	// a CI run beside a loaded machine's other work.
	g := &group{hc: &http.Client{Transport: &http.Transport{}, Timeout: 3 * time.Minute}, scheme: "http"}
	if c != nil {
		g.hc.Transport, g.scheme = &http.Transport{TLSClientConfig: c.Client(tlsconf.Scheduler)}, "https"
	}
	t.Cleanup(func() {
		for _, stop := range g.stop {
			stop()
		}
		g.hc.CloseIdleConnections()
	})
	for i, p := range peers {
		cfg := Config{RPCAddr: "127.0.0.1:0", RESTAddr: "127.0.0.1:0", DataDir: filepath.Join(t.TempDir(), p),
			RaftAddr: p, RaftPeers: peers, ElectionTimeout: time.Second, TLS: c}
		for _, opt := range opts {
			opt(&cfg)
		}
		s, err := NewServer(cfg)
		if err != nil {
			t.Fatalf("scheduler %d: %v", i, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.Run(ctx)
		}()
		g.servers = append(g.servers, s)
		g.stop = append(g.stop, sync.OnceFunc(func() { cancel(); <-done }))
	}
	deadline := time.Now().Add(30 * time.Second)
	for g.leader() == nil {
		if time.Now().After(deadline) {
			t.Fatal("no scheduler of the group leads after 30s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return g
}

// leader returns the scheduler that leads and serves, or nil.
func (g *group) leader() *Server {
	for _, s := range g.servers {
		if s.isLeading() {
			return s
		}
	}
	return nil
}

// follower returns a scheduler that does not lead.
func (g *group) follower() *Server {
	for _, s := range g.servers {
		if !s.isLeading() {
			return s
		}
	}
	return nil
}

// do sends a request to a scheduler's REST API and returns the answer
// with its body read.
func (g *group) do(t *testing.T, s *Server, method, path, body string, header http.Header) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, g.scheme+"://"+s.RESTAddr()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := g.hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// doRetry is do as a client that honours 503's Retry-After does it: a
// write sent while leadership moves (an election under a loaded machine's
// race-detector run) is answered 503 and sent again, for up to a minute.
// retried tells whether any attempt was answered 503.
func (g *group) doRetry(t *testing.T, s *Server, method, path, body string) (resp *http.Response, b string, retried bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	// NB: at least three tries whatever the time: on a loaded machine one
	// POST /v1/modules (a compile under -race) has taken over a minute,
	// leadership moving meanwhile.
	for try := 1; ; try++ {
		resp, b = g.do(t, s, method, path, body, nil)
		if resp.StatusCode != http.StatusServiceUnavailable || (try >= 3 && time.Now().After(deadline)) {
			return resp, b, retried
		}
		retried = true
		time.Sleep(time.Second)
	}
}

// TestFollowerForwardsWrites sends writes to a follower of a group of
// three: it forwards them to the leader, whose answers (status, headers,
// body) come back; it refuses a request already forwarded once; reads it
// serves itself; and it answers 503 with Retry-After once no leader is
// left to forward to.
func TestFollowerForwardsWrites(t *testing.T) {
	g := startGroup(t, 3)
	leader, f := g.leader(), g.follower()
	// The follower forwards once it has applied the leader's addresses.
	waitUntil(t, func() bool { _, err := f.leaderREST(); return err == nil })

	// A write the leader refuses: its 404 and message come back, not the
	// follower's 503.
	resp, body := g.do(t, f, http.MethodDelete, "/v1/jobs/nope", "", nil)
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "nope") || resp.Header.Get(leaderHeader) != leader.RESTAddr() {
		t.Errorf("DELETE through a follower: %s %s, %s %q; want the leader's 404 from %s", resp.Status, body, leaderHeader, resp.Header.Get(leaderHeader), leader.RESTAddr())
	}
	// The follower answers once it has applied what the leader had when
	// it answered, so that the client reads its own write next.
	if n, err := strconv.ParseUint(resp.Header.Get(appliedHeader), 10, 64); err != nil || f.rlog.Applied() < n {
		t.Errorf("a forwarded answer with %s %q, the follower having applied %d", appliedHeader, resp.Header.Get(appliedHeader), f.rlog.Applied())
	}
	// A body goes through as it is: the leader's 400 names what it read.
	resp, body = g.do(t, f, http.MethodPatch, "/v1/jobs/nope", `{"parallelism": -7}`, http.Header{"Content-Type": {"application/json"}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "parallelism -7") || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("PATCH through a follower: %s %s, want the leader's 400 about parallelism -7", resp.Status, body)
	}
	// A request that was forwarded once is not forwarded again.
	resp, body = g.do(t, f, http.MethodDelete, "/v1/jobs/nope", "", http.Header{forwardedBy: {"elsewhere"}})
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "forwarded") {
		t.Errorf("a forwarded request to a follower: %s %s, want 503 with Retry-After", resp.Status, body)
	}
	// Reads are the follower's own.
	resp, body = g.do(t, f, http.MethodGet, "/v1/jobs", "", nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get(leaderHeader) != "" {
		t.Errorf("GET through a follower: %s %s, %s %q; want it served by the follower", resp.Status, body, leaderHeader, resp.Header.Get(leaderHeader))
	}
	// Except a job's logs, which only the leader can fetch from the task
	// managers.
	resp, body = g.do(t, f, http.MethodGet, "/v1/jobs/nope/logs", "", nil)
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "nope") || resp.Header.Get(leaderHeader) != leader.RESTAddr() {
		t.Errorf("GET logs through a follower: %s %s, %s %q; want the leader's 404 from %s", resp.Status, body, leaderHeader, resp.Header.Get(leaderHeader), leader.RESTAddr())
	}

	// Every member has made its addresses known, and GET /v1/cluster on
	// any member shows every member's applied index.
	for _, s := range g.servers {
		waitUntil(t, func() bool {
			st, err := s.Cluster(context.Background())
			return err == nil && allReachable(st)
		})
	}
	resp, body = g.do(t, f, http.MethodGet, "/v1/cluster", "", nil)
	var st api.ClusterStatus
	if err := json.Unmarshal([]byte(body), &st); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/cluster: %s %s", resp.Status, body)
	}
	for _, m := range st.Members {
		s := g.byID(m.ID)
		if s == nil || m.RESTAddr != s.RESTAddr() || m.RPCAddr != s.RPCAddr() || !m.Reachable || m.Applied == 0 || m.Leader != (s == leader) {
			t.Errorf("GET /v1/cluster on a follower shows the member %+v", m)
		}
	}

	// With the two others gone, the follower knows no leader to forward
	// to (or cannot reach the one it knew): 503 with Retry-After.
	for i, s := range g.servers {
		if s != f {
			g.stop[i]()
		}
	}
	resp, body = g.do(t, f, http.MethodDelete, "/v1/jobs/nope", "", nil)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("DELETE through a follower without a leader: %s %s, want 503 with Retry-After", resp.Status, body)
	}
	st, _ = f.Cluster(context.Background())
	for _, m := range st.Members {
		if m.Reachable != (m.ID == f.rlog.ID()) {
			t.Errorf("with two members gone, GET /v1/cluster shows %+v", m)
		}
	}
}

func allReachable(st api.ClusterStatus) bool {
	for _, m := range st.Members {
		if !m.Reachable || m.Applied == 0 {
			return false
		}
	}
	return len(st.Members) > 0
}

func (g *group) byID(id string) *Server {
	for _, s := range g.servers {
		if s.rlog.ID() == id {
			return s
		}
	}
	panic(fmt.Sprintf("no member %s", id))
}
