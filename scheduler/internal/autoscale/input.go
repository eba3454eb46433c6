package autoscale

import "time"

// Vertex is one vertex of a job's plan. Vertices are given in topological
// order: a vertex's inputs come before it.
type Vertex struct {
	ID          int
	Name        string
	Parallelism int
	// KeyGroups is the vertex's maximum parallelism (its number of key
	// groups); it never scales beyond it.
	KeyGroups int
	Source    bool
	// Inputs are the IDs of the vertices feeding this one.
	Inputs []int
	// PeakRate is the most records per second the vertex's busiest
	// subtask processed in any decision's window so far, at whatever
	// parallelism, and PeakTrueRate its true rate then; zero if none. The
	// Scaler keeps them across rescales: a much lighter load's true rate
	// is diluted by per-batch costs, and PeakTrueRate is used instead when
	// larger (see capacityRate).
	PeakRate, PeakTrueRate float64
}

// Sample is one subtask's metrics over the Interval ending at At, as a
// task manager's heartbeat reports them.
type Sample struct {
	At       time.Time
	Interval time.Duration
	Vertex   int
	Subtask  int
	// RecordsIn is the records the subtask processed (for a source, read
	// from outside) in the interval; RecordsOut the records it emitted.
	RecordsIn, RecordsOut float64
	// Busy, BackPressure and Idle are the shares of the interval the
	// subtask spent processing, blocked on its outputs and waiting for
	// input.
	Busy, BackPressure, Idle float64
	// For sources: InputRate is the rate records arrive outside (e.g. the
	// Kafka partitions' produce rate) in records per second, zero if
	// unknown; Backlog is what is waiting (Kafka lag in records, or a
	// file's bytes left converted to records by the edge); GeneratorRate is
	// a rate-limited generator's configured rate, which wins over
	// InputRate when set.
	InputRate, Backlog, GeneratorRate float64
	// Splits is how many splits a source subtask reads (Kafka partitions,
	// a followed file), when HasSplits; its vertex gains nothing from more
	// subtasks than the splits of all of them.
	Splits    int
	HasSplits bool
	// Lag is the subtask's event-time lag at At (the time minus its input
	// watermark); zero when it has no watermark.
	Lag time.Duration
}

// Cluster is what the scheduler knows of the cluster's capacity.
type Cluster struct {
	// FreeSlots is the number of slots no job holds.
	FreeSlots int
}
