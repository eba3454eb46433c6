package lifecycle

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/floe-stream/floe/internal/ckmeta"
	"github.com/floe-stream/floe/internal/plan"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/coordinator"
)

// maxHistory bounds the checkpoints a job's status lists.
const maxHistory = 50

// Checkpointing configures a job's checkpoints.
type Checkpointing struct {
	Coordinator coordinator.Config
	// Retain is how many completed checkpoints are kept.
	Retain int
	// Store names the checkpoint storage in paths shown to users.
	Store string
}

// checkpoints is a job's checkpointing: the coordinator, the completed
// checkpoints retained, and the history shown to users.
type checkpoints struct {
	coord     *coordinator.Coordinator
	store     string
	retain    int
	completed []*ckmeta.Metadata // oldest first
	history   []*api.CheckpointStatus
	// triggers are the savepoints asked for, oldest first, at most
	// MaxSavepointTriggers.
	triggers []*api.SavepointTrigger
	// pinned are checkpoints being copied into savepoints: their files
	// stay until the copy is done.
	pinned map[int64]*ckmeta.Metadata
	// stopping is set while stopCheckpoints stops the coordinator: the
	// checkpoints it aborts end with the attempt.
	stopping bool
}

func newCheckpoints(c Checkpointing) *checkpoints {
	return &checkpoints{coord: coordinator.New(c.Coordinator), store: c.Store, retain: c.Retain}
}

// latest returns the newest completed checkpoint, or nil.
func (c *checkpoints) latest() *ckmeta.Metadata {
	if c == nil || len(c.completed) == 0 {
		return nil
	}
	return c.completed[len(c.completed)-1]
}

func (c *checkpoints) status(id int64) *api.CheckpointStatus {
	for _, h := range c.history {
		if h.ID == id {
			return h
		}
	}
	return nil
}

// restoreFor returns the restore handle of a subtask of the attempt being
// deployed: its share of the latest completed checkpoint, or nil.
// ended lists the channels into it whose senders are not deployed.
func (c *checkpoints) restoreFor(j *Job, stage, sub int, ended []int) ([]byte, error) {
	md := c.latest()
	if md == nil {
		return nil, nil
	}
	r, err := md.RestoreFor(stage, sub, j.Plan.Stages[stage].Parallelism)
	if err != nil {
		return nil, err
	}
	r.EndedInputs = ended
	return ckmeta.Marshal(r)
}

// done returns, by stage and subtask, the subtasks that the checkpoint the
// attempt restores recorded as done (ckmeta.Metadata.Done): a restore does
// not deploy them. It returns nil when there are none, or when every
// subtask is done, which leaves nothing to run the job's end.
func (c *checkpoints) done(j *Job) [][]bool {
	md := c.latest()
	if md == nil {
		return nil
	}
	out := make([][]bool, len(j.Plan.Stages))
	n, all := 0, 0
	for si, st := range j.Plan.Stages {
		out[si] = make([]bool, st.Parallelism)
		for sub := range out[si] {
			out[si][sub] = md.Done(si, sub, st.Parallelism)
			if out[si][sub] {
				n++
			}
			all++
		}
	}
	if n == 0 || n == all {
		return nil
	}
	return out
}

// sourceDone records subtask sub of stage si as a finished source, if it
// is a source, so that checkpoints neither trigger nor wait for it.
func (j *Job) sourceDone(si, sub int) {
	if j.Plan.Stages[si].Source == nil {
		return
	}
	if j.finishedSources == nil {
		j.finishedSources = map[coordinator.Task]bool{}
	}
	j.finishedSources[coordinator.Task{Stage: si, Subtask: sub}] = true
}

// endedInputs returns the channels into subtask sub of stage si whose
// senders are done.
func endedInputs(p *plan.Plan, done [][]bool, si, sub int) []int {
	var out []int
	for _, e := range p.Stages[si].Inputs {
		for from, d := range done[e.From] {
			if d && slices.Contains(p.Targets(e, from), sub) {
				out = append(out, p.Channel(e, from))
			}
		}
	}
	return out
}

// startCheckpoints begins checkpointing a running attempt.
func (m *Machine) startCheckpoints(j *Job) {
	if j.ckpt == nil {
		return
	}
	var tasks, sources, ending []coordinator.Task
	for si, st := range j.Plan.Stages {
		for sub := 0; sub < st.Parallelism; sub++ {
			t := coordinator.Task{Stage: si, Subtask: sub}
			state := j.Tasks[si][sub].State
			if j.finishedSources[t] || state == api.TaskFinished {
				continue // it finished before the attempt was all running
			}
			tasks = append(tasks, t)
			switch {
			case state == api.TaskEnding:
				ending = append(ending, t)
			case st.Source != nil:
				sources = append(sources, t)
			}
		}
	}
	j.ckpt.coord.Start(m.now, tasks, sources)
	for _, t := range ending {
		m.checkpointActions(j, j.ckpt.coord.Ending(m.now, t))
	}
}

// stopCheckpoints ends checkpointing of the current attempt.
func (m *Machine) stopCheckpoints(j *Job, reason string) {
	if j.ckpt != nil {
		j.ckpt.stopping = true
		m.checkpointActions(j, j.ckpt.coord.Stop(reason))
		j.ckpt.stopping = false
	}
}

// taskEnded adapts checkpointing to a task whose input has ended, so that
// checkpoints go on while the rest of the job runs (coordinator's doc). A
// source that has read all its splits finishes while the others go on;
// later checkpoints record it as finished, so a restore does not read its
// splits again. Any other task that finished is no longer waited for; one
// that is ending (its sink holds output for the final commit) is triggered
// directly and acknowledges with that output.
func (m *Machine) taskEnded(j *Job, id TaskID, state string) {
	if j.ckpt == nil {
		return
	}
	t := coordinator.Task{Stage: id.Stage, Subtask: id.Subtask}
	if state == api.TaskEnding {
		m.checkpointActions(j, j.ckpt.coord.Ending(m.now, t))
		return
	}
	j.sourceDone(id.Stage, id.Subtask)
	m.checkpointActions(j, j.ckpt.coord.Finish(m.now, t))
}

// checkpointActions carries out what the coordinator decided.
func (m *Machine) checkpointActions(j *Job, acts []coordinator.Action) {
	for _, a := range acts {
		switch a := a.(type) {
		case coordinator.Trigger:
			if j.ckpt.status(a.ID) == nil { // not a pending one triggered at an ending task
				m.recordCheckpoint(j, &api.CheckpointStatus{ID: a.ID, Status: api.CheckpointInProgress, Attempt: j.Attempt, TriggeredAt: m.now})
			}
			if r := j.rescale; r == nil || r.failed == "" { // else stopped below
				m.triggerAt(j, a)
			}
		case coordinator.Abort:
			m.failCheckpoint(j, a.ID, a.Reason)
		case coordinator.Complete:
			md, err := m.metadata(j, a)
			if err != nil {
				m.failCheckpoint(j, a.ID, err.Error())
				continue
			}
			m.emit(WriteMetadata{Job: j.ID, Attempt: j.Attempt, Metadata: md})
		}
	}
	m.fallBackIfFailed(j)
}

// fallBackIfFailed takes the whole-job path for a partial rescale whose
// checkpoint failed (rescaleFailed).
func (m *Machine) fallBackIfFailed(j *Job) {
	if r := j.rescale; r != nil && r.failed != "" {
		m.partialFallback(j, fmt.Sprintf("rescale checkpoint %d failed: %s", r.checkpoint, r.failed))
	}
}

func (m *Machine) recordCheckpoint(j *Job, st *api.CheckpointStatus) {
	h := append(j.ckpt.history, st)
	if len(h) > maxHistory {
		h = h[len(h)-maxHistory:]
	}
	j.ckpt.history = h
}

func (m *Machine) failCheckpoint(j *Job, id int64, reason string) {
	m.rescaleFailed(j, id, reason)
	m.savepointEnded(j, id, nil, reason)
	if st := j.ckpt.status(id); st != nil && st.Status == api.CheckpointInProgress {
		j.Stats.CheckpointsFailed++
		st.Status, st.Message = api.CheckpointFailed, reason
		st.DurationMillis = m.now.Sub(st.TriggeredAt).Milliseconds()
	}
	m.log.Warn("checkpoint failed", "job", j.ID, "checkpoint", id, "reason", reason)
}

// triggerAt asks the task managers of the tasks a trigger names (running
// sources and ending tasks) to start a checkpoint.
func (m *Machine) triggerAt(j *Job, a coordinator.Trigger) {
	var seen []attemptTM
	suspend := j.rescale != nil && j.rescale.partial && j.rescale.checkpoint == a.ID
	for _, src := range a.Tasks {
		at := attemptTM{j.attemptOf(j.Tasks[src.Stage][src.Subtask]), j.placement[src.Subtask]}
		if _, ok := m.tms[at.tm]; !ok || slices.Contains(seen, at) {
			continue
		}
		seen = append(seen, at)
		m.emit(TriggerCheckpoint{Job: j.ID, Attempt: at.attempt, ID: a.ID, TaskManager: at.tm, Suspend: suspend})
	}
}

// Ack records a task's acknowledgement of checkpoint id, with its
// snapshot's description (ckmeta.SubtaskState, marshaled).
func (m *Machine) Ack(now time.Time, task TaskID, id int64, state []byte) []Action {
	m.begin(now)
	if j, t := m.task(task); t != nil && j.ckpt != nil {
		m.checkpointActions(j, j.ckpt.coord.Ack(now, id, coordinator.Task{Stage: task.Stage, Subtask: task.Subtask}, state))
	}
	return m.end()
}

// Decline aborts checkpoint id of an attempt because a task, or the
// trigger of a task manager's sources (then task's stage and subtask are
// zero), could not take it.
func (m *Machine) Decline(now time.Time, task TaskID, id int64, reason string) []Action {
	m.begin(now)
	// NB: a failed trigger names no task, only the attempt it was for.
	if j, ok := m.jobs[task.Job]; ok && j.ckpt != nil && j.hasAttempt(task.Attempt) {
		m.checkpointActions(j, j.ckpt.coord.Decline(now, id, coordinator.Task{Stage: task.Stage, Subtask: task.Subtask}, reason))
	}
	return m.end()
}

// metadata assembles a completed checkpoint's metadata from the tasks'
// acknowledgements.
func (m *Machine) metadata(j *Job, a coordinator.Complete) (*ckmeta.Metadata, error) {
	md := &ckmeta.Metadata{
		Version: ckmeta.Version, JobID: j.ID, JobName: j.Plan.Job.Name, ID: a.ID, Attempt: j.Attempt,
		MaxParallelism: j.Plan.Job.MaxParallelism, TriggeredAt: a.Triggered, CompletedAt: m.now,
	}
	for _, st := range j.Plan.Stages {
		md.Stages = append(md.Stages, ckmeta.Stage{Name: st.Name, Parallelism: st.Parallelism})
	}
	for task, h := range a.Handles {
		var st ckmeta.SubtaskState
		if err := ckmeta.Unmarshal(h, &st); err != nil {
			return nil, fmt.Errorf("acknowledgement of task %s: %w", task, err)
		}
		md.Subtasks = append(md.Subtasks, st)
	}
	// A task that finished before acknowledging is recorded as finished:
	// a source has read all its splits, any other task has handed on all
	// it had.
	for si, stage := range j.Tasks {
		for sub, task := range stage {
			t := coordinator.Task{Stage: si, Subtask: sub}
			if _, acked := a.Handles[t]; acked || (!j.finishedSources[t] && task.State != api.TaskFinished) {
				continue
			}
			st := ckmeta.SubtaskState{Stage: si, Subtask: sub, Finished: true}
			if j.Plan.Stages[si].Source != nil {
				st.Source = [][]byte{}
			}
			md.Subtasks = append(md.Subtasks, st)
		}
	}
	slices.SortFunc(md.Subtasks, func(a, b ckmeta.SubtaskState) int {
		if a.Stage != b.Stage {
			return a.Stage - b.Stage
		}
		return a.Subtask - b.Subtask
	})
	return md, nil
}

// MetadataWritten reports the outcome of a WriteMetadata. Once written, a
// checkpoint counts as complete: it is retained, what older checkpoints
// alone refer to is deleted, and the tasks are told so that sinks commit.
func (m *Machine) MetadataWritten(now time.Time, jobID string, attempt int, md *ckmeta.Metadata, err error) []Action {
	m.begin(now)
	j, ok := m.jobs[jobID]
	if !ok || j.ckpt == nil {
		return nil
	}
	if st := j.ckpt.status(md.ID); st != nil && st.Status != api.CheckpointInProgress {
		return nil // abandoned (Lead) or failed meanwhile: never counted complete
	}
	if err != nil {
		m.failCheckpoint(j, md.ID, fmt.Sprintf("writing metadata: %v", err))
		m.fallBackIfFailed(j)
		return m.end()
	}
	j.ckpt.completed = append(j.ckpt.completed, md)
	j.Stats.CheckpointsCompleted++
	if st := j.ckpt.status(md.ID); st != nil {
		incr, full := md.Sizes()
		t := md.CompletedAt
		st.Status, st.CompletedAt, st.IncrementalBytes, st.FullBytes = api.CheckpointCompleted, &t, incr, full
		st.DurationMillis = md.CompletedAt.Sub(md.TriggeredAt).Milliseconds()
		st.Path = j.ckpt.store + "/" + ckmeta.MetadataPath(j.ID, md.ID)
		for _, sub := range md.Subtasks {
			st.Subtasks = append(st.Subtasks, api.CheckpointSubtaskStatus{Stage: sub.Stage, Subtask: sub.Subtask,
				AlignmentMillis: sub.AlignmentMillis, SyncMillis: sub.SyncMillis, IncrementalBytes: sub.IncrementalBytes, FullBytes: sub.FullBytes})
		}
	}
	m.log.Info("checkpoint completed", "job", j.ID, "checkpoint", md.ID)
	m.savepointEnded(j, md.ID, md, "")
	m.retire(j)
	if attempt == j.Attempt && (j.State == api.JobRunning || j.State == api.JobDeploying) {
		m.notifyTasks(j, md.ID)
		m.rescaleAfter(j, md.ID)
	}
	return m.end()
}

// retire keeps the newest retained checkpoints and deletes the files only
// older ones refer to.
func (m *Machine) retire(j *Job) {
	c := j.ckpt
	if len(c.completed) <= c.retain {
		return
	}
	old := c.completed[:len(c.completed)-c.retain]
	c.completed = slices.Clone(c.completed[len(c.completed)-c.retain:])
	keep := map[string]bool{}
	for _, md := range c.completed {
		for _, f := range md.Files() {
			keep[f] = true
		}
	}
	for _, md := range c.pinned {
		for _, f := range md.Files() {
			keep[f] = true
		}
	}
	var drop []string
	for _, md := range old {
		if md.Store != "" {
			continue // a savepoint the job started from: not ours to delete
		}
		drop = append(drop, ckmeta.MetadataPath(j.ID, md.ID))
		for _, f := range md.Files() {
			if !keep[f] {
				drop = append(drop, f)
				keep[f] = true // once
			}
		}
	}
	if len(drop) > 0 {
		m.emit(DeleteFiles{Job: j.ID, Paths: drop})
	}
}

// notifyTasks tells every task manager of the current attempt that
// checkpoint id is complete.
func (m *Machine) notifyTasks(j *Job, id int64) {
	for _, a := range m.attemptTMsOf(j) {
		m.emit(NotifyCheckpoint{Job: j.ID, Attempt: a.attempt, ID: id, TaskManager: a.tm})
	}
}

// dropBadCheckpoint forgets the checkpoint a failed restore found
// unreadable (missing or corrupt files), so the next attempt falls back to
// the one before. A restore that failed for another reason (a store or a
// broker that is down) is retried from the same checkpoint: falling back
// would undo the effects it committed.
func (m *Machine) dropBadCheckpoint(j *Job, reason string) {
	md := j.ckpt.latest()
	if md == nil || !strings.Contains(reason, ckmeta.Unreadable(md.ID)+":") {
		return
	}
	j.ckpt.completed = j.ckpt.completed[:len(j.ckpt.completed)-1]
	m.log.Warn("checkpoint cannot be restored; falling back to the previous one", "job", j.ID, "checkpoint", md.ID, "reason", reason)
	if st := j.ckpt.status(md.ID); st != nil {
		st.Status, st.Message = api.CheckpointFailed, "restore failed: "+reason
	}
}
