// Package align is the pure core of a task's checkpoint barrier alignment.
//
// A task with several inputs (the subtasks of the stage before it) takes
// checkpoint N once every input has delivered barrier N, so that its
// snapshot covers exactly the records sent before the barriers. From the
// moment input i delivers the barrier until the last input delivers it,
// what input i sends next belongs to the checkpoint after N: the aligner
// blocks input i and holds its messages. When the last barrier arrives the
// task snapshots and handles the held messages, in the order each input
// sent them, before it reads its inputs again. This is Flink's aligned
// exactly-once checkpointing.
//
// An input that ends stops counting: a checkpoint being aligned completes
// without it, and one begun later does not wait for it.
//
// The task drives an Aligner with events (a barrier, an end, any other
// message of an input) and does what each returns: hold the message, note
// that alignment began, snapshot, replay what was held. The Aligner starts
// no goroutine, reads no clock and does no I/O; the task notes the time an
// alignment began to report how long it took. Once its buffers have grown
// to the most a checkpoint holds, it does not allocate.
package align
