package schedmetrics

import "time"

// Snapshot is the scheduler's state at a scrape, as plain data: the
// scheduler builds it under its lock and the Collector reads it after.
type Snapshot struct {
	// Leader is true when this scheduler leads its group (a single
	// scheduler always does); Term is the replicated log's current term.
	Leader bool
	Term   uint64
	// TaskManagers are the live task managers, Slots their slots and
	// FreeSlots the slots no job holds.
	TaskManagers     int
	Slots, FreeSlots int
	Jobs             []Job
}

// Job is one job in a Snapshot.
type Job struct {
	ID, Name string
	// State is one of the api.Job* states.
	State string
	// Restarts and Rescales count the job's restarts after failures and
	// its completed rescales.
	Restarts, Rescales int
	// LastRestartDowntime and LastRescaleDowntime are the time the job
	// last spent not running for a restart or a rescale; zero until the
	// first.
	LastRestartDowntime, LastRescaleDowntime time.Duration
	// CheckpointsCompleted and CheckpointsFailed count checkpoints over
	// the job's life.
	CheckpointsCompleted, CheckpointsFailed int64
	// LastCheckpoint is the newest completed checkpoint, nil before the
	// first.
	LastCheckpoint *Checkpoint
	Vertices       []Vertex
	// Autoscaler is nil for a job whose autoscaler is off.
	Autoscaler *Autoscaler
}

// Autoscaler is a job's autoscaler in a Snapshot.
type Autoscaler struct {
	// Rescales counts the rescales it started.
	Rescales int
	// SlotsMissing is what its latest decision needed and the cluster did
	// not have; SkewedVertices how many vertices skew limited in it.
	SlotsMissing, SkewedVertices int
}

// Checkpoint is a completed checkpoint in a Snapshot.
type Checkpoint struct {
	// Duration runs from its trigger to its completion.
	Duration time.Duration
	// FullBytes is the size of all state it refers to; IncrementalBytes
	// what it uploaded.
	FullBytes, IncrementalBytes int64
}

// Vertex is one stage of a job in a Snapshot, its subtasks' figures added
// up.
type Vertex struct {
	Name string
	// Parallelism is the stage's parallelism in the job's plan.
	Parallelism           int
	RecordsIn, RecordsOut int64
	// StateBytes is the size of the stage's state in the last completed
	// checkpoint; -1 when there is none.
	StateBytes int64
	// Operators are the live sizes of the keyed state of the stage's
	// stateful operators, added up over its subtasks.
	Operators []OperatorState
}

// OperatorState is the live size of one operator's keyed state.
type OperatorState struct {
	Operator    string
	Keys, Bytes int64
}
