package api

import (
	"context"
	"time"
)

// JobMetrics is a job's metrics as GET /v1/jobs/{id}/metrics shows them:
// what its task managers last reported in their heartbeats (every second
// by default), added up by stage.
type JobMetrics struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	State    string          `json:"state"`
	Vertices []VertexMetrics `json:"vertices"`
	// Checkpoints is nil for a job without checkpoints.
	Checkpoints *CheckpointSummary `json:"checkpoints,omitempty"`
}

// VertexMetrics are a stage's figures: counts and rates are its subtasks'
// sums, shares of time their mean, watermarks their least.
type VertexMetrics struct {
	Stage       int    `json:"stage"`
	Name        string `json:"name"`
	Parallelism int    `json:"parallelism"`
	TaskFigures
	Subtasks []SubtaskMetrics `json:"subtasks"`
}

// SubtaskMetrics are one subtask's figures.
type SubtaskMetrics struct {
	Subtask     int    `json:"subtask"`
	State       string `json:"state"`
	TaskManager string `json:"taskManager,omitempty"`
	TaskFigures
}

// TaskFigures are the figures of a subtask, or of a stage's subtasks
// together.
type TaskFigures struct {
	RecordsIn  int64 `json:"recordsIn"`
	RecordsOut int64 `json:"recordsOut"`
	// RecordsInPerSecond and RecordsOutPerSecond are how fast the counts
	// grew between the last two heartbeats.
	RecordsInPerSecond  float64 `json:"recordsInPerSecond"`
	RecordsOutPerSecond float64 `json:"recordsOutPerSecond"`
	// Busy, BackPressured and Idle share the last heartbeat interval,
	// 0..1: working, waiting for room downstream, waiting for input.
	Busy          float64 `json:"busy"`
	BackPressured float64 `json:"backPressured"`
	Idle          float64 `json:"idle"`
	// Checkpointing is the share spent taking snapshots in the task's
	// loop, which is not counted as busy; absent when none.
	Checkpointing float64 `json:"checkpointing,omitempty"`
	// Backlog is the records waiting at a source that can tell (Kafka's
	// lag as of its last fetch); Splits the splits it reads (Kafka
	// partitions, a followed file). Both absent when the source cannot
	// tell.
	Backlog *int64 `json:"backlog,omitempty"`
	Splits  *int   `json:"splits,omitempty"`
	// InputWatermark is the event time of the operators; OutputWatermark
	// the last watermark sent downstream. Absent before the first.
	InputWatermark  *time.Time `json:"inputWatermark,omitempty"`
	OutputWatermark *time.Time `json:"outputWatermark,omitempty"`
	// EventTimeLagMillis is the scheduler's clock minus InputWatermark.
	EventTimeLagMillis *int64 `json:"eventTimeLagMillis,omitempty"`
	// Progress is a source's, for a first stage whose source counts the
	// bytes it reads.
	Progress *SourceProgress `json:"progress,omitempty"`
	// OperatorStates are the live sizes of the keyed state of the stage's
	// stateful operators, in chain order; absent for a stage without
	// keyed state.
	OperatorStates []OperatorState `json:"operatorStates,omitempty"`
}

// OperatorState is the live size of one operator's keyed state, as of the
// last heartbeats: its entries (one per key of a value or list state, one
// per map entry of a map state) and their key and value bytes as stored.
type OperatorState struct {
	Operator string `json:"operator"`
	Keys     int64  `json:"keys"`
	Bytes    int64  `json:"bytes"`
}

// SourceProgress is how far a source has read its input.
type SourceProgress struct {
	BytesRead int64 `json:"bytesRead"`
	// BytesTotal is the input's size; absent when it has no known end.
	BytesTotal int64 `json:"bytesTotal,omitempty"`
}

// CheckpointSummary counts a job's checkpoints over its life.
type CheckpointSummary struct {
	Completed int64 `json:"completed"`
	Failed    int64 `json:"failed"`
	// Last is the newest completed checkpoint, without its subtasks.
	Last *CheckpointStatus `json:"last,omitempty"`
}

// MetricsService is implemented by a Service that reports jobs' metrics:
// the REST API serves GET /v1/jobs/{id}/metrics when its Service does.
type MetricsService interface {
	// JobMetrics returns a job's metrics, or an error wrapping ErrNotFound.
	JobMetrics(ctx context.Context, id string) (JobMetrics, error)
}
