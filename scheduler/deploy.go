package scheduler

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	floev1 "github.com/floe-stream/floe/proto/floe/v1"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/lifecycle"
)

// execDeploy sends the DeployTask call the lifecycle asked for. The caller
// holds s.mu.
func (s *Server) execDeploy(a lifecycle.Deploy) {
	j := s.jobs[a.Task.Job]
	var down []*floev1.Endpoint
	for _, e := range a.Downstream {
		down = append(down, &floev1.Endpoint{Subtask: int32(e.Subtask), TaskManagerId: e.TaskManager, RpcAddr: e.Addr})
	}
	req := &floev1.DeployTaskRequest{
		CheckpointStorage:   j.url,
		Restore:             a.Restore,
		Task:                taskID(a.Task),
		JobSpec:             j.spec,
		Params:              j.params,
		Parallelism:         int32(a.Parallelism),
		ModuleDigests:       j.digests,
		Downstream:          down,
		UpstreamParallelism: int32(a.UpstreamParallelism),
		StateRetentionMs:    s.cfg.StateRetention.Milliseconds(),
		OperatorParallelism: opPar(a.OperatorParallelism),
	}
	if tm, ok := s.tms[a.TaskManager]; ok {
		s.spawn(func() { s.deploy(tm, a.Task, req) })
	}
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
		s.apply(func(now time.Time) []lifecycle.Action { return s.m.DeployUnreachable(now, task, tm.id, err.Error()) })
		s.wake()
		return
	}
	msg := fmt.Sprintf("deploying to task manager %s: %v", tm.id, err)
	s.apply(func(now time.Time) []lifecycle.Action {
		return s.m.TaskStatus(now, tm.id, task, api.TaskFailed, msg, nil)
	})
}

// UpdateTaskStatus implements floev1.SchedulerServer.
func (s *Server) UpdateTaskStatus(ctx context.Context, u *floev1.TaskStatusUpdate) (*floev1.UpdateTaskStatusResponse, error) {
	task := fromTaskID(u.Task)
	var states []lifecycle.Declared
	for _, d := range u.States {
		states = append(states, lifecycle.Declared{Name: d.Name, Queryable: d.Queryable, Type: d.Type, Kind: d.Kind})
	}
	s.apply(func(now time.Time) []lifecycle.Action {
		if u.Metrics != nil {
			s.m.Metrics(task, u.Metrics.RecordsIn, u.Metrics.RecordsOut, u.Metrics.BackPressure)
		}
		return s.m.TaskStatus(now, u.TaskManagerId, task, taskStates[u.State], u.Error, states)
	})
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
