package scheduler

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	floev1 "github.com/floe-stream/floe/proto/floe/v1"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/rest"
)

// TestRestartKeepsTaskManagerIDs restarts a single scheduler
// on the same data directory: the task manager it knew must register
// again (its heartbeat is answered UNAVAILABLE meanwhile), keeps its id,
// and gets a higher term.
func TestRestartKeepsTaskManagerIDs(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := NewServer(Config{RPCAddr: "127.0.0.1:0", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := s.Register(ctx, &floev1.RegisterRequest{RpcAddr: "127.0.0.1:1", Slots: 2})
	if err != nil {
		t.Fatal(err)
	}
	if reg.Term == 0 {
		t.Error("Register answered term 0")
	}
	s.close()

	s, err = NewServer(Config{RPCAddr: "127.0.0.1:0", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	_, err = s.Heartbeat(ctx, &floev1.HeartbeatRequest{TaskManagerId: reg.TaskManagerId})
	if status.Code(err) != codes.Unavailable {
		t.Fatalf("heartbeat of a task manager to register again: %v, want UNAVAILABLE", err)
	}
	again, err := s.Register(ctx, &floev1.RegisterRequest{RpcAddr: "127.0.0.1:1", Slots: 2, PreviousId: reg.TaskManagerId})
	if err != nil {
		t.Fatal(err)
	}
	if again.TaskManagerId != reg.TaskManagerId || again.Term <= reg.Term {
		t.Errorf("registered again as %s in term %d, want %s in a term above %d", again.TaskManagerId, again.Term, reg.TaskManagerId, reg.Term)
	}
	if hb, err := s.Heartbeat(ctx, &floev1.HeartbeatRequest{TaskManagerId: reg.TaskManagerId}); err != nil || !hb.Known {
		t.Errorf("heartbeat after registering again: %v, %v", hb, err)
	}
	rec := httptest.NewRecorder()
	rest.New(s, rest.Options{}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/cluster", nil))
	var st api.ClusterStatus
	if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("GET /v1/cluster: %d %s", rec.Code, rec.Body)
	}
	if len(st.Members) != 1 || !st.Members[0].Leader || st.Members[0].Applied == 0 || st.Leader == "" {
		t.Errorf("GET /v1/cluster of a single scheduler: %+v", st)
	}
}

// TestRestartFromASnapshot compacts the log into a snapshot, then adds to
// it, and restarts the scheduler: it restores the snapshot, replays the
// rest, and knows the task managers of both.
func TestRestartFromASnapshot(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := NewServer(Config{RPCAddr: "127.0.0.1:0", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.Register(ctx, &floev1.RegisterRequest{RpcAddr: "127.0.0.1:1", Slots: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.rlog.Snapshot(); err != nil {
		t.Fatal(err)
	}
	second, err := s.Register(ctx, &floev1.RegisterRequest{RpcAddr: "127.0.0.1:2", Slots: 3})
	if err != nil {
		t.Fatal(err)
	}
	s.close()

	s, err = NewServer(Config{RPCAddr: "127.0.0.1:0", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	tms, _ := s.TaskManagers(ctx)
	if len(tms) != 2 || tms[0].ID != first.TaskManagerId || tms[1].ID != second.TaskManagerId || tms[1].Slots != 3 {
		t.Fatalf("task managers after a restart from a snapshot: %+v", tms)
	}
}

// TestGroupOfThree starts three schedulers as one group: one leads and
// accepts task managers; the others refuse them with UNAVAILABLE and
// refuse the Service's writes (REST forwards them: TestFollowerForwardsWrites),
// but apply the leader's log.
func TestGroupOfThree(t *testing.T) {
	ctx := context.Background()
	var peers []string
	for range 3 {
		peers = append(peers, freeAddr(t))
	}
	var servers []*Server
	for i, p := range peers {
		s, err := NewServer(Config{RPCAddr: "127.0.0.1:0", DataDir: filepath.Join(t.TempDir(), p), RaftAddr: p, RaftPeers: peers,
			ElectionTimeout: time.Second})
		if err != nil {
			t.Fatalf("scheduler %d: %v", i, err)
		}
		defer s.close()
		servers = append(servers, s)
	}
	var leader *Server
	deadline := time.Now().Add(30 * time.Second)
	for leader == nil && time.Now().Before(deadline) {
		for _, s := range servers {
			if s.isLeading() {
				leader = s
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if leader == nil {
		t.Fatal("no scheduler of the group leads after 30s")
	}
	reg, err := leader.Register(ctx, &floev1.RegisterRequest{RpcAddr: "127.0.0.1:1", Slots: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range servers {
		if s == leader {
			continue
		}
		if _, err := s.Register(ctx, &floev1.RegisterRequest{RpcAddr: "127.0.0.1:2", Slots: 2}); status.Code(err) != codes.Unavailable {
			t.Errorf("a follower's Register: %v, want UNAVAILABLE", err)
		}
		if err := s.Cancel(ctx, "nope"); !errors.Is(err, api.ErrUnavailable) {
			t.Errorf("a follower's Cancel: %v, want ErrUnavailable", err)
		}
		// The follower applies the leader's log: it lists the task manager.
		waitUntil(t, func() bool {
			tms, _ := s.TaskManagers(ctx)
			return len(tms) == 1 && tms[0].ID == reg.TaskManagerId
		})
	}
	st, err := leader.Cluster(ctx)
	if err != nil || len(st.Members) != 3 || st.Leader == "" {
		t.Errorf("the leader's view of the group: %+v, %v", st, err)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
