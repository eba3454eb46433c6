package taskmanager

import (
	"context"
	"log/slog"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/floe-stream/floe/host/tasklog"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

// guestLogger returns the logger of the guests of task id: every line
// goes, with the job's secret parameters redacted, to the task's ring in
// tm.logs (which the scheduler fetches when a user asks) and on to this
// task manager's log.
func (tm *TaskManager) guestLogger(id *floev1.TaskID, redact func(string) string) *slog.Logger {
	sub := tasklog.Subtask{Job: id.JobId, Stage: int(id.Stage), Subtask: int(id.Subtask)}
	return redactLogger(slog.New(tm.logs.Handler(sub, int(id.Attempt), tm.log.Handler())), redact)
}

// FetchLogs implements floev1.TaskManagerServer.
func (tm *TaskManager) FetchLogs(ctx context.Context, req *floev1.FetchLogsRequest) (*floev1.FetchLogsResponse, error) {
	if req.JobId == "" {
		return nil, status.Error(codes.InvalidArgument, "fetch logs: no job id")
	}
	if req.Subtask != nil && req.Stage == nil {
		return nil, status.Error(codes.InvalidArgument, "fetch logs: a subtask needs a stage")
	}
	f := tasklog.Filter{Job: req.JobId}
	if req.Stage != nil {
		stage := int(*req.Stage)
		f.Stage = &stage
	}
	if req.Subtask != nil {
		sub := int(*req.Subtask)
		f.Subtask = &sub
	}
	lines, more := tm.logs.Fetch(f, req.Since, int(req.Limit))
	resp := &floev1.FetchLogsResponse{Lines: make([]*floev1.LogLine, len(lines)), More: more}
	for i, l := range lines {
		resp.Lines[i] = &floev1.LogLine{Seq: l.Seq, TimeUnixNano: l.Time.UnixNano(), Level: int32(l.Level),
			Task:     &floev1.TaskID{JobId: l.Task.Job, Attempt: int32(l.Attempt), Stage: int32(l.Task.Stage), Subtask: int32(l.Task.Subtask)},
			Operator: l.Operator, Message: l.Message}
	}
	return resp, nil
}
