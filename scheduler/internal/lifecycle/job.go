package lifecycle

import (
	"github.com/floe-stream/floe/scheduler/internal/coordinator"

	"fmt"
	"math"
	"slices"
	"time"

	"github.com/floe-stream/floe/internal/ckmeta"
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
	"github.com/floe-stream/floe/scheduler/api"
)

// Replan plans a job's spec at a parallelism and per-operator overrides
// (for a rescale). It must be a pure function of its arguments.
type Replan func(par int, ops map[string]int) (*plan.Plan, error)

// Submission is a job, validated and with its resources ready, as Submit
// takes it.
type Submission struct {
	ID   string
	Plan *plan.Plan
	// Par is the parallelism the submission asked for (zero: the spec's).
	Par      int
	Strategy jobspec.RestartStrategy
	Replan   Replan
	// Checkpoints is nil for a job without checkpoints.
	Checkpoints *Checkpointing
	// Restore, when set, is the savepoint the first attempt restores; the
	// job then has Checkpoints.
	Restore *ckmeta.Metadata
}

// Job is a submitted job and its current attempt. The machine owns it:
// callers only read the exported fields.
type Job struct {
	ID        string
	Plan      *plan.Plan
	Par       int
	OpPar     map[string]int
	Slots     int
	Strategy  jobspec.RestartStrategy
	State     string
	Message   string
	Attempt   int
	Restarts  int
	RestartAt time.Time
	// Backoff counts the consecutive restarts under exponentialDelay: the
	// n-th waits Strategy.Backoff(n). It starts again from 1 when the
	// failed attempt had run for Strategy.ResetAfter.
	Backoff   int
	Submitted time.Time
	Started   time.Time
	// RunningSince is when every task of the current attempt ran; zero
	// until then.
	RunningSince time.Time
	Ended        time.Time
	// History lists the job's state changes, oldest first: the newest
	// Config.MaxHistory of them, after HistoryDropped older ones. The
	// entry History[i] is the job's (HistoryDropped+i)-th.
	History        []api.Event
	HistoryDropped int
	// Tasks are the current attempt's subtasks, by stage and subtask.
	Tasks [][]*Task
	// LastPlacement is the task manager of each slot of the latest
	// attempt, kept after the job ends so its state stays queryable.
	LastPlacement []string
	// States are the keyed states its operators declared, by name.
	States map[string]Declared
	// Stats count what happened to the job over its life, for metrics.
	Stats Stats
	// Exceptions are its failures (exceptions.go).
	Exceptions Exceptions
	// Autoscaler is its autoscaling policy and decisions (autoscaler.go).
	Autoscaler Autoscaling

	replan Replan
	// placement is the task manager of each slot of the current attempt,
	// nil when it holds no slots.
	placement []string
	ckpt      *checkpoints
	// finalSent tells that the final commit was sent to the attempt.
	finalSent bool
	// finishedSources are the source subtasks of the current attempt that
	// have read everything.
	finishedSources map[coordinator.Task]bool
	rescale         *rescale
	// awaiting are the task managers of the current attempt that have not
	// registered again since Lead, by id; the attempt is adopted once none
	// is left.
	awaiting []string
	// suspect is the last failed attempt's broken channel whose peer task
	// manager may be to blame (lostpeer.go), or nil.
	suspect *suspect
}

// Task is what the machine knows of one subtask.
type Task struct {
	State       string
	TaskManager string
	// Attempt is the attempt the task was deployed in, when not the job's:
	// a task a partial rescale kept running (partial.go). Zero means the
	// job's current attempt.
	Attempt      int `json:",omitempty"`
	RecordsIn    int64
	RecordsOut   int64
	BackPressure float64
	Err          string
	// Sample is the task's last reported metrics and Rates what its
	// counters grew by per second since the sample before. They come from
	// heartbeats, which are not journaled, so snapshots leave them out.
	Sample Sample `json:"-"`
	Rates  Rates  `json:"-"`
}

// Stats count events of a job's life. Restarts are Job.Restarts.
type Stats struct {
	// Rescales counts the rescales that completed.
	Rescales int `json:",omitempty"`
	// LastRestartDowntime runs from the failure of an attempt to the next
	// attempt running; LastRescaleDowntime from the stop of the attempt a
	// rescale replaced to the new one running. Zero until the first.
	LastRestartDowntime time.Duration `json:",omitempty"`
	LastRescaleDowntime time.Duration `json:",omitempty"`
	// CheckpointsCompleted and CheckpointsFailed count checkpoints over
	// the job's life (its history keeps only the latest).
	CheckpointsCompleted int64 `json:",omitempty"`
	CheckpointsFailed    int64 `json:",omitempty"`
	// FailedAt is when the last attempt failed, zero once the job runs
	// again.
	FailedAt time.Time `json:",omitzero"`
}

// NoWatermark is a Sample's watermark before the task has one.
const NoWatermark = math.MinInt64

// Sample is a task's metrics as its task manager reported them.
type Sample struct {
	// At is when the scheduler received them.
	At                    time.Time
	RecordsIn, RecordsOut int64
	// BackPressure and Idle are the shares of the last heartbeat interval
	// the task spent waiting for room downstream and for input; the rest
	// it was busy.
	BackPressure, Idle float64
	// Checkpointing is the share the task spent taking snapshots, which is
	// neither idle nor back-pressured nor processing.
	Checkpointing float64
	// Backlog is the records a source knows wait for it outside (Kafka's
	// lag), -1 when it cannot tell; Splits the splits it reads (Kafka
	// partitions, a followed file), -1 when it cannot tell or they are not
	// fixed.
	Backlog int64
	Splits  int
	// PacedRate is the records per second a rate-limited source may emit
	// now (its schedule's step), 0 when it has no limit.
	PacedRate float64
	// InputWatermark and OutputWatermark are in Unix ms, NoWatermark when
	// none.
	InputWatermark, OutputWatermark int64
	// BytesRead and BytesTotal are a source's progress through its input;
	// BytesTotal is 0 when unknown (an unbounded source), BytesRead -1
	// when the source does not count.
	BytesRead, BytesTotal int64
	// OperatorStates are the live sizes of the keyed state of the task's
	// stateful operators.
	OperatorStates []OperatorState
}

// OperatorState is the live size of one operator's keyed state on a task:
// its entries and their key and value bytes.
type OperatorState struct {
	Operator    string
	Keys, Bytes int64
}

// Rates are per-second rates of a task's counters.
type Rates struct {
	RecordsIn, RecordsOut float64
}

// rates returns the growth of the counters from prev to cur per second;
// zero when prev is not an earlier sample.
func rates(prev, cur Sample) Rates {
	dt := cur.At.Sub(prev.At).Seconds()
	if prev.At.IsZero() || dt <= 0 {
		return Rates{}
	}
	return Rates{RecordsIn: float64(cur.RecordsIn-prev.RecordsIn) / dt, RecordsOut: float64(cur.RecordsOut-prev.RecordsOut) / dt}
}

// TaskID names a subtask of an attempt of a job.
type TaskID struct {
	Job                     string
	Attempt, Stage, Subtask int
}

func (t TaskID) String() string {
	return fmt.Sprintf("%s#%d %d/%d", t.Job, t.Attempt, t.Stage, t.Subtask)
}

// Declared is a keyed state an operator declared.
type Declared struct {
	Name      string
	Stage     int
	Queryable bool
	Type      string
	Kind      string
}

// uses reports whether the current attempt has a slot on task manager tm.
func (j *Job) uses(tm string) bool { return slices.Contains(j.placement, tm) }

// all reports whether every task of the current attempt is in one of
// states.
func (j *Job) all(states ...string) bool {
	for _, stage := range j.Tasks {
		for _, t := range stage {
			if !slices.Contains(states, t.State) {
				return false
			}
		}
	}
	return true
}

// Checkpoints returns the job's checkpoints as users see them, oldest
// first, or nil for a job without checkpoints. The machine owns them.
func (j *Job) Checkpoints() []*api.CheckpointStatus {
	if j.ckpt == nil {
		return nil
	}
	return j.ckpt.history
}

// TakesCheckpoints reports whether the job has checkpointing.
func (j *Job) TakesCheckpoints() bool { return j.ckpt != nil }

// Job returns a job, or nil.
func (m *Machine) Job(id string) *Job { return m.jobs[id] }

// Jobs returns the jobs, oldest first.
func (m *Machine) Jobs() []*Job {
	out := make([]*Job, len(m.order))
	for i, id := range m.order {
		out[i] = m.jobs[id]
	}
	return out
}

// Submit adds a job, waiting to be placed at the next tick.
func (m *Machine) Submit(now time.Time, sub Submission) []Action {
	m.begin(now)
	j := &Job{
		ID: sub.ID, Plan: sub.Plan, Par: sub.Par, Slots: maxParallelism(sub.Plan), Strategy: sub.Strategy,
		Submitted: now, replan: sub.Replan, Autoscaler: Autoscaling{Config: sub.Plan.Job.Autoscaler},
	}
	if sub.Checkpoints != nil {
		j.ckpt = newCheckpoints(*sub.Checkpoints)
		if sub.Restore != nil {
			j.ckpt.completed = []*ckmeta.Metadata{sub.Restore}
			j.ckpt.coord.SetNextID(sub.Restore.ID + 1)
		}
	}
	m.jobs[j.ID] = j
	m.order = append(m.order, j.ID)
	m.setState(j, api.JobWaiting, "submitted")
	return m.end()
}

// NeededSlots is the number of slots a job with plan p takes: one per
// subtask of its widest stage, as slot sharing places one subtask of each
// stage in a slot.
func NeededSlots(p *plan.Plan) int { return maxParallelism(p) }

func maxParallelism(p *plan.Plan) int {
	n := 0
	for _, st := range p.Stages {
		n = max(n, st.Parallelism)
	}
	return n
}

// setState moves a job to state and records it.
func (m *Machine) setState(j *Job, state, msg string) {
	j.State, j.Message = state, msg
	j.History, j.HistoryDropped = appendCapped(j.History, j.HistoryDropped, m.maxHistory(),
		api.Event{Time: m.now, State: state, Message: msg})
	if api.Terminal(state) {
		j.Ended = m.now
	}
	m.emit(JobState{Job: j.ID, State: state, Message: msg})
}

// appendCapped appends e to history, of which dropped older entries are
// gone, and keeps the newest max entries. It returns the new history and
// the new count of dropped entries.
func appendCapped(history []api.Event, dropped, max int, e api.Event) ([]api.Event, int) {
	history = append(history, e)
	if over := len(history) - max; over > 0 {
		// NB: a copy, so that the dropped entries do not stay reachable
		// through the slice's array.
		history = append([]api.Event(nil), history[over:]...)
		dropped += over
	}
	return history, dropped
}

// maxHistory returns the cap on a job's history.
func (m *Machine) maxHistory() int {
	if m.cfg.MaxHistory > 0 {
		return m.cfg.MaxHistory
	}
	return DefaultMaxHistory
}

// task returns the machine's record of a subtask of a job's current
// attempt, with its job, or nil for an unknown or stale one.
func (m *Machine) task(id TaskID) (*Job, *Task) {
	j, ok := m.jobs[id.Job]
	if !ok || j.Tasks == nil {
		return nil, nil
	}
	if id.Stage < 0 || id.Stage >= len(j.Tasks) || id.Subtask < 0 || id.Subtask >= len(j.Tasks[id.Stage]) {
		return nil, nil
	}
	if t := j.Tasks[id.Stage][id.Subtask]; id.Attempt == j.attemptOf(t) {
		return j, t
	}
	return nil, nil
}

// attemptOf returns the attempt task t of the job's current attempt was
// deployed in.
func (j *Job) attemptOf(t *Task) int {
	if t.Attempt != 0 {
		return t.Attempt
	}
	return j.Attempt
}

// TaskAttempt returns the attempt subtask sub of stage si of the current
// attempt was deployed in: the job's, but for a task a partial rescale
// kept running.
func (j *Job) TaskAttempt(si, sub int) int { return j.attemptOf(j.Tasks[si][sub]) }

// taskID names subtask sub of stage si of the job's current attempt.
func (j *Job) taskID(si, sub int) TaskID {
	return TaskID{Job: j.ID, Attempt: j.attemptOf(j.Tasks[si][sub]), Stage: si, Subtask: sub}
}

// attemptTM is a task manager and an attempt whose tasks it runs.
type attemptTM struct {
	attempt int
	tm      string
}

// attemptTMsOf returns each attempt of the current attempt's tasks (more
// than one after a partial rescale) with its known task managers, oldest
// attempt first, then in slot order.
func (m *Machine) attemptTMsOf(j *Job) []attemptTM {
	var attempts []int
	for _, stage := range j.Tasks {
		for _, t := range stage {
			if a := j.attemptOf(t); !slices.Contains(attempts, a) {
				attempts = append(attempts, a)
			}
		}
	}
	slices.Sort(attempts)
	var out []attemptTM
	for _, a := range attempts {
		for _, tm := range m.attemptTMs(j) {
			if j.runsOn(a, tm) {
				out = append(out, attemptTM{a, tm})
			}
		}
	}
	return out
}

// hasAttempt reports whether a is the current attempt or the attempt of
// one of its tasks.
func (j *Job) hasAttempt(a int) bool {
	if a == j.Attempt {
		return true
	}
	for _, stage := range j.Tasks {
		for _, t := range stage {
			if j.attemptOf(t) == a {
				return true
			}
		}
	}
	return false
}

// runsOn reports whether a task of attempt a is placed on task manager tm.
func (j *Job) runsOn(a int, tm string) bool {
	for _, stage := range j.Tasks {
		for _, t := range stage {
			if t.TaskManager == tm && j.attemptOf(t) == a {
				return true
			}
		}
	}
	return false
}

// Metrics records a subtask's metrics; a stale subtask's are ignored.
func (m *Machine) Metrics(id TaskID, s Sample) {
	// NB: a heartbeat carries the counts the task manager sampled before
	// it sent it, so one can arrive after the task's last status, which
	// carries its final counts; an ended task's counts no longer change.
	if _, t := m.task(id); t != nil && !taskEnded(t.State) {
		t.RecordsIn, t.RecordsOut, t.BackPressure = s.RecordsIn, s.RecordsOut, s.BackPressure
		t.Rates, t.Sample = rates(t.Sample, s), s
	}
}

// Cancel cancels a job that has not ended.
func (m *Machine) Cancel(now time.Time, id string) ([]Action, error) {
	m.begin(now)
	j, ok := m.jobs[id]
	if !ok {
		return nil, fmt.Errorf("%w: no job %q", api.ErrNotFound, id)
	}
	if api.Terminal(j.State) {
		return nil, fmt.Errorf("%w: job %s has already ended (%s)", api.ErrConflict, id, j.State)
	}
	m.stopCheckpoints(j, "job canceled")
	m.stopAttempt(j)
	m.setState(j, api.JobCanceled, "canceled by user")
	m.log.Info("job canceled", "job", id)
	return m.end(), nil
}

// TaskStatus applies a task's change to state (one of the api.Task*
// states) reported by task manager tm, with an error message for a failed
// task and where its failure arose (nil: not known), and the keyed states
// it declared. A failure enters the job's Exceptions.
//
// A report is ignored when it is stale: of an earlier attempt or an ended
// job, or from a task manager the task is not placed on, that the machine
// does not know, or that has not registered again since Lead.
func (m *Machine) TaskStatus(now time.Time, tm string, id TaskID, state, msg string, states []Declared, failure *Failure) []Action {
	m.begin(now)
	m.taskStatus(tm, id, state, msg, states, failure)
	return m.end()
}

func (m *Machine) taskStatus(tmID string, id TaskID, state, msg string, states []Declared, failure *Failure) {
	j, t := m.task(id)
	if t == nil || (j.State != api.JobDeploying && j.State != api.JobRunning) {
		return // a stale report of an earlier attempt or an ended job
	}
	if tm, ok := m.tms[tmID]; !ok || tm.rejoin || t.TaskManager != tmID {
		return // fenced: not from the task manager that runs it now
	}
	t.State = state
	for _, d := range states {
		if j.States == nil {
			j.States = map[string]Declared{}
		}
		d.Stage = id.Stage
		j.States[d.Name] = d
	}
	switch state {
	case api.TaskFailed:
		t.Err = msg
		task := TaskID{Attempt: id.Attempt, Stage: id.Stage, Subtask: id.Subtask}
		m.exception(j, &task, tmID, failure, msg)
		stage := j.Plan.Stages[id.Stage]
		name := fmt.Sprintf("%s (%d/%d)", stage.Name, id.Subtask+1, stage.Parallelism)
		reason := fmt.Sprintf("task %s on %s failed: %s", name, tmID, msg)
		tms := m.attemptTMs(j)
		m.failAttempt(j, reason)
		m.suspectPeer(j, tms, tmID, name, msg, reason)
	case api.TaskRunning:
		if j.State == api.JobDeploying && j.all(api.TaskRunning, api.TaskFinished, api.TaskEnding) {
			if j.Started.IsZero() {
				j.Started = m.now
			}
			if !j.Stats.FailedAt.IsZero() {
				j.Stats.LastRestartDowntime, j.Stats.FailedAt = m.now.Sub(j.Stats.FailedAt), time.Time{}
			}
			j.RunningSince = m.now
			m.setState(j, api.JobRunning, fmt.Sprintf("attempt %d running", j.Attempt))
			m.rescaled(j)
			if len(j.awaiting) == 0 {
				m.startCheckpoints(j)
			}
		}
	case api.TaskEnding, api.TaskFinished:
		m.taskEnded(j, id, state)
		if j.all(api.TaskFinished) {
			m.freeSlots(j)
			m.setState(j, api.JobFinished, "every task finished")
			m.log.Info("job finished", "job", j.ID, "attempt", j.Attempt)
		} else if !j.finalSent && j.all(api.TaskFinished, api.TaskEnding) {
			// Every input has ended: sinks may now commit their last output.
			j.finalSent = true
			m.notifyTasks(j, ckmeta.Final)
		}
	}
}

// DeployUnreachable reports that deploying a task found its task manager
// unreachable: the task manager is gone though its heartbeat has not timed
// out yet. It is forgotten and the job placed again, without spending a
// restart on a deployment that never ran.
func (m *Machine) DeployUnreachable(now time.Time, id TaskID, tmID, err string) []Action {
	m.begin(now)
	if j, t := m.task(id); t != nil && j.State == api.JobDeploying {
		m.stopCheckpoints(j, "redeploying")
		m.stopAttempt(j)
		m.setState(j, api.JobWaiting, fmt.Sprintf("task manager %s unreachable during deployment; placing the job again", tmID))
	}
	if tm, ok := m.tms[tmID]; ok {
		m.loseTaskManager(tm, fmt.Sprintf("task manager %s at %s unreachable: %s", tm.ID, tm.Addr, err))
	}
	return m.end()
}

// failAttempt stops the current attempt after a failure and restarts the
// job if its restart strategy allows, else fails it.
func (m *Machine) failAttempt(j *Job, reason string) {
	m.log.Warn("job attempt failed", "job", j.ID, "attempt", j.Attempt, "reason", reason)
	m.stopCheckpoints(j, "attempt failed")
	if j.ckpt != nil {
		m.dropBadCheckpoint(j, reason)
	}
	ran := m.ran(j)
	m.stopAttempt(j)
	j.Stats.FailedAt = m.now
	switch {
	case j.Strategy.Type == jobspec.RestartExponentialDelay:
		if ran >= j.Strategy.ResetAfter {
			j.Backoff = 0
		}
		j.Backoff++
		j.Restarts++
		delay := j.Strategy.Backoff(j.Backoff)
		j.RestartAt = m.now.Add(delay)
		m.setState(j, api.JobRestarting, fmt.Sprintf("restart %d in %s (backoff %d) after: %s",
			j.Restarts, delay, j.Backoff, reason))
	case j.Restarts < j.Strategy.Attempts:
		j.Restarts++
		j.RestartAt = m.now.Add(j.Strategy.Delay)
		m.setState(j, api.JobRestarting, fmt.Sprintf("restart %d of %d in %s after: %s",
			j.Restarts, j.Strategy.Attempts, j.Strategy.Delay, reason))
	default:
		m.setState(j, api.JobFailed, reason)
	}
}

// ran returns how long the current attempt has run with every task
// running, zero if it never did.
func (m *Machine) ran(j *Job) time.Duration {
	if j.RunningSince.IsZero() {
		return 0
	}
	return m.now.Sub(j.RunningSince)
}

// stopAttempt cancels the current attempt's tasks and frees its slots.
func (m *Machine) stopAttempt(j *Job) {
	for _, a := range m.attemptTMsOf(j) {
		m.emit(CancelTasks{Job: j.ID, Attempt: a.attempt, TaskManager: a.tm})
	}
	for _, stage := range j.Tasks {
		for _, t := range stage {
			if t.State == api.TaskDeploying || t.State == api.TaskRunning || t.State == api.TaskEnding {
				t.State = api.TaskCanceled
			}
		}
	}
	m.freeSlots(j)
}

// attemptTMs returns the known task managers of the current attempt, each
// once, in slot order.
func (m *Machine) attemptTMs(j *Job) []string {
	var out []string
	for _, id := range j.placement {
		if _, ok := m.tms[id]; ok && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// freeSlots returns a job's slots to their task managers.
func (m *Machine) freeSlots(j *Job) {
	j.awaiting = nil
	for _, id := range j.placement {
		if tm, ok := m.tms[id]; ok {
			tm.Used--
		}
	}
	j.placement = nil
}

// taskEnded reports whether a task in state has stopped for good.
func taskEnded(state string) bool {
	return state == api.TaskFinished || state == api.TaskFailed || state == api.TaskCanceled
}
