package scheduler

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/floe-stream/floe/internal/ckmeta"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/coordinator"
	"github.com/floe-stream/floe/scheduler/internal/placement"
)

// deployment is one DeployTask call to make.
type deployment struct {
	tm  *taskManager
	req *floev1.DeployTaskRequest
}

// place puts a waiting job on free slots and returns the deployments of
// its new attempt, or records why it waits. The caller holds s.mu.
func (s *Server) place(j *job) ([]deployment, bool) {
	var view []placement.TaskManager
	fresh := s.now().Add(-3 * s.cfg.HeartbeatInterval)
	for _, tm := range s.tms {
		// A task manager that has missed heartbeats is probably gone: do
		// not place new work on it while its timeout runs.
		if tm.lastHeartbeat.After(fresh) {
			view = append(view, placement.TaskManager{ID: tm.id, FreeSlots: tm.slots - tm.used})
		}
	}
	slots, err := placement.Place(view, j.slots)
	if err != nil {
		if msg := "waiting for slots: job " + err.Error(); j.message != msg {
			j.message = msg
		}
		return nil, false
	}
	for _, id := range slots {
		s.tms[id].used++
	}
	j.attempt++
	j.finishedSources = nil
	j.placement = slots
	j.lastPlacement = slots
	j.finalSent = false
	j.tasks = make([][]*taskInfo, len(j.plan.Stages))
	for si, st := range j.plan.Stages {
		for sub := 0; sub < st.Parallelism; sub++ {
			j.tasks[si] = append(j.tasks[si], &taskInfo{state: api.TaskDeploying, tm: slots[sub]})
		}
	}
	msg := fmt.Sprintf("attempt %d on %d slots", j.attempt, len(slots))
	if md := j.ckpts.latest(); md != nil {
		msg += fmt.Sprintf(", restoring checkpoint %d", md.ID)
	}
	s.setState(j, api.JobDeploying, msg)
	s.log.Info("deploying job", "job", j.id, "attempt", j.attempt, "slots", slots)
	d, err := s.deployments(j)
	if err != nil {
		s.failAttempt(j, err.Error())
		return nil, false
	}
	return d, true
}

// deployments builds the DeployTask requests of a job's current attempt.
// The caller holds s.mu.
func (s *Server) deployments(j *job) ([]deployment, error) {
	var out []deployment
	url := ""
	if j.ckpts != nil {
		url = j.ckpts.url
	}
	for si, st := range j.plan.Stages {
		var down []*floev1.Endpoint
		if si+1 < len(j.plan.Stages) {
			for sub := 0; sub < j.plan.Stages[si+1].Parallelism; sub++ {
				tm := s.tms[j.placement[sub]]
				down = append(down, &floev1.Endpoint{Subtask: int32(sub), TaskManagerId: tm.id, RpcAddr: tm.addr})
			}
		}
		up := 0
		if si > 0 {
			up = j.plan.Stages[si-1].Parallelism
		}
		for sub := 0; sub < st.Parallelism; sub++ {
			var restore []byte
			if j.ckpts != nil {
				var err error
				if restore, err = s.restoreFor(j, si, sub); err != nil {
					return nil, err
				}
			}
			out = append(out, deployment{tm: s.tms[j.placement[sub]], req: &floev1.DeployTaskRequest{
				CheckpointStorage:   url,
				Restore:             restore,
				Task:                &floev1.TaskID{JobId: j.id, Attempt: int32(j.attempt), Stage: int32(si), Subtask: int32(sub)},
				JobSpec:             j.spec,
				Params:              j.params,
				Parallelism:         int32(j.par),
				ModuleDigests:       j.digests,
				Downstream:          down,
				UpstreamParallelism: int32(up),
				StateRetentionMs:    s.cfg.StateRetention.Milliseconds(),
				OperatorParallelism: opPar(j.opPar),
			}})
		}
	}
	return out, nil
}

// deploy sends one DeployTask; a failed call fails the task.
func (s *Server) deploy(d deployment) {
	ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
	defer cancel()
	_, err := d.tm.client.DeployTask(ctx, d.req)
	if err == nil || s.ctx.Err() != nil {
		return
	}
	if status.Code(err) == codes.Unavailable {
		// The task manager is gone (its heartbeat has not timed out yet):
		// forget it and place the job again, without spending a restart
		// on a deployment that never ran.
		s.mu.Lock()
		if j, ok := s.jobs[d.req.Task.JobId]; ok && j.attempt == int(d.req.Task.Attempt) && j.state == api.JobDeploying {
			s.stopCheckpoints(j, "redeploying")
			s.stopAttempt(j)
			s.setState(j, api.JobWaiting, fmt.Sprintf("task manager %s unreachable during deployment; placing the job again", d.tm.id))
		}
		if tm, ok := s.tms[d.tm.id]; ok {
			s.loseTaskManager(tm, fmt.Sprintf("task manager %s at %s unreachable: %v", tm.id, tm.addr, err))
		}
		s.mu.Unlock()
		s.wake()
		return
	}
	s.taskStatus(d.tm.id, d.req.Task, floev1.TaskState_TASK_STATE_FAILED,
		fmt.Sprintf("deploying to task manager %s: %v", d.tm.id, err))
}

// UpdateTaskStatus implements floev1.SchedulerServer.
func (s *Server) UpdateTaskStatus(ctx context.Context, u *floev1.TaskStatusUpdate) (*floev1.UpdateTaskStatusResponse, error) {
	s.mu.Lock()
	if t := s.task(u.Task); t != nil && u.Metrics != nil {
		t.recordsIn, t.recordsOut, t.backPressure = u.Metrics.RecordsIn, u.Metrics.RecordsOut, u.Metrics.BackPressure
	}
	s.mu.Unlock()
	s.taskStatus(u.TaskManagerId, u.Task, u.State, u.Error, u.States...)
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

// taskStatus applies a task's state change to its job.
func (s *Server) taskStatus(tmID string, id *floev1.TaskID, state floev1.TaskState, msg string, states ...*floev1.DeclaredState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.task(id)
	j := s.jobs[id.GetJobId()]
	if t == nil || (j.state != api.JobDeploying && j.state != api.JobRunning) {
		return // a stale report of an earlier attempt or an ended job
	}
	t.state = taskStates[state]
	if len(states) > 0 {
		j.recordStates(int(id.Stage), states)
	}
	switch state {
	case floev1.TaskState_TASK_STATE_FAILED:
		t.err = msg
		stage := j.plan.Stages[id.Stage]
		s.failAttempt(j, fmt.Sprintf("task %s (%d/%d) on %s failed: %s", stage.Name, id.Subtask+1, stage.Parallelism, tmID, msg))
	case floev1.TaskState_TASK_STATE_RUNNING:
		if j.state == api.JobDeploying && j.all(api.TaskRunning, api.TaskFinished, api.TaskEnding) {
			if j.started.IsZero() {
				j.started = s.now()
			}
			s.setState(j, api.JobRunning, fmt.Sprintf("attempt %d running", j.attempt))
			s.rescaled(j)
			s.startCheckpoints(j)
		}
	case floev1.TaskState_TASK_STATE_ENDING, floev1.TaskState_TASK_STATE_FINISHED:
		s.taskEnded(j, id, state)
		if j.all(api.TaskFinished) {
			s.freeSlots(j)
			s.setState(j, api.JobFinished, "every task finished")
			s.log.Info("job finished", "job", j.id, "attempt", j.attempt)
		} else if !j.finalSent && j.all(api.TaskFinished, api.TaskEnding) {
			// Every input has ended: sinks may now commit their last output.
			j.finalSent = true
			s.notifyTasks(j, ckmeta.Final)
		}
	}
}

// all reports whether every task of the current attempt is in one of
// states.
func (j *job) all(states ...string) bool {
	for _, stage := range j.tasks {
		for _, t := range stage {
			ok := false
			for _, st := range states {
				ok = ok || t.state == st
			}
			if !ok {
				return false
			}
		}
	}
	return true
}

// failAttempt stops the current attempt after a failure and restarts the
// job if its restart strategy allows, else fails it. The caller holds s.mu.
func (s *Server) failAttempt(j *job, reason string) {
	s.log.Warn("job attempt failed", "job", j.id, "attempt", j.attempt, "reason", reason)
	s.stopCheckpoints(j, "attempt failed")
	if j.ckpts != nil {
		s.dropBadCheckpoint(j, reason)
	}
	s.stopAttempt(j)
	if j.restarts < j.strategy.Attempts {
		j.restarts++
		j.restartAt = s.now().Add(j.strategy.Delay)
		s.setState(j, api.JobRestarting, fmt.Sprintf("restart %d of %d in %s after: %s",
			j.restarts, j.strategy.Attempts, j.strategy.Delay, reason))
		return
	}
	s.setState(j, api.JobFailed, reason)
}

// stopAttempt cancels the current attempt's tasks and frees its slots. The
// caller holds s.mu.
func (s *Server) stopAttempt(j *job) {
	seen := map[string]bool{}
	for _, id := range j.placement {
		tm, ok := s.tms[id]
		if !ok || seen[id] {
			continue
		}
		seen[id] = true
		req := &floev1.CancelTasksRequest{JobId: j.id, Attempt: int32(j.attempt)}
		s.spawn(func() {
			ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
			defer cancel()
			if _, err := tm.client.CancelTasks(ctx, req); err != nil && s.ctx.Err() == nil {
				s.log.Warn("canceling tasks", "tm", tm.id, "job", req.JobId, "err", err)
			}
		})
	}
	for _, stage := range j.tasks {
		for _, t := range stage {
			if t.state == api.TaskDeploying || t.state == api.TaskRunning || t.state == api.TaskEnding {
				t.state = api.TaskCanceled
			}
		}
	}
	s.freeSlots(j)
}

// freeSlots returns a job's slots to their task managers. The caller holds
// s.mu.
func (s *Server) freeSlots(j *job) {
	for _, id := range j.placement {
		if tm, ok := s.tms[id]; ok {
			tm.used--
		}
	}
	j.placement = nil
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

// taskEnded adapts checkpointing to a task whose input has ended. A source
// that has read all its splits finishes while the others go on; later
// checkpoints record it as done, so a restore does not read its splits
// again. Any other ending task means every input has ended: checkpoints
// stop. The caller holds s.mu.
func (s *Server) taskEnded(j *job, id *floev1.TaskID, state floev1.TaskState) {
	if j.ckpts == nil {
		return
	}
	if id.Stage == 0 && j.plan.Stages[0].Sink == nil && state == floev1.TaskState_TASK_STATE_FINISHED {
		if j.finishedSources == nil {
			j.finishedSources = map[int]bool{}
		}
		j.finishedSources[int(id.Subtask)] = true
		s.checkpointActions(j, j.ckpts.coord.Finish(s.now(), coordinator.Task{Stage: 0, Subtask: int(id.Subtask)}))
		return
	}
	s.stopCheckpoints(j, "the job's input is ending")
}
