package lifecycle

import (
	"github.com/floe-stream/floe/scheduler/internal/coordinator"

	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/floe-stream/floe/internal/ckmeta"
	"github.com/floe-stream/floe/scheduler/api"
)

// Reported is a task a task manager reports when it registers again: it
// still runs it (RUNNING, ENDING) or it ended while the task manager had
// no scheduler (FINISHED, FAILED with Err, CANCELED).
type Reported struct {
	Task  TaskID
	State string
	Err   string
	// Failure is where a FAILED task's failure arose, when known.
	Failure *Failure `json:",omitempty"`
}

// rejoinTimeouts is how many heartbeat timeouts after Lead a task manager
// has to register again. One is not enough: a task manager whose
// scheduler stopped answering (paused, or cut off) notices only after its
// own heartbeat timeout, counted from its last answered heartbeat, plus
// the time its last call waited, and then has to find the new leader.
const rejoinTimeouts = 2

// abandoned is why Lead fails the checkpoints in flight.
const abandoned = "abandoned: the scheduler's leader changed"

// Lead tells the machine that its scheduler has just become the leader:
// it restarted, or took over from another. Nothing the previous leader
// had under way outside the log can be trusted to have happened:
//
//   - every known task manager must register again: until it does, its
//     heartbeats are answered as unknown and its reports are ignored, and
//     one that has not registered within rejoinTimeouts heartbeat timeouts
//     is lost;
//   - every checkpoint in flight is abandoned (its tasks may have acked,
//     its metadata may even be written, but it was never counted complete,
//     so no sink committed it); the next checkpoint's id follows every id
//     already used, which is past the latest completed one;
//   - every attempt deploying or running waits for its task managers to
//     register again and report its tasks (see Register), and is adopted
//     without a restart once they all have.
func (m *Machine) Lead(now time.Time) []Action {
	m.begin(now)
	for _, tm := range m.TaskManagers() {
		tm.LastHeartbeat, tm.rejoin, tm.rejoinBy = now, true, now.Add(rejoinTimeouts*m.cfg.HeartbeatTimeout)
	}
	for _, id := range m.order {
		j := m.jobs[id]
		if j.ckpt != nil {
			m.abandonCheckpoints(j)
			m.abandonCopies(j)
		}
		if partialUnderWay(j) {
			m.partialFallback(j, "the scheduler's leader changed")
			continue
		}
		if j.State == api.JobDeploying || j.State == api.JobRunning {
			j.awaiting = m.attemptTMs(j)
			slices.Sort(j.awaiting)
			m.setState(j, j.State, fmt.Sprintf("attempt %d: scheduler failover, waiting for task managers %s to register again",
				j.Attempt, strings.Join(j.awaiting, ", ")))
		}
	}
	m.log.Info("leading", "task managers", len(m.tms), "jobs", len(m.order))
	return m.end()
}

// abandonCheckpoints fails a job's checkpoints in flight: those pending in
// the coordinator and those whose metadata was being written.
func (m *Machine) abandonCheckpoints(j *Job) {
	m.checkpointActions(j, j.ckpt.coord.Stop(abandoned))
	for _, st := range slices.Clone(j.ckpt.history) {
		if st.Status == api.CheckpointInProgress {
			m.failCheckpoint(j, st.ID, abandoned)
		}
	}
	m.fallBackIfFailed(j)
	if md := j.ckpt.latest(); md != nil {
		j.ckpt.coord.SetNextID(md.ID + 1)
	}
}

// adopt takes over the reported tasks of a task manager that registered
// again, and returns the ones adopted: those of a job's current attempt
// that the machine placed on that task manager. Reported states the
// machine does not have yet are applied as task statuses. A current
// attempt with a task on the task manager that it did not report cannot
// be adopted: the job is placed again, restoring its latest completed
// checkpoint, without spending a restart.
func (m *Machine) adopt(tm *TaskManager, reported []Reported) []TaskID {
	var adopted []TaskID
	for _, id := range m.order {
		j := m.jobs[id]
		if (j.State != api.JobDeploying && j.State != api.JobRunning) || !j.uses(tm.ID) {
			continue
		}
		mine := m.reportedOf(j, tm.ID, reported)
		if missing := m.unreported(j, tm.ID, mine); missing != "" {
			m.stopCheckpoints(j, "redeploying")
			m.stopAttempt(j)
			m.setState(j, api.JobWaiting, fmt.Sprintf("task %s of attempt %d was not running on %s when it registered again; placing the job again",
				missing, j.Attempt, tm.ID))
			continue
		}
		attempt, awaited := j.Attempt, slices.Contains(j.awaiting, tm.ID)
		j.awaiting = slices.DeleteFunc(j.awaiting, func(id string) bool { return id == tm.ID })
		for _, r := range mine {
			if t := j.Tasks[r.Task.Stage][r.Task.Subtask]; t.State != r.State && !taskEnded(t.State) {
				m.taskStatus(tm.ID, r.Task, r.State, r.Err, nil, r.Failure)
			}
		}
		if j.Attempt != attempt || (j.State != api.JobDeploying && j.State != api.JobRunning) {
			continue // a reported failure ended the attempt
		}
		for _, r := range mine {
			adopted = append(adopted, r.Task)
		}
		if awaited && len(j.awaiting) == 0 {
			m.adopted(j)
		}
	}
	return adopted
}

// reportedOf returns the reported tasks of a job's current attempt that
// it placed on task manager tm, in stage and subtask order.
func (m *Machine) reportedOf(j *Job, tm string, reported []Reported) []Reported {
	var out []Reported
	for _, r := range reported {
		if _, t := m.task(r.Task); t != nil && r.Task.Job == j.ID && t.TaskManager == tm {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b Reported) int {
		if a.Task.Stage != b.Task.Stage {
			return a.Task.Stage - b.Task.Stage
		}
		return a.Task.Subtask - b.Task.Subtask
	})
	return slices.CompactFunc(out, func(a, b Reported) bool { return a.Task == b.Task })
}

// unreported names the first task of a job's current attempt on task
// manager tm that has not ended and is missing from mine, or returns "".
func (m *Machine) unreported(j *Job, tm string, mine []Reported) string {
	for si, stage := range j.Tasks {
		for sub, t := range stage {
			if t.TaskManager != tm || taskEnded(t.State) {
				continue
			}
			id := j.taskID(si, sub)
			if !slices.ContainsFunc(mine, func(r Reported) bool { return r.Task == id }) {
				return fmt.Sprintf("%d/%d", si, sub)
			}
		}
	}
	return ""
}

// adopted goes on with an attempt every task manager of which has
// registered again: the tasks are told of the latest completed checkpoint
// again (or that every input has ended), since the previous leader may
// have counted it complete without telling them, and checkpoints resume.
func (m *Machine) adopted(j *Job) {
	m.setState(j, j.State, fmt.Sprintf("attempt %d adopted after a scheduler failover", j.Attempt))
	switch {
	case j.finalSent:
		m.notifyTasks(j, ckmeta.Final)
	case j.ckpt.latest() != nil:
		m.notifyTasks(j, j.ckpt.latest().ID)
	}
	if j.State == api.JobRunning && j.ckpt != nil && !j.ckpt.coord.Running() && m.checkpointable(j) {
		m.startCheckpoints(j)
	}
}

// checkpointable reports whether a running attempt can take checkpoints:
// every task runs but those whose input has ended, and a source runs.
func (m *Machine) checkpointable(j *Job) bool {
	left := false
	for si, stage := range j.Tasks {
		for sub, t := range stage {
			if j.finishedSources[coordinator.Task{Stage: si, Subtask: sub}] || t.State == api.TaskFinished || t.State == api.TaskEnding {
				continue
			}
			if t.State != api.TaskRunning {
				return false
			}
			left = left || j.Plan.Stages[si].Source != nil
		}
	}
	return left
}
