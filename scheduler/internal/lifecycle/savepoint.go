package lifecycle

import (
	"fmt"
	"time"

	"github.com/floe-stream/floe/internal/ckmeta"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/coordinator"
)

// Savepoint takes a checkpoint of a running job now, for a savepoint, and
// returns its id. When it ends, a SavepointReady action says how; a
// completed one stays pinned (retention keeps its files) until Unpin.
func (m *Machine) Savepoint(now time.Time, id string) (int64, []Action, error) {
	m.begin(now)
	j, ok := m.jobs[id]
	switch {
	case !ok:
		return 0, nil, fmt.Errorf("%w: no job %q", api.ErrNotFound, id)
	case j.State != api.JobRunning:
		return 0, nil, fmt.Errorf("%w: job %s is %s; savepoints are taken of running jobs", api.ErrConflict, id, j.State)
	case j.ckpt == nil:
		return 0, nil, fmt.Errorf("%w: job %s takes no checkpoints; submit it with --checkpoint-interval to take savepoints", api.ErrConflict, id)
	}
	trig, ok := j.ckpt.coord.TriggerNow(now)
	if !ok {
		return 0, nil, fmt.Errorf("%w: job %s cannot take a checkpoint now", api.ErrConflict, id)
	}
	if j.ckpt.savepoints == nil {
		j.ckpt.savepoints = map[int64]bool{}
	}
	j.ckpt.savepoints[trig.ID] = true
	m.checkpointActions(j, []coordinator.Action{trig})
	return trig.ID, m.end(), nil
}

// savepointEnded reports the end of a checkpoint a savepoint waits for,
// pinning it if it completed.
func (m *Machine) savepointEnded(j *Job, id int64, md *ckmeta.Metadata) {
	if !j.ckpt.savepoints[id] {
		return
	}
	delete(j.ckpt.savepoints, id)
	if md != nil {
		if j.ckpt.pinned == nil {
			j.ckpt.pinned = map[int64]*ckmeta.Metadata{}
		}
		j.ckpt.pinned[id] = md
	}
	m.emit(SavepointReady{Job: j.ID, ID: id, Metadata: md})
}

// Unpin lets retention delete a checkpoint copied into a savepoint.
func (m *Machine) Unpin(jobID string, id int64) {
	if j, ok := m.jobs[jobID]; ok && j.ckpt != nil {
		delete(j.ckpt.pinned, id)
	}
}

// StopWithSavepoint stops a job whose savepoint at path was taken, if it
// still runs.
func (m *Machine) StopWithSavepoint(now time.Time, id, path string) []Action {
	m.begin(now)
	j, ok := m.jobs[id]
	if ok && (j.State == api.JobRunning || j.State == api.JobDeploying) {
		m.stopCheckpoints(j, "stopped with a savepoint")
		m.stopAttempt(j)
		m.setState(j, api.JobFinished, "stopped with savepoint "+path)
	}
	return m.end()
}
