// Package autoscale is the decision core of the scheduler's autoscaler
// (issue 20): a pure function from what is known about a running job — its
// plan shape, a window of per-subtask metric samples, the cluster's free
// slots, the job's policy and the time of its last rescale — to a Decision:
// a new parallelism per vertex, or no change, with the reason and the inputs
// it was computed from.
//
// The method is FLIP-271's. A vertex's true processing rate is the records
// it processed per second of busy time (time neither idle nor back-pressured),
// so it does not depend on how loaded the vertex happens to be. The rate a
// vertex must sustain starts at the sources — their input rate, plus their
// backlog divided by the catch-up duration — and flows down the graph through
// each vertex's observed output/input ratio. The new parallelism is the
// smallest that keeps the busiest subtask at or under the target
// utilization, with the busiest subtask's "hot" share treated as one key
// group that cannot be split (see Parallelism for the rule), then clamped by
// the scale factors, the policy's min and max, the vertex's key groups and
// the free slots.
//
// Decide never starts goroutines, reads the clock or does I/O: the time of
// the decision is an argument. A Scaler (scaler.go) is the state of one
// job between decisions: it turns heartbeats' counters into Samples and
// calls Decide once per interval, with times given to it. The scheduler
// keeps one per job, journals the decisions that change a parallelism and
// applies them as rescales (scheduler/autoscaler.go, docs/autoscaling.md).
package autoscale
