package lifecycle

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/placement"
)

// Config configures a Machine.
type Config struct {
	// HeartbeatInterval is how often task managers heartbeat; a task
	// manager silent for three intervals gets no new work.
	HeartbeatInterval time.Duration
	// HeartbeatTimeout is how long without a heartbeat before a task
	// manager is declared lost and its jobs' attempts fail.
	HeartbeatTimeout time.Duration
	// Logger receives what the machine decides; nil discards it.
	Logger *slog.Logger
	// MaxHistory is the most entries a job's history keeps: the newest,
	// the older ones counted in Job.HistoryDropped, so that a job in a
	// restart loop does not grow without bound. 0 means DefaultMaxHistory.
	// Every machine replaying one log must use the same.
	MaxHistory int
	// PartialRescale lets a rescale that changes only some stages keep
	// the others running (partial.go): the driver and its task managers
	// carry out Suspend triggers, CancelTask and Resume. Off, every
	// rescale stops the whole job. Every machine replaying one log must
	// use the same.
	PartialRescale bool
}

// DefaultMaxHistory is Config.MaxHistory's default: days of a job that
// restarts every few minutes, and a status of a few hundred KB at most.
const DefaultMaxHistory = 1000

// TaskManager is a registered task manager as the machine knows it. The
// machine owns it: callers only read it.
type TaskManager struct {
	ID            string
	Addr          string
	Hostname      string
	Slots         int
	Used          int
	LastHeartbeat time.Time

	// rejoin tells that the task manager has not registered again since
	// the scheduler became leader (Lead): its heartbeats are answered as
	// unknown, so that it registers and reports its tasks, and its reports
	// are ignored. It is lost if it has not registered by rejoinBy,
	// heartbeats or not.
	rejoin   bool
	rejoinBy time.Time
}

// Rejoining reports whether the task manager must register again since
// the scheduler became leader.
func (tm *TaskManager) Rejoining() bool { return tm.rejoin }

// Machine is the lifecycle of every job of a scheduler, and the slots of
// its task managers.
type Machine struct {
	cfg    Config
	log    *slog.Logger
	tms    map[string]*TaskManager
	jobs   map[string]*Job
	order  []string // job ids, oldest first
	nextTM int
	// now is the time of the event being applied.
	now time.Time
	// acts collects the actions of the event being applied.
	acts []Action
}

// New returns a machine with no task managers and no jobs.
func New(cfg Config) *Machine {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Machine{cfg: cfg, log: log, tms: map[string]*TaskManager{}, jobs: map[string]*Job{}}
}

// begin starts applying an event that happens at now.
func (m *Machine) begin(now time.Time) { m.now, m.acts = now, nil }

// end returns the actions of the event applied.
func (m *Machine) end() []Action {
	acts := m.acts
	m.acts = nil
	return acts
}

func (m *Machine) emit(a Action) { m.acts = append(m.acts, a) }

// Register adds a task manager with slots slots at addr and returns the
// id it is known by: tm-1, tm-2, … in the order of registration.
//
// A task manager that lost its scheduler registers again with its
// previous id and the tasks it still runs or that ended meanwhile. If the
// machine still knows that id, the task manager keeps it and Register
// returns the reported tasks it adopts (see adopt); the task manager
// cancels the rest. Otherwise it is a new task manager and nothing is
// adopted.
func (m *Machine) Register(now time.Time, addr, hostname string, slots int, previous string, reported []Reported) (string, []TaskID, []Action) {
	m.begin(now)
	if tm, ok := m.tms[previous]; ok && previous != "" {
		tm.Addr, tm.Hostname, tm.Slots, tm.LastHeartbeat, tm.rejoin = addr, hostname, slots, now, false
		m.log.Info("task manager registered again", "id", tm.ID, "addr", tm.Addr, "slots", tm.Slots, "tasks", len(reported))
		adopted := m.adopt(tm, reported)
		return tm.ID, adopted, m.end()
	}
	m.nextTM++
	tm := &TaskManager{ID: fmt.Sprintf("tm-%d", m.nextTM), Addr: addr, Hostname: hostname, Slots: slots, LastHeartbeat: now}
	m.tms[tm.ID] = tm
	m.log.Info("task manager registered", "id", tm.ID, "addr", tm.Addr, "slots", tm.Slots)
	return tm.ID, nil, m.end()
}

// Heartbeat records that task manager id is alive, and reports whether it
// is known and registered. A task manager that must register again after
// Lead is kept alive but not registered: the answer makes it register.
func (m *Machine) Heartbeat(now time.Time, id string) bool {
	tm, ok := m.tms[id]
	if !ok {
		return false
	}
	tm.LastHeartbeat = now
	return !tm.rejoin
}

// TaskManager returns a registered task manager, or nil.
func (m *Machine) TaskManager(id string) *TaskManager { return m.tms[id] }

// TaskManagers returns the registered task managers by id.
func (m *Machine) TaskManagers() []*TaskManager {
	out := make([]*TaskManager, 0, len(m.tms))
	for _, tm := range m.tms {
		out = append(out, tm)
	}
	slices.SortFunc(out, func(a, b *TaskManager) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Capacity is the slots of the task managers new work can be placed on at
// now, used or not, and how many task managers hold them: the most a job
// can be given without more task managers.
func (m *Machine) Capacity(now time.Time) (slots, taskManagers int) {
	for _, tm := range m.view(now) {
		slots += m.tms[tm.ID].Slots
		taskManagers++
	}
	return slots, taskManagers
}

// LoseTaskManager forgets a task manager (its connection broke) and fails
// the attempts that ran on it.
func (m *Machine) LoseTaskManager(now time.Time, id, reason string) []Action {
	m.begin(now)
	if tm, ok := m.tms[id]; ok {
		m.loseTaskManager(tm, reason)
	}
	return m.end()
}

// loseTaskManager forgets a task manager and fails the jobs that ran on it.
func (m *Machine) loseTaskManager(tm *TaskManager, reason string) {
	m.log.Warn("task manager lost", "id", tm.ID, "addr", tm.Addr, "reason", reason)
	delete(m.tms, tm.ID)
	m.emit(CloseTaskManager{TaskManager: tm.ID})
	for _, id := range m.order {
		j := m.jobs[id]
		m.blamePeer(j, tm.ID, reason)
		if (j.State == api.JobDeploying || j.State == api.JobRunning) && j.uses(tm.ID) {
			m.exception(j, nil, tm.ID, nil, reason)
			m.failAttempt(j, reason)
		}
	}
}

// Tick advances time: it declares silent task managers lost, moves jobs
// whose restart delay has passed back to waiting, places waiting jobs and
// advances running jobs' checkpoints.
func (m *Machine) Tick(now time.Time) []Action {
	m.begin(now)
	for _, tm := range m.TaskManagers() {
		switch {
		case tm.rejoin:
			if now.After(tm.rejoinBy) {
				m.loseTaskManager(tm, fmt.Sprintf("task manager %s at %s lost: it did not register again within %s of the scheduler's failover",
					tm.ID, tm.Addr, rejoinTimeouts*m.cfg.HeartbeatTimeout))
			}
		case now.Sub(tm.LastHeartbeat) > m.cfg.HeartbeatTimeout:
			m.loseTaskManager(tm, fmt.Sprintf("task manager %s at %s lost: no heartbeat for %s", tm.ID, tm.Addr, m.cfg.HeartbeatTimeout))
		}
	}
	for _, id := range m.order {
		j := m.jobs[id]
		if j.State == api.JobRestarting && !now.Before(j.RestartAt) {
			m.setState(j, api.JobWaiting, "restarting")
		}
		if j.State == api.JobWaiting {
			m.place(j)
		}
		if j.State == api.JobRunning && j.ckpt != nil {
			m.checkpointActions(j, j.ckpt.coord.Tick(now))
		}
	}
	return m.end()
}

// Due reports whether Tick(now) would change anything: a task manager to
// lose, a job to restart or to place (or whose reason for waiting
// changed), a checkpoint to trigger or to abort. It changes nothing. A
// driver that journals its ticks skips those that are not due, so that
// an idle scheduler's log does not grow with the clock.
func (m *Machine) Due(now time.Time) bool {
	for _, tm := range m.tms {
		if (tm.rejoin && now.After(tm.rejoinBy)) || (!tm.rejoin && now.Sub(tm.LastHeartbeat) > m.cfg.HeartbeatTimeout) {
			return true
		}
	}
	for _, id := range m.order {
		j := m.jobs[id]
		switch {
		case j.State == api.JobRestarting && !now.Before(j.RestartAt):
			return true
		case j.State == api.JobWaiting:
			if _, err := placement.Place(m.view(now), j.Slots); err == nil || j.Message != waitingFor(err) {
				return true
			}
		case j.State == api.JobRunning && j.ckpt != nil && j.ckpt.coord.Due(now):
			return true
		}
	}
	return false
}

// view is the task managers new work can be placed on at now, with their
// free slots.
func (m *Machine) view(now time.Time) []placement.TaskManager {
	var view []placement.TaskManager
	fresh := now.Add(-3 * m.cfg.HeartbeatInterval)
	for _, tm := range m.TaskManagers() {
		// A task manager that has missed heartbeats is probably gone: do
		// not place new work on it while its timeout runs. One that has
		// not registered again since Lead cannot be called yet.
		if tm.LastHeartbeat.After(fresh) && !tm.rejoin {
			view = append(view, placement.TaskManager{ID: tm.ID, FreeSlots: tm.Slots - tm.Used})
		}
	}
	return view
}

// waitingFor is a waiting job's message when placement failed with err.
func waitingFor(err error) string { return "waiting for slots: job " + err.Error() }

// place puts a waiting job on free slots and deploys its new attempt, or
// records why it waits.
func (m *Machine) place(j *Job) {
	slots, err := placement.Place(m.view(m.now), j.Slots)
	if err != nil {
		j.Message = waitingFor(err)
		return
	}
	for _, id := range slots {
		m.tms[id].Used++
	}
	j.Attempt++
	if j.rescale != nil {
		j.rescale.partial = false // the whole job is placed again
	}
	j.RunningSince = time.Time{}
	j.finishedSources = nil
	j.placement = slots
	j.LastPlacement = slots
	j.finalSent = false
	j.Tasks = make([][]*Task, len(j.Plan.Stages))
	done := j.ckpt.done(j)
	for si, st := range j.Plan.Stages {
		for sub := 0; sub < st.Parallelism; sub++ {
			t := &Task{State: api.TaskDeploying, TaskManager: slots[sub]}
			if done != nil && done[si][sub] {
				// NB: finished from the start, as the restored checkpoint
				// recorded it; deployments skips it.
				t.State = api.TaskFinished
				j.sourceDone(si, sub)
			}
			j.Tasks[si] = append(j.Tasks[si], t)
		}
	}
	msg := fmt.Sprintf("attempt %d on %d slots", j.Attempt, len(slots))
	if md := j.ckpt.latest(); md != nil {
		msg += fmt.Sprintf(", restoring checkpoint %d", md.ID)
	}
	m.setState(j, api.JobDeploying, msg)
	m.log.Info("deploying job", "job", j.ID, "attempt", j.Attempt, "slots", slots)
	d, err := m.deployments(j)
	if err != nil {
		m.exception(j, nil, "", nil, err.Error())
		m.failAttempt(j, err.Error())
		return
	}
	for _, a := range d {
		m.emit(a)
	}
}

// deployments builds the Deploy actions of a job's current attempt.
func (m *Machine) deployments(j *Job) ([]Action, error) {
	var out []Action
	done := j.ckpt.done(j)
	for si, st := range j.Plan.Stages {
		for sub := 0; sub < st.Parallelism; sub++ {
			var ended []int
			if done != nil {
				if done[si][sub] {
					continue
				}
				ended = endedInputs(j.Plan, done, si, sub)
			}
			d, err := m.deployment(j, si, sub, ended)
			if err != nil {
				return nil, err
			}
			out = append(out, d)
		}
	}
	return out, nil
}

// deployment builds the Deploy action of subtask sub of stage si,
// restoring its share of the latest completed checkpoint, with the input
// channels ended holds already ended (finished upstream subtasks).
func (m *Machine) deployment(j *Job, si, sub int, ended []int) (Deploy, error) {
	restore, err := j.ckpt.restoreFor(j, si, sub, ended)
	if err != nil {
		return Deploy{}, err
	}
	return Deploy{
		Task: j.taskID(si, sub), TaskManager: j.placement[sub],
		Downstream: m.downstream(j, si, sub), UpstreamParallelism: j.Plan.Channels(si),
		Parallelism: j.Par, OperatorParallelism: j.OpPar, Restore: restore,
	}, nil
}

// downstream returns the endpoints subtask sub of stage si sends to:
// the targets of each of its output edges, edge after edge.
func (m *Machine) downstream(j *Job, si, sub int) []Endpoint {
	// NB: every stage's subtask n runs in slot n of the attempt.
	var down []Endpoint
	for _, e := range j.Plan.Stages[si].Outputs {
		for _, to := range j.Plan.Targets(e, sub) {
			tm := m.tms[j.placement[to]]
			down = append(down, Endpoint{Subtask: to, TaskManager: tm.ID, Addr: tm.Addr, Attempt: j.Attempt})
		}
	}
	return down
}
