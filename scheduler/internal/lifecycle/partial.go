package lifecycle

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/floe-stream/floe/internal/plan"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/placement"
)

// A partial rescale (Config.PartialRescale) redeploys only the stages
// whose parallelism changes and keeps the others' tasks, their Wasm
// instances and their state, running:
//
//  1. Rescale triggers the rescale's checkpoint as a suspend checkpoint
//     (TriggerCheckpoint.Suspend): each task, once it has taken it and
//     forwarded its barrier, reads and emits nothing more. Nothing is
//     sent after the barrier, so the checkpoint is a consistent cut of
//     the job as it will run on.
//  2. Once the checkpoint completes (partialAfter), the tasks of the
//     changed stages are cancelled (CancelTask) and their new subtasks
//     deployed in a new attempt, restoring their share of the checkpoint,
//     on the slots the job holds (and on more free slots if the widest
//     stage grows). The job is DEPLOYING; the kept tasks keep the attempt
//     they were deployed in (Task.Attempt), and task statuses, acks and
//     declines are fenced by each task's own attempt.
//  3. When every new task runs, each kept task is told to go on (Resume)
//     with its new downstream endpoints and channel count, and the
//     rescale is reported with its downtime; checkpoints start again.
//     Every channel of the job is then one of the new attempt (a kept
//     task's inbox too, Resume.ChannelAttempt), so that no new sender
//     attaches to a kept task's old inbox before the resume replaces it.
//
// Whatever fails on the way falls back to the whole-job path: a rescale
// checkpoint that fails, a scheduler failover while the new subtasks
// deploy, or a Resume that fails stop every task and place the whole job
// again at the new parallelism, restoring the latest completed checkpoint
// (ResumeFailed and the checkpoint's failure spend no restart: nothing
// failed in the job). A new task that fails, or a task manager lost, fails
// the attempt as always; the job restarts whole under its strategy.
//
// A rescale is partial only when the new plan has the same stages and
// edges as the old (changedStages) and every task runs: a change of
// chaining, one that changes every stage, or one of a job part of which
// has ended takes the whole-job path.

// changedStages returns the stages whose parallelism differs between old
// and cur, and whether a partial rescale can take the job from one to the
// other: the same stages (steps and chaining) joined by the same edges,
// with at least one stage unchanged and one changed.
func changedStages(old, cur *plan.Plan) ([]int, bool) {
	if len(old.Stages) != len(cur.Stages) {
		return nil, false
	}
	var changed []int
	for i := range old.Stages {
		a, b := &old.Stages[i], &cur.Stages[i]
		if !sameStage(a, b) {
			return nil, false
		}
		if a.Parallelism != b.Parallelism {
			changed = append(changed, i)
		}
	}
	return changed, len(changed) > 0 && len(changed) < len(old.Stages)
}

// sameStage reports whether two stages run the same steps with the same
// edges, whatever their parallelism.
func sameStage(a, b *plan.Stage) bool {
	if a.Name != b.Name || len(a.Operators) != len(b.Operators) || (a.Source == nil) != (b.Source == nil) ||
		(a.Sink == nil) != (b.Sink == nil) || a.KeyedInput != b.KeyedInput {
		return false
	}
	return slices.EqualFunc(a.Inputs, b.Inputs, sameEdge) && slices.EqualFunc(a.Outputs, b.Outputs, sameEdge)
}

func sameEdge(a, b plan.Edge) bool {
	return a.From == b.From && a.To == b.To && a.Partitioning == b.Partitioning && a.Input == b.Input &&
		a.Output == b.Output && a.StepInput == b.StepInput
}

// partialUnderWay reports whether a partial rescale of the job is
// deploying its new subtasks.
func partialUnderWay(j *Job) bool {
	r := j.rescale
	return r != nil && r.partial && !r.stopped.IsZero() && j.State == api.JobDeploying
}

// partialAfter goes on with a partial rescale once its checkpoint id has
// completed: it replaces the changed stages' tasks and keeps the others.
func (m *Machine) partialAfter(j *Job, id int64) {
	r := j.rescale
	extra, err := m.extraSlots(j, NeededSlots(r.plan))
	if err != nil {
		m.partialFallback(j, fmt.Sprintf("no slots for a partial rescale (%v)", err))
		return
	}
	m.stopCheckpoints(j, "rescaling")
	kept := 0
	for si, stage := range j.Tasks {
		for sub, t := range stage {
			t.Attempt = j.attemptOf(t)
			switch {
			case slices.Contains(r.changed, si):
				if _, ok := m.tms[t.TaskManager]; ok && !taskEnded(t.State) {
					m.emit(CancelTask{Task: j.taskID(si, sub), TaskManager: t.TaskManager})
				}
			case !taskEnded(t.State):
				kept++
			}
		}
	}
	m.resizePlacement(j, NeededSlots(r.plan), extra)
	j.Par, j.OpPar, j.Plan, j.Slots = r.par, r.ops, r.plan, NeededSlots(r.plan)
	j.Attempt++
	j.RunningSince = time.Time{}
	for _, si := range r.changed {
		j.Tasks[si] = nil
		for sub := range j.Plan.Stages[si].Parallelism {
			j.Tasks[si] = append(j.Tasks[si], &Task{State: api.TaskDeploying, TaskManager: j.placement[sub], Attempt: j.Attempt})
		}
		for t := range j.finishedSources {
			if t.Stage == si {
				delete(j.finishedSources, t)
			}
		}
	}
	r.stopped = m.now
	m.setState(j, api.JobDeploying, fmt.Sprintf("rescaling from %s to %s from checkpoint %d: partial, attempt %d deploys stage %s, %d tasks kept running",
		r.from, parallelisms(r.plan), id, j.Attempt, stageList(r.changed), kept))
	for _, si := range r.changed {
		for sub := range j.Plan.Stages[si].Parallelism {
			// NB: a partial rescale is refused once part of the job has ended.
			d, err := m.deployment(j, si, sub, nil)
			if err != nil {
				m.exception(j, nil, "", nil, err.Error())
				m.failAttempt(j, err.Error())
				return
			}
			m.emit(d)
		}
	}
}

// extraSlots takes the free slots a job needs beyond those it holds to
// have need slots, or returns why it cannot.
func (m *Machine) extraSlots(j *Job, need int) ([]string, error) {
	n := need - len(j.placement)
	if n <= 0 {
		return nil, nil
	}
	slots, err := placement.Place(m.view(m.now), n)
	if err != nil {
		return nil, err
	}
	for _, id := range slots {
		m.tms[id].Used++
	}
	return slots, nil
}

// resizePlacement makes the job hold need slots: its own, the ones past
// need given back, and extra.
func (m *Machine) resizePlacement(j *Job, need int, extra []string) {
	if need < len(j.placement) {
		for _, id := range j.placement[need:] {
			if tm, ok := m.tms[id]; ok {
				tm.Used--
			}
		}
		j.placement = j.placement[:need]
	}
	j.placement = append(slices.Clone(j.placement), extra...)
	j.LastPlacement = j.placement
}

// resumeKept tells every kept task of a partial rescale to go on with the
// new plan.
func (m *Machine) resumeKept(j *Job) {
	for si, stage := range j.Tasks {
		if slices.Contains(j.rescale.changed, si) {
			continue
		}
		for sub, t := range stage {
			if taskEnded(t.State) {
				continue
			}
			m.emit(Resume{Task: j.taskID(si, sub), TaskManager: t.TaskManager, ChannelAttempt: j.Attempt, Downstream: m.downstream(j, si, sub),
				UpstreamParallelism: j.Plan.Channels(si), Parallelism: j.Par, OperatorParallelism: j.OpPar})
		}
	}
}

// partialFallback gives up a partial rescale for the whole-job path: it
// stops every task and places the job again at the new parallelism,
// restoring the latest completed checkpoint, without spending a restart.
func (m *Machine) partialFallback(j *Job, why string) {
	r := j.rescale
	r.partial, r.failed = false, ""
	m.stopCheckpoints(j, "rescaling")
	m.stopAttempt(j)
	j.Par, j.OpPar, j.Plan, j.Slots = r.par, r.ops, r.plan, NeededSlots(r.plan)
	if r.stopped.IsZero() {
		r.stopped = m.now
	}
	from := "from the start"
	if md := j.ckpt.latest(); md != nil {
		from = fmt.Sprintf("from checkpoint %d", md.ID)
	}
	m.log.Warn("partial rescale falls back to the whole job", "job", j.ID, "why", why)
	m.setState(j, api.JobWaiting, fmt.Sprintf("%s: rescaling the whole job from %s to %s %s", why, r.from, parallelisms(r.plan), from))
}

// ResumeFailed reports that a Resume could not reach its task, or that
// the task could not go on: the partial rescale falls back to placing the
// whole job again, restoring its latest completed checkpoint, without
// spending a restart. A report of a stale task changes nothing.
func (m *Machine) ResumeFailed(now time.Time, id TaskID, tm, err string) []Action {
	m.begin(now)
	if j, t := m.task(id); t != nil && t.TaskManager == tm && (j.State == api.JobRunning || j.State == api.JobDeploying) {
		m.stopCheckpoints(j, "redeploying")
		m.stopAttempt(j)
		m.setState(j, api.JobWaiting, fmt.Sprintf("task %d/%d of attempt %d on %s did not resume after a partial rescale: %s; placing the job again",
			id.Stage, id.Subtask, id.Attempt, tm, err))
	}
	return m.end()
}

// stageList renders stage indexes, e.g. "1" or "1, 2".
func stageList(stages []int) string {
	s := make([]string, len(stages))
	for i, st := range stages {
		s[i] = fmt.Sprint(st)
	}
	return strings.Join(s, ", ")
}
