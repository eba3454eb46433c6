package lifecycle

import (
	"fmt"

	"github.com/floe-stream/floe/internal/ckmeta"
)

// Action is something the driver must do: one of the types below.
type Action any

// Endpoint is where a downstream subtask runs.
type Endpoint struct {
	Subtask     int
	TaskManager string
	Addr        string
	// Attempt is the attempt whose channels the downstream subtask reads:
	// the job's current one. A task a partial rescale kept (partial.go)
	// runs under the attempt it was deployed in, but reads and sends on
	// channels of the attempt it was last resumed in.
	Attempt int
}

// Deploy asks task manager TaskManager to run a subtask of an attempt.
type Deploy struct {
	Task        TaskID
	TaskManager string
	// Downstream are the subtasks the task sends to: the targets of each
	// of its stage's output edges, edge after edge (plan.Plan.Targets).
	// UpstreamParallelism is the number of channels into the task
	// (plan.Plan.Channels).
	Downstream          []Endpoint
	UpstreamParallelism int
	// Parallelism and OperatorParallelism are the job's overrides of its
	// spec (zero and nil when none).
	Parallelism         int
	OperatorParallelism map[string]int
	// Restore is the subtask's share of the checkpoint it restores, or nil.
	Restore []byte
}

// CancelTasks asks a task manager to cancel its tasks of an attempt.
type CancelTasks struct {
	Job         string
	Attempt     int
	TaskManager string
	// Check tells that the task manager is suspected lost (a task's
	// channel with it broke): if the call finds it unreachable, the driver
	// feeds LoseTaskManager with a reason that says so (Unreachable).
	Check bool
}

// Unreachable is LoseTaskManager's reason for a task manager at addr that
// a call found unreachable, saying why.
func Unreachable(tm, addr, why string) string {
	return fmt.Sprintf("task manager %s at %s lost: unreachable: %s", tm, addr, why)
}

// TriggerCheckpoint asks a task manager to start checkpoint ID at its
// sources of an attempt. If the call fails, the driver feeds Decline.
type TriggerCheckpoint struct {
	Job         string
	Attempt     int
	ID          int64
	TaskManager string
	// Suspend marks the checkpoint of a partial rescale (partial.go): a
	// task that has taken it and forwarded its barrier reads and emits
	// nothing more, keeping its instances and state, until a Resume or a
	// cancel.
	Suspend bool
}

// CancelTask asks a task manager to cancel one task: a task of a stage
// that a partial rescale replaces, suspended at the rescale's checkpoint.
type CancelTask struct {
	Task        TaskID
	TaskManager string
}

// Resume tells a task suspended at a partial rescale's checkpoint to go
// on with the job's new plan: Parallelism and OperatorParallelism are the
// job's new overrides, Downstream its outputs' targets in that plan (with
// their attempts) and UpstreamParallelism its channels in. If the call
// fails, the driver feeds ResumeFailed.
type Resume struct {
	Task        TaskID
	TaskManager string
	// ChannelAttempt is the attempt of the task's new channels: its inbox
	// is registered under it (see Endpoint.Attempt).
	ChannelAttempt      int
	Downstream          []Endpoint
	UpstreamParallelism int
	Parallelism         int
	OperatorParallelism map[string]int
}

// WriteMetadata asks for a completed checkpoint's metadata to be written;
// the driver reports the outcome with MetadataWritten.
type WriteMetadata struct {
	Job      string
	Attempt  int
	Metadata *ckmeta.Metadata
}

// NotifyCheckpoint tells a task manager's tasks of an attempt that
// checkpoint ID is complete (ckmeta.Final: every input has ended).
type NotifyCheckpoint struct {
	Job         string
	Attempt     int
	ID          int64
	TaskManager string
}

// DeleteFiles asks for files of a job's checkpoint storage to be deleted.
type DeleteFiles struct {
	Job   string
	Paths []string
}

// CloseTaskManager tells that a task manager is forgotten: its connection
// can be closed.
type CloseTaskManager struct{ TaskManager string }

// SavepointReady tells that checkpoint ID, which savepoint Trigger waits
// for, has completed: copy it into Dir, then report SavepointDone. It
// stays pinned until then.
type SavepointReady struct {
	Job      string
	ID       int64
	Trigger  string
	Dir      string
	Metadata *ckmeta.Metadata
}

// JobState reports a job's new state and message.
type JobState struct {
	Job     string
	State   string
	Message string
}
