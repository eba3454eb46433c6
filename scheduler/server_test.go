package scheduler

import (
	"context"
	"testing"
	"time"

	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

// TestClockDrivesHeartbeatTimeout checks that the server times its
// lifecycle with Config.Now: a task manager is lost once the injected
// clock, not the wall clock, passes its heartbeat timeout.
func TestClockDrivesHeartbeatTimeout(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	s, err := NewServer(Config{RPCAddr: "127.0.0.1:0", DataDir: t.TempDir(), HeartbeatTimeout: 10 * time.Second,
		Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	ctx := context.Background()
	reg, err := s.Register(ctx, &floev1.RegisterRequest{RpcAddr: "127.0.0.1:1", Slots: 2})
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(9 * time.Second)
	if hb, _ := s.Heartbeat(ctx, &floev1.HeartbeatRequest{TaskManagerId: reg.TaskManagerId}); !hb.Known {
		t.Fatalf("task manager %s unknown after registering", reg.TaskManagerId)
	}
	now = now.Add(10 * time.Second)
	s.step()
	if tms, _ := s.TaskManagers(ctx); len(tms) != 1 || !tms[0].LastHeartbeat.Equal(now.Add(-10*time.Second)) {
		t.Fatalf("task managers 10s after a heartbeat: %+v", tms)
	}
	now = now.Add(time.Millisecond)
	s.step()
	if tms, _ := s.TaskManagers(ctx); len(tms) != 0 {
		t.Fatalf("task managers past the heartbeat timeout: %+v", tms)
	}
	if hb, _ := s.Heartbeat(ctx, &floev1.HeartbeatRequest{TaskManagerId: reg.TaskManagerId}); hb.Known {
		t.Fatal("a lost task manager is still known")
	}
}
