package taskmanager

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

// refusingScheduler takes status updates whose error is at most limit
// bytes, refusing the others as gRPC refuses a message over its limit.
type refusingScheduler struct {
	floev1.SchedulerClient
	limit int
	mu    sync.Mutex
	got   []*floev1.TaskStatusUpdate
}

func (s *refusingScheduler) UpdateTaskStatus(_ context.Context, u *floev1.TaskStatusUpdate, _ ...grpc.CallOption) (*floev1.UpdateTaskStatusResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(u.Error) > s.limit {
		return nil, status.Errorf(codes.ResourceExhausted, "grpc: received message larger than max (%d vs. %d)", len(u.Error), s.limit)
	}
	s.got = append(s.got, u)
	return &floev1.UpdateTaskStatusResponse{}, nil
}

// A task's failure reaches the scheduler whatever its error: a failure
// report of 8 MiB, over gRPC's 4 MiB, used to be refused and dropped,
// leaving its job RUNNING for ever (issue 16).
func TestATaskFailureIsReportedWhateverItsError(t *testing.T) {
	huge := strings.Repeat("x", 8<<20)
	for _, tc := range []struct {
		name  string
		limit int
		want  string
	}{
		{"cut to fit", 4 << 20, "xxx… (8388608 bytes)"},
		{"shortened when still refused", 1000, "xxx… (" + fmt.Sprint(maxReportedError+len("… (8388608 bytes)")) + " bytes) (the scheduler refused a longer report: ResourceExhausted)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &refusingScheduler{limit: tc.limit}
			tm := &TaskManager{log: slog.New(slog.DiscardHandler), ctx: context.Background(),
				tasks: map[taskKey]*running{}, ends: map[taskKey]*floev1.TaskStatusUpdate{}}
			tm.lead.Store(&schedConn{client: s})
			id := &floev1.TaskID{JobId: "j"}
			tm.ended(&running{id: id}, floev1.TaskState_TASK_STATE_FAILED, huge)
			if len(s.got) != 1 {
				t.Fatalf("the scheduler got %d updates, want the failure", len(s.got))
			}
			u := s.got[0]
			if u.State != floev1.TaskState_TASK_STATE_FAILED || !strings.HasSuffix(u.Error, tc.want) || len(u.Error) > maxReportedError+100 {
				t.Fatalf("got %s with an error of %d bytes ending %q; want FAILED ending %q",
					u.State, len(u.Error), u.Error[max(0, len(u.Error)-120):], tc.want)
			}
			if len(tm.ends) != 0 {
				t.Errorf("%d ends still kept after the scheduler took one", len(tm.ends))
			}
		})
	}
}

// A task holds an OS thread: past Config.MaxTasks a deployment is refused
// rather than the process killed by "thread exhaustion" (issue 16).
func TestDeploymentsPastMaxTasksAreRefused(t *testing.T) {
	tm := &TaskManager{cfg: Config{MaxTasks: 1}, ctx: context.Background(),
		tasks: map[taskKey]*running{{job: "a"}: {}}, canceled: map[attemptKey]time.Time{}}
	_, err := tm.DeployTask(context.Background(), &floev1.DeployTaskRequest{Task: &floev1.TaskID{JobId: "b"}})
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "--max-tasks") {
		t.Fatalf("got %v, want ResourceExhausted naming --max-tasks", err)
	}
	if _, err := New(Config{Slots: 2, MaxTasks: 1}); err == nil || !strings.Contains(err.Error(), "--max-tasks") {
		t.Fatalf("New with more slots than tasks: %v", err)
	}
}
