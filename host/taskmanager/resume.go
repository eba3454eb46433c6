package taskmanager

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/floe-stream/floe/host/task"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

// A partial rescale (scheduler/internal/lifecycle/partial.go) suspends
// every task at its checkpoint (TriggerCheckpoint with suspend), cancels
// the tasks of the stages it replaces one by one (cancelSome) and resumes
// the others (ResumeTask) with new channels: this task manager plans the
// job again at the new parallelism, wires the task anew, hands the task
// the new wiring and releases the old.

// cancelSome cancels the given tasks; their attempt goes on.
func (tm *TaskManager) cancelSome(ids []*floev1.TaskID) {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	for _, id := range ids {
		if r, ok := tm.tasks[keyOf(id)]; ok {
			r.cancel()
		}
	}
}

// ResumeTask implements floev1.TaskManagerServer.
func (tm *TaskManager) ResumeTask(ctx context.Context, req *floev1.ResumeTaskRequest) (*floev1.ResumeTaskResponse, error) {
	if err := tm.fence(req.Term); err != nil {
		return nil, err
	}
	if req.Task == nil {
		return nil, status.Error(codes.InvalidArgument, "resume: no task id")
	}
	tm.mu.Lock()
	r, ok := tm.tasks[keyOf(req.Task)]
	tm.mu.Unlock()
	if !ok {
		return nil, status.Errorf(codes.NotFound, "resume: task %v does not run here", keyOf(req.Task))
	}
	r.mu.Lock()
	t, dep := r.task, r.req
	r.mu.Unlock()
	if t == nil {
		return nil, status.Errorf(codes.FailedPrecondition, "resume: task %v has not started", keyOf(req.Task))
	}
	p, err := tm.planAt(ctx, dep, req.Parallelism, req.OperatorParallelism)
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "resume: planning the job: %v", err)
	}
	if req.ChannelAttempt <= req.Task.Attempt {
		return nil, status.Errorf(codes.InvalidArgument, "resume: channels of attempt %d for a task of attempt %d", req.ChannelAttempt, req.Task.Attempt)
	}
	io, release, err := tm.wire(p, req.Task, req.ChannelAttempt, req.Downstream, req.UpstreamParallelism)
	if err == nil {
		err = t.Resume(task.Rewire{Plan: p, IO: io})
	}
	if err != nil {
		release()
		return nil, status.Errorf(codes.FailedPrecondition, "resume: %v", err)
	}
	// NB: the task reads and sends nothing while suspended: its old
	// channels can go now. The new ones are released with the task.
	r.mu.Lock()
	old := r.wiring
	r.wiring = release
	r.mu.Unlock()
	old()
	return &floev1.ResumeTaskResponse{}, nil
}
