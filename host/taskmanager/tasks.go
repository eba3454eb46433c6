package taskmanager

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/floe-stream/floe/host/connector"
	_ "github.com/floe-stream/floe/host/connector/builtin" // the connectors that specs name
	"github.com/floe-stream/floe/host/eventtime"
	"github.com/floe-stream/floe/host/exchange"
	"github.com/floe-stream/floe/host/metrics"
	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/task"
	"github.com/floe-stream/floe/host/transport"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

// taskKey names a subtask of a job attempt.
type taskKey struct {
	job                     string
	attempt, stage, subtask int32
}

func keyOf(id *floev1.TaskID) taskKey {
	return taskKey{id.JobId, id.Attempt, id.Stage, id.Subtask}
}

// attemptKey names an attempt of a job.
type attemptKey struct {
	job     string
	attempt int32
}

// DefaultMaxTasks is Config.MaxTasks's default. Each task holds an OS
// thread (runtime.LockOSThread) for as long as it runs, and Go stops a
// process at 10,000 threads ("thread exhaustion", debug.SetMaxThreads):
// the rest is left to threads blocked in system calls and to the runtime.
const DefaultMaxTasks = 1024

// running is a deployed task.
type running struct {
	id     *floev1.TaskID
	cancel context.CancelFunc

	mu           sync.Mutex
	task         *task.Task
	lastBlocked  time.Duration
	lastIdle     time.Duration
	lastSnapshot time.Duration
	lastAt       time.Time
	lags         []connector.PartitionLag
	// state is what the task last reported, RUNNING (also before it
	// started) or ENDING; states are its declared states.
	state  floev1.TaskState
	states []*floev1.DeclaredState
	// req is the deployment; wiring releases the task's channels, which
	// a resume after a partial rescale replaces (resume.go).
	req    *floev1.DeployTaskRequest
	wiring func()
}

// status is the task's current state, as a re-registration reports it.
func (r *running) status() *floev1.TaskStatusUpdate {
	r.mu.Lock()
	state, states := r.state, r.states
	r.mu.Unlock()
	return &floev1.TaskStatusUpdate{Task: r.id, State: state, States: states, Metrics: r.metrics(r.id)}
}

// setState records the state the task reports.
func (r *running) setState(state floev1.TaskState, states []*floev1.DeclaredState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.state = state
	if states != nil {
		r.states = states
	}
}

// DeployTask implements floev1.TaskManagerServer: it starts the task and
// returns; the task reports its progress with UpdateTaskStatus.
func (tm *TaskManager) DeployTask(ctx context.Context, req *floev1.DeployTaskRequest) (*floev1.DeployTaskResponse, error) {
	if err := tm.fence(req.Term); err != nil {
		return nil, err
	}
	if req.Task == nil {
		return nil, status.Error(codes.InvalidArgument, "deploy: no task id")
	}
	key := keyOf(req.Task)
	rctx, cancel := context.WithCancel(tm.ctx)
	r := &running{id: req.Task, cancel: cancel, lastAt: time.Now(), state: floev1.TaskState_TASK_STATE_RUNNING, req: req}
	tm.mu.Lock()
	if _, gone := tm.canceled[attemptKey{key.job, key.attempt}]; gone {
		tm.mu.Unlock()
		cancel()
		return nil, status.Errorf(codes.FailedPrecondition, "deploy: attempt %d of job %s was canceled", key.attempt, key.job)
	}
	if len(tm.tasks) >= tm.cfg.MaxTasks {
		tm.mu.Unlock()
		cancel()
		return nil, status.Errorf(codes.ResourceExhausted, "deploy: this task manager runs %d tasks, its maximum (--max-tasks): each task holds an OS thread", len(tm.tasks))
	}
	if _, dup := tm.tasks[key]; dup {
		tm.mu.Unlock()
		cancel()
		return nil, status.Errorf(codes.AlreadyExists, "deploy: task %v is already running", key)
	}
	tm.tasks[key] = r
	tm.mu.Unlock()
	tm.spawn(func() { tm.runTask(rctx, r, req) })
	return &floev1.DeployTaskResponse{}, nil
}

// CancelTasks implements floev1.TaskManagerServer.
func (tm *TaskManager) CancelTasks(ctx context.Context, req *floev1.CancelTasksRequest) (*floev1.CancelTasksResponse, error) {
	if err := tm.fence(req.Term); err != nil {
		return nil, err
	}
	if len(req.Tasks) > 0 {
		tm.cancelSome(req.Tasks)
		return &floev1.CancelTasksResponse{}, nil
	}
	tm.mu.Lock()
	// A DeployTask of this attempt still on its way must not start a task
	// after the cancel.
	tm.canceled[attemptKey{req.JobId, req.Attempt}] = time.Now()
	for a, at := range tm.canceled {
		if time.Since(at) > 10*time.Minute {
			delete(tm.canceled, a)
		}
	}
	for k, r := range tm.tasks {
		if k.job == req.JobId && k.attempt == req.Attempt {
			r.cancel()
		}
	}
	tm.mu.Unlock()
	tm.expireKept(req.JobId)
	return &floev1.CancelTasksResponse{}, nil
}

// cancelAll cancels every task.
func (tm *TaskManager) cancelAll(reason string) {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	if len(tm.tasks) > 0 {
		tm.log.Warn("canceling all tasks", "reason", reason, "tasks", len(tm.tasks))
	}
	for _, r := range tm.tasks {
		r.cancel()
	}
}

// runTask sets a task up, runs it and reports how it ended.
func (tm *TaskManager) runTask(ctx context.Context, r *running, req *floev1.DeployTaskRequest) {
	key := keyOf(req.Task)
	defer r.cancel()
	if tm.cfg.TaskNice > 0 {
		if err := backgroundThread(tm.cfg.TaskNice); err != nil {
			tm.log.Warn("cannot lower the task thread's priority", "err", err)
		}
	}
	tm.cfg.Runtime.taskStarted()
	defer tm.cfg.Runtime.taskEnded()
	t, cleanup, err := tm.setup(ctx, r, req)
	defer cleanup()
	if err == nil {
		r.mu.Lock()
		r.task = t
		r.mu.Unlock()
		exported := tm.exporter.AddTask(metrics.TaskID{Job: key.job, Stage: int(key.stage), Subtask: int(key.subtask), Attempt: int(key.attempt)}, t)
		err = t.Run(ctx)
		exported()
	}
	switch {
	case ctx.Err() != nil:
		tm.ended(r, floev1.TaskState_TASK_STATE_CANCELED, "")
	case err != nil:
		msg := redactor(req)(err.Error())
		tm.log.Warn("task failed", "task", key, "err", msg)
		tm.endedWith(r, floev1.TaskState_TASK_STATE_FAILED, msg, failureOf(err))
	default:
		if retention := time.Duration(req.StateRetentionMs) * time.Millisecond; retention > 0 && t != nil {
			// The state stays open, and on disk, for lookups.
			tm.keep(key, t, retention, tm.stateDir(req.Task))
			tm.ended(r, floev1.TaskState_TASK_STATE_FINISHED, "")
			return
		}
		tm.ended(r, floev1.TaskState_TASK_STATE_FINISHED, "")
	}
	os.RemoveAll(tm.stateDir(req.Task))
}

// stateDir is where a task keeps its pebble state.
func (tm *TaskManager) stateDir(id *floev1.TaskID) string {
	return filepath.Join(tm.cfg.DataDir, "state", id.JobId, fmt.Sprint(id.Attempt), fmt.Sprintf("%d-%d", id.Stage, id.Subtask))
}

// setup plans the task's job and wires the task's input and output. The
// returned cleanup releases what setup acquired, whatever happened.
func (tm *TaskManager) setup(ctx context.Context, r *running, req *floev1.DeployTaskRequest) (*task.Task, func(), error) {
	var cleanups []func()
	cleanup := func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}
	p, err := tm.planJob(ctx, req)
	if err != nil {
		return nil, cleanup, err
	}
	if err := tm.checkPaths(p.Job, req.CheckpointStorage); err != nil {
		return nil, cleanup, err
	}
	id := req.Task
	if int(id.Stage) >= len(p.Stages) || int(id.Subtask) >= p.Stages[id.Stage].Parallelism {
		return nil, cleanup, fmt.Errorf("task %v is not in the job's plan", keyOf(id))
	}
	io, release, err := tm.wire(p, id, id.Attempt, req.Downstream, req.UpstreamParallelism)
	r.mu.Lock()
	r.wiring = release
	r.mu.Unlock()
	cleanups = append(cleanups, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.wiring()
	})
	if err != nil {
		return nil, cleanup, err
	}
	ckpts, restore, err := tm.checkpointing(ctx, r, req)
	if err != nil {
		return nil, cleanup, err
	}
	stateDir := tm.stateDir(id)
	env := task.Env{
		Module: func(ctx context.Context, name string) (*udf.Module, error) {
			return tm.modules.module(ctx, name, req.ModuleDigests[name])
		},
		OpenState: func(stage, sub int) (task.StateBackend, error) {
			return task.OpenStateWithin(p.Job.State.Backend, stateDir, tm.stateMemory())
		},
		Stdout: tm.cfg.Stdout, Logger: redactLogger(tm.log, p.Job.Redact), GuestLogger: tm.guestLogger(id, p.Job.Redact), BatchSize: tm.cfg.BatchSize, CallTimeout: tm.cfg.CallTimeout,
		Checkpoints: ckpts, RetainState: req.StateRetentionMs > 0,
		Started: func(t *task.Task) {
			tm.reportStates(r, floev1.TaskState_TASK_STATE_RUNNING, declaredStates(t))
		},
	}
	spec := task.Spec{Plan: p, Stage: int(id.Stage), Subtask: int(id.Subtask), Restore: restore}
	return task.New(spec, env, io), cleanup, nil
}

// wire connects task id to its neighbours in plan p: the inbox of its
// upstream channels, registered under attempt inbox, and the senders to
// its downstream endpoints eps. The returned release frees them, whatever
// happened.
func (tm *TaskManager) wire(p *plan.Plan, id *floev1.TaskID, inbox int32, eps []*floev1.Endpoint, upstream int32) (task.IO, func(), error) {
	var io task.IO
	var cleanups []func()
	release := func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}
	stage := int(id.Stage)
	if len(p.Stages[stage].Inputs) > 0 {
		if n := p.Channels(stage); int(upstream) != n {
			return io, release, fmt.Errorf("task %v: the scheduler counts %d channels into it, its plan %d", keyOf(id), upstream, n)
		}
		ck := transport.ChannelKey{Job: id.JobId, Attempt: inbox, Stage: id.Stage, Subtask: id.Subtask}
		io.In = tm.exchange.Receiver(ck, int(upstream), tm.cfg.InboxBatches)
		cleanups = append(cleanups, func() { tm.exchange.Release(ck) })
	}
	// NB: eps lists the endpoints of every output edge's targets, edge
	// after edge (plan.Plan.Targets).
	for _, e := range p.Stages[stage].Outputs {
		targets := p.Targets(e, int(id.Subtask))
		if len(eps) < len(targets) {
			return io, release, fmt.Errorf("task %v: the scheduler sent too few downstream endpoints", keyOf(id))
		}
		var out []exchange.Sender
		for i, ep := range eps[:len(targets)] {
			if int(ep.Subtask) != targets[i] {
				return io, release, fmt.Errorf("task %v: downstream endpoint of subtask %d where its plan has %d", keyOf(id), ep.Subtask, targets[i])
			}
			attempt := id.Attempt
			if ep.Attempt != 0 { // channels of a later attempt, after a partial rescale
				attempt = ep.Attempt
			}
			ch := &floev1.ChannelID{JobId: id.JobId, Attempt: attempt, Stage: int32(e.To), Subtask: ep.Subtask, Sender: int32(p.Channel(e, int(id.Subtask)))}
			s, closeFn, err := tm.sender(ch, ep)
			if err != nil {
				return io, release, err
			}
			cleanups = append(cleanups, closeFn)
			out = append(out, s)
		}
		eps = eps[len(targets):]
		io.Out = append(io.Out, out)
	}
	if len(eps) > 0 {
		return io, release, fmt.Errorf("task %v: the scheduler sent %d downstream endpoints more than its plan has", keyOf(id), len(eps))
	}
	return io, release, nil
}

// planJob parses the task's job spec and plans it as the scheduler did,
// with the modules fetched to this task manager.
func (tm *TaskManager) planJob(ctx context.Context, req *floev1.DeployTaskRequest) (*plan.Plan, error) {
	return tm.planAt(ctx, req, req.Parallelism, req.OperatorParallelism)
}

// planAt is planJob at parallelism par with operators' overrides ops.
func (tm *TaskManager) planAt(ctx context.Context, req *floev1.DeployTaskRequest, par int32, ops map[string]int32) (*plan.Plan, error) {
	job, err := jobspec.Parse(req.JobSpec, "/", req.Params)
	if err != nil {
		return nil, err
	}
	if par != 0 {
		if err := job.WithParallelism(int(par)); err != nil {
			return nil, err
		}
	}
	for uid, n := range ops {
		if err := job.WithOperatorParallelism(uid, int(n)); err != nil {
			return nil, err
		}
	}
	for name := range job.Modules {
		d, ok := req.ModuleDigests[name]
		if !ok {
			return nil, fmt.Errorf("no digest for module %q", name)
		}
		if job.Modules[name], err = tm.modules.path(ctx, d); err != nil {
			return nil, err
		}
	}
	return plan.Build(job)
}

// sender returns the sender of channel ch to the downstream endpoint ep:
// in process when ep is on this task manager, over gRPC otherwise.
func (tm *TaskManager) sender(ch *floev1.ChannelID, ep *floev1.Endpoint) (exchange.Sender, func(), error) {
	if ep.TaskManagerId == tm.taskManagerID() {
		return tm.exchange.LocalSender(ch), func() {}, nil
	}
	conn, err := tm.peers.conn(ep.RpcAddr)
	if err != nil {
		return nil, nil, err
	}
	// NB: both ends name the other in a broken channel's error, so that
	// the scheduler can blame a lost task manager, not the survivor.
	s := transport.NewSender(conn, ch, transport.WithPeers(
		transport.Peer{TaskManager: tm.taskManagerID(), Addr: tm.Addr()},
		transport.Peer{TaskManager: ep.TaskManagerId, Addr: ep.RpcAddr}))
	return s, func() { s.Close() }, nil
}

// report tells the scheduler a task's new state, retrying briefly. It is
// not kept when there is no scheduler: a re-registration reports the
// task's current state.
func (tm *TaskManager) report(r *running, state floev1.TaskState, msg string) {
	r.setState(state, nil)
	tm.send(&floev1.TaskStatusUpdate{Task: r.id, State: state, Error: msg, Metrics: r.metrics(r.id)})
}

// reportStates is report with the task's declared states.
func (tm *TaskManager) reportStates(r *running, state floev1.TaskState, states []*floev1.DeclaredState) {
	r.setState(state, states)
	tm.send(&floev1.TaskStatusUpdate{Task: r.id, State: state, Metrics: r.metrics(r.id), States: states})
}

// send reports u to the leader, retrying briefly while there is one.
func (tm *TaskManager) send(u *floev1.TaskStatusUpdate) {
	for attempt := 0; attempt < 5; attempt++ {
		err := tm.sendOnce(u)
		if err == nil || errors.Is(tm.ctx.Err(), context.Canceled) {
			return
		}
		tm.log.Warn("reporting task status", "state", u.State, "err", err)
		if errors.Is(err, errNoLeader) {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// The sizes an error is cut to in a status update: the scheduler takes
// gRPC messages of up to 4 MiB; an end it refuses anyway is sent again in
// the short form (ended, deliver). A guest's message is cut at 64 KiB
// already (udf.MaxMessage), and what the host says around it stays whole
// under the first size.
const (
	maxReportedError = 256 << 10
	shortError       = 512
)

// sendOnce makes one UpdateTaskStatus call to the leader, under the id it
// gave this task manager.
func (tm *TaskManager) sendOnce(u *floev1.TaskStatusUpdate) error {
	sched, err := tm.leader()
	if err != nil {
		return err
	}
	u = proto.CloneOf(u)
	u.TaskManagerId = tm.taskManagerID()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = sched.UpdateTaskStatus(ctx, u)
	return err
}

// metrics returns the counters of every running task.
func (tm *TaskManager) metrics() []*floev1.TaskMetrics {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	out := make([]*floev1.TaskMetrics, 0, len(tm.tasks))
	for _, r := range tm.tasks {
		if m := r.metrics(r.id); m != nil {
			out = append(out, m)
		}
	}
	return out
}

// metrics samples the task's counters; back-pressure and idleness are the
// shares of time since the last sample spent blocked sending and waiting
// for input, waits in progress included.
func (r *running) metrics(id *floev1.TaskID) *floev1.TaskMetrics {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.task == nil {
		return nil
	}
	m := &r.task.Metrics
	now := time.Now()
	_, idle, blocked := m.Stopwatch(now)
	snap := time.Duration(m.SnapshotNanos.Load())
	bp, idleShare, snapShare := 0.0, 0.0, 0.0
	if dt := now.Sub(r.lastAt); dt > 0 {
		bp = min(1, max(0, float64(blocked-r.lastBlocked)/float64(dt)))
		idleShare = min(1-bp, max(0, float64(idle-r.lastIdle)/float64(dt)))
		// NB: a snapshot's barrier may wait for credit downstream, which
		// is blocked time too: the shares never sum beyond 1.
		snapShare = min(1-bp-idleShare, max(0, float64(snap-r.lastSnapshot)/float64(dt)))
	}
	r.lastBlocked, r.lastIdle, r.lastSnapshot, r.lastAt = blocked, idle, snap, now
	tm := &floev1.TaskMetrics{Task: id, RecordsIn: m.RecordsIn.Load(), RecordsOut: m.RecordsOut.Load(), BackPressure: bp, Idle: idleShare,
		Checkpointing: snapShare}
	// NB: neither "no watermark yet" nor the end of input is a point in
	// event time.
	if wm := m.InputWatermark.Load(); wm != record.NoTimestamp && wm != eventtime.Max {
		tm.InputWatermark = &wm
	}
	if wm := m.OutputWatermark.Load(); wm != record.NoTimestamp && wm != eventtime.Max {
		tm.OutputWatermark = &wm
	}
	if p, ok := m.Source().(connector.Progress); ok {
		read, total := p.BytesRead()
		tm.BytesRead, tm.BytesTotal = &read, max(total, 0)
	}
	if l, ok := m.Source().(connector.Lagging); ok {
		var lag int64
		r.lags = l.Lags(r.lags[:0])
		for _, p := range r.lags {
			lag += p.Records
		}
		tm.Backlog = &lag
	}
	if p, ok := m.Source().(connector.Paced); ok {
		tm.PacedRate = p.Rate()
	}
	if sp, ok := m.Source().(connector.Splitted); ok {
		if n, fixed := sp.Splits(); fixed {
			n32 := int32(n)
			tm.Splits = &n32
		}
	}
	for _, om := range m.Operators() {
		if om.Stateful {
			tm.OperatorStates = append(tm.OperatorStates, &floev1.OperatorStateSize{
				Operator: om.UID, Keys: om.StateKeys.Load(), Bytes: om.StateBytes.Load()})
		}
	}
	return tm
}
