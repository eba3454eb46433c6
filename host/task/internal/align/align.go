package align

import "fmt"

// Outcome is what the task does after a barrier or an end.
type Outcome struct {
	// Began is the checkpoint whose alignment the event began, or 0. The
	// task notes the time, to report how long alignment took.
	Began int64
	// Blocked is the input held back from now on, or -1.
	Blocked int
	// Snapshot is the checkpoint to take now, or 0: every input that has
	// not ended has delivered its barrier. Every input is unblocked, and
	// what was held waits in Replay. The task snapshots before it handles
	// any of it.
	Snapshot int64
}

// none is the outcome that asks nothing of the task.
var none = Outcome{Blocked: -1}

// Aligner aligns the barriers of a task's inputs, buffering messages of
// type M. It is not safe for concurrent use.
type Aligner[M any] struct {
	// aligning is the checkpoint being aligned, 0 when none is.
	aligning int64
	blocked  []bool
	ended    []bool
	// held are the messages of the blocked inputs, by input.
	held [][]M
	// replay[next:] are the held messages of the last aligned checkpoint
	// that the task has yet to handle.
	replay []M
	next   int
}

// New returns an aligner of inputs inputs.
func New[M any](inputs int) *Aligner[M] {
	return &Aligner[M]{blocked: make([]bool, inputs), ended: make([]bool, inputs), held: make([][]M, inputs)}
}

// Aligning returns the checkpoint being aligned, or 0.
func (a *Aligner[M]) Aligning() int64 { return a.aligning }

// Blocked reports whether input i is held back.
func (a *Aligner[M]) Blocked(i int) bool { return a.blocked[i] }

// Hold keeps m, the next message of input i, if input i is blocked, and
// reports whether it did. Every message of a blocked input is held,
// barriers and its end included; the task handles any other itself,
// calling Barrier or End for those.
func (a *Aligner[M]) Hold(i int, m M) bool {
	if !a.blocked[i] {
		return false
	}
	a.held[i] = append(a.held[i], m)
	return true
}

// Barrier handles barrier id of input i, which is not blocked. A barrier
// of another checkpoint than the one being aligned is an error: the task
// cannot take both (see testdata/newer-barrier).
func (a *Aligner[M]) Barrier(i int, id int64) (Outcome, error) {
	switch {
	case id <= 0:
		return none, fmt.Errorf("barrier %d from sender %d: checkpoint ids are positive", id, i)
	case a.blocked[i] || a.ended[i]:
		return none, fmt.Errorf("barrier %d from sender %d, which is blocked or ended", id, i)
	case a.aligning != 0 && id != a.aligning:
		return none, fmt.Errorf("barrier %d from sender %d while aligning checkpoint %d", id, i, a.aligning)
	}
	out := none
	if a.aligning == 0 {
		a.aligning, out.Began = id, id
	}
	a.blocked[i], out.Blocked = true, i
	if a.complete() {
		out.Blocked, out.Snapshot = -1, a.release()
	}
	return out, nil
}

// End handles the end of input i, which is not blocked: the checkpoint
// being aligned no longer waits for it.
func (a *Aligner[M]) End(i int) Outcome {
	a.ended[i] = true
	if a.aligning == 0 || !a.complete() {
		return none
	}
	out := none
	out.Snapshot = a.release()
	return out
}

// Replay returns the next held message the task must handle before it
// reads its inputs again, and false when there is none. The task passes it
// to Hold first, like a message just received: it may belong to an input
// blocked by a later barrier.
func (a *Aligner[M]) Replay() (M, bool) {
	var zero M
	if a.next == len(a.replay) {
		return zero, false
	}
	m := a.replay[a.next]
	a.replay[a.next] = zero
	a.next++
	if a.next == len(a.replay) {
		a.replay, a.next = a.replay[:0], 0
	}
	return m, true
}

// complete reports whether every input that has not ended is blocked.
func (a *Aligner[M]) complete() bool {
	for i, b := range a.blocked {
		if !b && !a.ended[i] {
			return false
		}
	}
	return true
}

// release ends the alignment: it unblocks every input and queues what they
// held for replay, input by input, after what is left to replay. It
// returns the checkpoint that was aligned.
func (a *Aligner[M]) release() int64 {
	id := a.aligning
	a.aligning = 0
	if a.next > 0 {
		n := copy(a.replay, a.replay[a.next:])
		clear(a.replay[n:])
		a.replay, a.next = a.replay[:n], 0
	}
	for i := range a.held {
		a.replay = append(a.replay, a.held[i]...)
		clear(a.held[i])
		a.held[i] = a.held[i][:0]
		a.blocked[i] = false
	}
	return id
}
