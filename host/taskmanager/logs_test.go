package taskmanager

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/floe-stream/floe/host/tasklog"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

// TestGuestLinesAreKeptRedacted logs through the guest logger of two
// subtasks and fetches the lines back: the job's secret is hidden in the
// ring as in the task manager's own log, and the filters select.
func TestGuestLinesAreKeptRedacted(t *testing.T) {
	var own strings.Builder
	tm := &TaskManager{log: slog.New(slog.NewTextHandler(&own, nil)), logs: tasklog.New(tasklog.Config{})}
	redact := func(s string) string { return strings.ReplaceAll(s, "hunter2", "[secret]") }
	for sub := range int32(2) {
		log := tm.guestLogger(&floev1.TaskID{JobId: "j", Attempt: 4, Stage: 1, Subtask: sub}, redact).With("operator", "op")
		log.Info("password is hunter2")
	}
	tm.guestLogger(&floev1.TaskID{JobId: "other", Stage: 1}, redact).Info("not this job")
	ctx := context.Background()
	resp, err := tm.FetchLogs(ctx, &floev1.FetchLogsRequest{JobId: "j"})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Lines) != 2 || resp.More {
		t.Fatalf("%d lines (more %t), want 2", len(resp.Lines), resp.More)
	}
	for i, l := range resp.Lines {
		if l.Message != "password is [secret]" || l.Operator != "op" || l.Task.JobId != "j" || l.Task.Attempt != 4 ||
			l.Task.Stage != 1 || l.Task.Subtask != int32(i) || l.Level != int32(slog.LevelInfo) || l.Seq == 0 || l.TimeUnixNano == 0 {
			t.Errorf("line %d = %v", i, l)
		}
	}
	if strings.Contains(own.String(), "hunter2") || strings.Count(own.String(), "password is [secret]") != 2 {
		t.Errorf("the task manager's own log:\n%s", own.String())
	}
	stage, sub := int32(1), int32(1)
	resp, err = tm.FetchLogs(ctx, &floev1.FetchLogsRequest{JobId: "j", Stage: &stage, Subtask: &sub, Since: resp.Lines[0].Seq})
	if err != nil || len(resp.Lines) != 1 || resp.Lines[0].Task.Subtask != 1 {
		t.Errorf("subtask 1 since the first line: %v (%v)", resp, err)
	}
	for _, bad := range []*floev1.FetchLogsRequest{{}, {JobId: "j", Subtask: &sub}} {
		if _, err := tm.FetchLogs(ctx, bad); status.Code(err) != codes.InvalidArgument {
			t.Errorf("FetchLogs(%v): %v, want InvalidArgument", bad, err)
		}
	}
}
