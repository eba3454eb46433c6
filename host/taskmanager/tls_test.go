package taskmanager

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/floe-stream/floe/internal/tlsconf"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

// TestTLSRefusesClientCertificates calls a task manager that runs TLS with
// a client's certificate from the cluster CA: its deploy, resume, cancel
// and exchange calls are refused. A scheduler's certificate and another task
// manager's are admitted.
func TestTLSRefusesClientCertificates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	if _, err := tlsconf.Init(dir, tlsconf.InitOptions{}); err != nil {
		t.Fatal(err)
	}
	load := func(r tlsconf.Role) *tlsconf.Config {
		c, err := tlsconf.Load(tlsconf.Dir(filepath.Join(dir, string(r))))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	tm, err := New(Config{Scheduler: "127.0.0.1:1", RPCAddr: "127.0.0.1:0", Slots: 1, DataDir: t.TempDir(),
		TLS: load(tlsconf.TaskManager)})
	if err != nil {
		t.Fatal(err)
	}
	defer tm.close()
	// Serve without registering: the calls under test need no scheduler.
	tm.spawn(func() { tm.grpc.Serve(tm.lis) })

	for _, tt := range []struct {
		role tlsconf.Role
		ok   bool
	}{
		{tlsconf.Client, false},
		{tlsconf.Scheduler, true},
		{tlsconf.TaskManager, true},
	} {
		t.Run(string(tt.role), func(t *testing.T) {
			conn, err := grpc.NewClient(tm.Addr(), load(tt.role).DialOption(tlsconf.TaskManager))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			refused := func(what string, err error) {
				t.Helper()
				c := status.Code(err)
				denied := c == codes.Unavailable || c == codes.Unauthenticated || c == codes.PermissionDenied
				if denied != !tt.ok {
					t.Errorf("%s with a %s's certificate: %v", what, tt.role, err)
				}
			}
			_, err = floev1.NewTaskManagerClient(conn).CancelTasks(ctx, &floev1.CancelTasksRequest{JobId: "j"})
			refused("cancel", err)
			if !tt.ok {
				_, err = floev1.NewTaskManagerClient(conn).DeployTask(ctx, &floev1.DeployTaskRequest{})
				refused("deploy", err)
				_, err = floev1.NewTaskManagerClient(conn).ResumeTask(ctx, &floev1.ResumeTaskRequest{})
				refused("resume", err)
			}
			stream, err := floev1.NewExchangeClient(conn).Transfer(ctx)
			if err == nil {
				// An empty first message names no channel: an admitted
				// caller is told so, a refused one never gets that far.
				stream.Send(&floev1.TransferMessage{})
				_, err = stream.Recv()
			}
			refused("exchange", err)
		})
	}
}
