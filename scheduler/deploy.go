package scheduler

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	floev1 "github.com/floe-stream/floe/proto/floe/v1"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/journal"
	"github.com/floe-stream/floe/scheduler/internal/lifecycle"
)

// execDeploy sends the DeployTask call the lifecycle asked for. The caller
// holds s.mu.
func (s *Server) execDeploy(a lifecycle.Deploy) {
	j := s.fsm.Submitted(a.Task.Job)
	down := endpoints(a.Downstream)
	// NB: Params holds the values of the job's secret parameters too, which
	// the task manager needs to run it. They cross this hop in clear until
	// the connection uses TLS (issue 16 item 1), which must protect it, as it
	// must the submission and the HA group's log.
	req := &floev1.DeployTaskRequest{
		CheckpointStorage:   j.CheckpointURL,
		Restore:             a.Restore,
		Task:                taskID(a.Task),
		JobSpec:             j.Spec,
		Params:              j.Params,
		Parallelism:         int32(a.Parallelism),
		ModuleDigests:       j.Digests,
		Downstream:          down,
		UpstreamParallelism: int32(a.UpstreamParallelism),
		StateRetentionMs:    s.cfg.StateRetention.Milliseconds(),
		OperatorParallelism: opPar(a.OperatorParallelism),
		Term:                int64(s.term),
	}
	if tm, ok := s.tms[a.TaskManager]; ok {
		s.spawn(func() { s.deploy(tm, a.Task, req) })
	}
}

// endpoints are downstream endpoints as DeployTask and ResumeTask take
// them.
func endpoints(eps []lifecycle.Endpoint) []*floev1.Endpoint {
	var down []*floev1.Endpoint
	for _, e := range eps {
		down = append(down, &floev1.Endpoint{Subtask: int32(e.Subtask), TaskManagerId: e.TaskManager, RpcAddr: e.Addr, Attempt: int32(e.Attempt)})
	}
	return down
}

// execResume sends the ResumeTask call the lifecycle asked for; a failed
// call is reported as ResumeFailed. The caller holds s.mu.
func (s *Server) execResume(a lifecycle.Resume) {
	req := &floev1.ResumeTaskRequest{Task: taskID(a.Task), Downstream: endpoints(a.Downstream), UpstreamParallelism: int32(a.UpstreamParallelism),
		Parallelism: int32(a.Parallelism), OperatorParallelism: opPar(a.OperatorParallelism), ChannelAttempt: int32(a.ChannelAttempt), Term: int64(s.term)}
	s.call(a.TaskManager, func(ctx context.Context, tm *taskManager) {
		if _, err := tm.client.ResumeTask(ctx, req); err != nil && s.ctx.Err() == nil {
			s.event(journal.ResumeFailed{At: s.now(), Task: a.Task, TaskManager: tm.id, Err: err.Error()})
			s.wake()
		}
	})
}

// deploy sends one DeployTask; a failed call fails the task, and an
// unreachable task manager is reported as such.
func (s *Server) deploy(tm *taskManager, task lifecycle.TaskID, req *floev1.DeployTaskRequest) {
	ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
	defer cancel()
	_, err := tm.client.DeployTask(ctx, req)
	if err == nil || s.ctx.Err() != nil {
		return
	}
	if status.Code(err) == codes.Unavailable {
		s.event(journal.DeployUnreachable{At: s.now(), Task: task, TaskManager: tm.id, Err: err.Error()})
		s.wake()
		return
	}
	msg := fmt.Sprintf("deploying to task manager %s: %v", tm.id, err)
	s.event(journal.TaskStatus{At: s.now(), TaskManager: tm.id, Task: task, State: api.TaskFailed, Message: msg})
}

// UpdateTaskStatus implements floev1.SchedulerServer.
func (s *Server) UpdateTaskStatus(ctx context.Context, u *floev1.TaskStatusUpdate) (*floev1.UpdateTaskStatusResponse, error) {
	task := fromTaskID(u.Task)
	var states []lifecycle.Declared
	for _, d := range u.States {
		states = append(states, lifecycle.Declared{Name: d.Name, Queryable: d.Queryable, Type: d.Type, Kind: d.Kind})
	}
	s.mu.Lock()
	_, registered := s.tms[u.TaskManagerId]
	if registered && u.Metrics != nil {
		s.taskMetrics(task, sampleOf(u.Metrics, s.now()))
	}
	s.mu.Unlock()
	if !registered && s.isLeading() {
		// NB: a task manager that has not registered with this leader keeps
		// what it reports, a task's end in particular, and reports it again
		// when it registers.
		return nil, status.Errorf(codes.Unavailable, "task manager %s is not registered with this scheduler; register first", u.TaskManagerId)
	}
	c := journal.TaskStatus{At: s.now(), TaskManager: u.TaskManagerId, Task: task, State: taskStates[u.State], Message: u.Error, States: states,
		Failure: failure(u.Failure)}
	if _, err := s.propose(ctx, c); err != nil {
		return nil, rpcError(err)
	}
	return &floev1.UpdateTaskStatusResponse{}, nil
}

var taskStates = map[floev1.TaskState]string{
	floev1.TaskState_TASK_STATE_DEPLOYING: api.TaskDeploying,
	floev1.TaskState_TASK_STATE_RUNNING:   api.TaskRunning,
	floev1.TaskState_TASK_STATE_FINISHED:  api.TaskFinished,
	floev1.TaskState_TASK_STATE_FAILED:    api.TaskFailed,
	floev1.TaskState_TASK_STATE_CANCELED:  api.TaskCanceled,
	floev1.TaskState_TASK_STATE_ENDING:    api.TaskEnding,
}

func opPar(m map[string]int) map[string]int32 {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]int32, len(m))
	for k, v := range m {
		out[k] = int32(v)
	}
	return out
}
