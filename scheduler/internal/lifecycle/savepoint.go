package lifecycle

import (
	"fmt"
	"slices"
	"time"

	"github.com/floe-stream/floe/internal/ckmeta"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/coordinator"
)

// MaxSavepointTriggers is how many savepoint triggers a job keeps: the
// newest, whatever their state.
const MaxSavepointTriggers = 100

// SavepointRequest is a savepoint asked for: its trigger id (chosen by the
// caller, so that every machine replaying the log agrees on it), the
// directory to copy it into, and whether the job stops once it is taken.
type SavepointRequest struct {
	Trigger string
	Dir     string
	Stop    bool
}

// Savepoint takes a checkpoint of a running job now, for a savepoint, and
// records the trigger in the job, IN_PROGRESS; it returns the checkpoint's
// id. When the checkpoint fails, so does the trigger. When it completes, a
// SavepointReady action asks for the copy, and the checkpoint stays pinned
// (retention keeps its files) until SavepointDone says how the copy went.
func (m *Machine) Savepoint(now time.Time, id string, req SavepointRequest) (int64, []Action, error) {
	m.begin(now)
	j, ok := m.jobs[id]
	switch {
	case !ok:
		return 0, nil, fmt.Errorf("%w: no job %q", api.ErrNotFound, id)
	case j.State != api.JobRunning:
		return 0, nil, fmt.Errorf("%w: job %s is %s; savepoints are taken of running jobs", api.ErrConflict, id, j.State)
	case j.ckpt == nil:
		return 0, nil, fmt.Errorf("%w: job %s takes no checkpoints; submit it with --checkpoint-interval to take savepoints", api.ErrConflict, id)
	case req.Trigger != "" && j.ckpt.trigger(req.Trigger) != nil:
		return 0, nil, fmt.Errorf("%w: savepoint trigger %q is already used", api.ErrBadRequest, req.Trigger)
	}
	trig, ok := j.ckpt.coord.TriggerNow(now)
	if !ok {
		return 0, nil, fmt.Errorf("%w: job %s cannot take a checkpoint now", api.ErrConflict, id)
	}
	if req.Trigger == "" { // a log written before triggers
		req.Trigger = fmt.Sprintf("checkpoint-%d", trig.ID)
	}
	t := &api.SavepointTrigger{Trigger: req.Trigger, Status: api.SavepointInProgress, ID: trig.ID, Dir: req.Dir, Stop: req.Stop, TriggeredAt: now}
	j.ckpt.addTrigger(t)
	m.checkpointActions(j, []coordinator.Action{trig})
	return trig.ID, m.end(), nil
}

// SavepointTrigger returns a copy of a job's savepoint trigger. Errors wrap
// api.ErrNotFound.
func (m *Machine) SavepointTrigger(jobID, trigger string) (api.SavepointTrigger, error) {
	j, ok := m.jobs[jobID]
	if !ok {
		return api.SavepointTrigger{}, fmt.Errorf("%w: no job %q", api.ErrNotFound, jobID)
	}
	t := j.ckpt.trigger(trigger)
	if t == nil {
		return api.SavepointTrigger{}, fmt.Errorf("%w: job %s has no savepoint trigger %q (a job keeps its last %d)", api.ErrNotFound, jobID, trigger, MaxSavepointTriggers)
	}
	return *t, nil
}

// addTrigger keeps a new trigger, and the MaxSavepointTriggers-1 before
// it.
func (c *checkpoints) addTrigger(t *api.SavepointTrigger) {
	c.triggers = append(c.triggers, t)
	if n := len(c.triggers); n > MaxSavepointTriggers {
		c.triggers = slices.Clone(c.triggers[n-MaxSavepointTriggers:])
	}
}

// trigger returns the savepoint trigger named id, or nil.
func (c *checkpoints) trigger(id string) *api.SavepointTrigger {
	if c == nil {
		return nil
	}
	for _, t := range c.triggers {
		if t.Trigger == id {
			return t
		}
	}
	return nil
}

// pendingTrigger returns the trigger in progress waiting for checkpoint
// id, or nil.
func (c *checkpoints) pendingTrigger(id int64) *api.SavepointTrigger {
	for _, t := range c.triggers {
		if t.ID == id && t.Status == api.SavepointInProgress {
			return t
		}
	}
	return nil
}

// savepointEnded reports the end of a checkpoint a savepoint may wait for:
// completed (md), it is pinned and handed over to be copied; failed, so is
// the savepoint, for reason.
func (m *Machine) savepointEnded(j *Job, id int64, md *ckmeta.Metadata, reason string) {
	t := j.ckpt.pendingTrigger(id)
	if t == nil {
		return
	}
	if md == nil {
		m.endTrigger(t, "", fmt.Sprintf("checkpoint %d failed: %s", id, reason))
		return
	}
	if j.ckpt.pinned == nil {
		j.ckpt.pinned = map[int64]*ckmeta.Metadata{}
	}
	j.ckpt.pinned[id] = md
	m.emit(SavepointReady{Job: j.ID, ID: id, Trigger: t.Trigger, Dir: t.Dir, Metadata: md})
}

// endTrigger marks a trigger COMPLETED at path, or FAILED for failure.
func (m *Machine) endTrigger(t *api.SavepointTrigger, path, failure string) {
	now := m.now
	t.EndedAt = &now
	if failure != "" {
		t.Status, t.Failure = api.SavepointFailed, failure
		return
	}
	t.Status, t.Path = api.SavepointCompleted, path
}

// SavepointDone reports how the copy of a savepoint's checkpoint went: at
// path, or failed with failure. The checkpoint is unpinned; a savepoint
// that stops its job stops it now, if it still runs. A trigger that is no
// longer in progress (failed by a failover meanwhile) stays as it is.
func (m *Machine) SavepointDone(now time.Time, jobID, trigger string, id int64, path, failure string) []Action {
	m.begin(now)
	j, ok := m.jobs[jobID]
	if !ok || j.ckpt == nil {
		return nil
	}
	delete(j.ckpt.pinned, id)
	t := j.ckpt.trigger(trigger)
	if t == nil || t.Status != api.SavepointInProgress {
		return m.end()
	}
	m.endTrigger(t, path, failure)
	if t.Stop && failure == "" {
		m.stopWithSavepoint(j, path)
	}
	return m.end()
}

// abandonCopies fails the savepoints whose checkpoint completed but whose
// copy the previous leader may not have finished, and unpins their
// checkpoints: a copy is not in the log, so the new leader cannot tell.
func (m *Machine) abandonCopies(j *Job) {
	for _, t := range j.ckpt.triggers {
		if t.Status == api.SavepointInProgress {
			delete(j.ckpt.pinned, t.ID)
			m.endTrigger(t, "", fmt.Sprintf("the scheduler's leader changed while checkpoint %d was copied into the savepoint; trigger a new one", t.ID))
		}
	}
}

// Unpin lets retention delete a checkpoint copied into a savepoint. It is
// kept to replay logs written before SavepointDone.
func (m *Machine) Unpin(jobID string, id int64) {
	if j, ok := m.jobs[jobID]; ok && j.ckpt != nil {
		delete(j.ckpt.pinned, id)
	}
}

// StopWithSavepoint stops a job whose savepoint at path was taken, if it
// still runs. It is kept to replay logs written before SavepointDone.
func (m *Machine) StopWithSavepoint(now time.Time, id, path string) []Action {
	m.begin(now)
	if j, ok := m.jobs[id]; ok {
		m.stopWithSavepoint(j, path)
	}
	return m.end()
}

func (m *Machine) stopWithSavepoint(j *Job, path string) {
	if j.State == api.JobRunning || j.State == api.JobDeploying {
		m.stopCheckpoints(j, "stopped with a savepoint")
		m.stopAttempt(j)
		m.setState(j, api.JobFinished, "stopped with savepoint "+path)
	}
}
