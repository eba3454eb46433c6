// Package taskmanager is a Floe task manager: a process that offers slots
// to a scheduler, runs the subtasks the scheduler deploys to it, and moves
// their records to and from other task managers.
//
// A TaskManager registers with the scheduler, heartbeats at the interval it
// is given, fetches the Wasm modules of deployed tasks by digest (caching
// them on disk and compiling each once), plans the task's job from its spec
// exactly as the scheduler did, and runs the subtask with host/task.
// Input arrives through the Exchange service it serves; output goes to the
// task managers of the next stage, or, for receivers in the same process,
// straight into their inbox.
//
// A task manager that loses the scheduler for longer than the heartbeat
// timeout cancels its tasks and registers again.
package taskmanager
