package autoscale

import (
	"math"
	"strings"
	"time"
)

// Decision is what Decide chose, with the inputs it chose from, so it can be
// recorded and shown (GET /v1/jobs/{id}/autoscaler, once wired).
type Decision struct {
	At time.Time
	// Change is whether any vertex's parallelism changes.
	Change bool
	// Reason says why in one sentence: disabled, within cooldown, not
	// enough metrics, no change, rescale, and whether slots are missing.
	Reason string
	// Vertices is empty when no decision was computed (disabled, cooldown,
	// not enough metrics).
	Vertices []VertexDecision
	// SlotsNeeded is the slots the computed parallelism needs (the largest
	// vertex, as slots are shared by one subtask of each vertex);
	// SlotsMissing how many of them the cluster does not have.
	SlotsNeeded, SlotsMissing int
	// Window is the schedule's window whose bounds applied, as
	// "08:00-20:00", or "".
	Window string
	// Lag is the job's event-time lag when it is above the latency
	// policy's MaxLag, zero otherwise.
	Lag time.Duration
	// Backlog is the records waiting at the sources when it is above the
	// latency policy's MaxBacklog, zero otherwise.
	Backlog float64
}

// VertexDecision is one vertex's new parallelism and why.
type VertexDecision struct {
	ID   int
	Name string
	// Current is the parallelism now, Computed what the formula asks for,
	// New what is chosen after the bounds.
	Current, Computed, New int
	// Required is the records per second the vertex must process:
	// for a source InputRate + Backlog / CatchUp, for the others its
	// inputs' Required × their OutputRatio.
	Required           float64
	InputRate, Backlog float64
	// Splits is a source's splits (Kafka partitions, a followed file),
	// which bound its parallelism; 0 when unknown or not fixed.
	Splits int
	// Observed is the records per second the vertex processed in the
	// window; OutputRatio its records out per record in.
	Observed, OutputRatio float64
	// Busiest is the subtask with the largest busy share; Busy,
	// BackPressure and Idle are its shares, LoadShare its share of the
	// vertex's records, HotShare the part of the vertex's records taken as
	// unsplittable, TrueRate its records per busy second.
	Busiest                                                 int
	Busy, BackPressure, Idle, LoadShare, HotShare, TrueRate float64
	// Notes are the rules that bound the result (skew, factors, limits,
	// slots), in the order they applied.
	Notes []string
}

// Skewed tells that skew limited the vertex: its busiest subtask's hot
// share is more than one subtask can take at the target, whatever the
// parallelism.
func (v VertexDecision) Skewed() bool {
	for _, n := range v.Notes {
		if strings.HasPrefix(n, skewNote) {
			return true
		}
	}
	return false
}

// Balanced tells that the vertex, a source, was given a parallelism other
// than the computed one to spread its splits evenly (its note says which).
func (v VertexDecision) Balanced() bool {
	for _, n := range v.Notes {
		if strings.HasPrefix(n, splitsNote) {
			return true
		}
	}
	return false
}

// finite replaces a NaN or infinite figure by 0, so that a decision can
// always be written as JSON (the journal does): a metric a task manager
// reported wrong must not stop the scheduler.
func (v *VertexDecision) finite() {
	for _, f := range []*float64{&v.Required, &v.InputRate, &v.Backlog, &v.Observed, &v.OutputRatio,
		&v.Busy, &v.BackPressure, &v.Idle, &v.LoadShare, &v.HotShare, &v.TrueRate} {
		if math.IsNaN(*f) || math.IsInf(*f, 0) {
			*f = 0
		}
	}
}
