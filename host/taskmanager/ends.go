package taskmanager

import (
	"fmt"
	"github.com/floe-stream/floe/internal/excerpt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

// A task's end (FINISHED, FAILED or CANCELED) is never lost: it is kept in
// TaskManager.ends until a scheduler has it, either from UpdateTaskStatus,
// retried after every answered heartbeat, or in the RegisterRequest of a
// re-registration. A scheduler may therefore hear of an end twice.

// ended moves a finished task from the running tasks to the unreported
// ends, in one step so that a re-registration sees it in one or the other,
// and reports it.
func (tm *TaskManager) ended(r *running, state floev1.TaskState, msg string) {
	tm.endedWith(r, state, msg, nil)
}

// endedWith is ended with where a failure arose (nil: not known).
func (tm *TaskManager) endedWith(r *running, state floev1.TaskState, msg string, f *floev1.Failure) {
	key := keyOf(r.id)
	u := &floev1.TaskStatusUpdate{Task: r.id, State: state, Error: excerpt.Cut(msg, maxReportedError), Metrics: r.metrics(r.id), Failure: f}
	tm.mu.Lock()
	if tm.tasks[key] == r {
		delete(tm.tasks, key)
	}
	tm.ends[key] = u
	tm.mu.Unlock()
	tm.deliver(key, u)
}

// Idle reports whether the task manager runs no task and the scheduler has
// heard of the end of every task that ran: stopping it then cancels
// nothing and leaves nothing to report.
func (tm *TaskManager) Idle() bool {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return len(tm.tasks) == 0 && len(tm.ends) == 0
}

// deliver reports the end u of task key once, and forgets it when the
// scheduler has it.
func (tm *TaskManager) deliver(key taskKey, u *floev1.TaskStatusUpdate) {
	if err := tm.sendOnce(u); err != nil {
		if unreached(err) {
			tm.log.Warn("reporting a task's end; keeping it for the next heartbeat or registration", "task", key, "state", u.State, "err", err)
			return
		}
		if short := shortened(u, err); short != nil {
			// Refused as too large or malformed: the short form still
			// ends the task, so that its job does not wait for ever.
			tm.log.Warn("reporting a task's end; sending a shorter error", "task", key, "state", u.State, "err", err)
			tm.mu.Lock()
			if tm.ends[key] == u {
				tm.ends[key] = short
			}
			tm.mu.Unlock()
			tm.deliver(key, short)
			return
		}
		// The scheduler heard it, and refused it: a retry would not help.
		tm.log.Warn("reporting a task's end", "task", key, "state", u.State, "err", err)
	}
	tm.mu.Lock()
	if tm.ends[key] == u {
		delete(tm.ends, key)
	}
	tm.mu.Unlock()
}

// shortened returns u with its error cut to shortError bytes when the
// scheduler refused u as too large or malformed and the error could be
// why; otherwise nil.
func shortened(u *floev1.TaskStatusUpdate, err error) *floev1.TaskStatusUpdate {
	if c := status.Code(err); (c != codes.ResourceExhausted && c != codes.InvalidArgument) || len(u.Error) <= shortError {
		return nil
	}
	short := proto.CloneOf(u)
	short.Error = fmt.Sprintf("%s (the scheduler refused a longer report: %s)", excerpt.Cut(u.Error, shortError), status.Code(err))
	return short
}

// unreached reports whether err may mean that the scheduler did not get the
// call: it is gone, not the leader, or did not answer in time.
func unreached(err error) bool {
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled:
		return true
	}
	return false
}

// flushEnds retries every unreported end.
func (tm *TaskManager) flushEnds() {
	tm.mu.Lock()
	ends := make(map[taskKey]*floev1.TaskStatusUpdate, len(tm.ends))
	for k, u := range tm.ends {
		ends[k] = u
	}
	tm.mu.Unlock()
	for k, u := range ends {
		tm.deliver(k, u)
	}
}

// dropEnds forgets the unreported ends, after a fresh registration: the
// scheduler declared this task manager dead, so it no longer waits for them.
func (tm *TaskManager) dropEnds() {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	clear(tm.ends)
}
