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
// A task manager that loses its scheduler (no heartbeat answered for the
// timeout, or, given several schedulers, UNAVAILABLE: not the leader)
// keeps its tasks running for Config.SchedulerGrace while it tries each
// scheduler in turn. It re-registers with the first that accepts, reporting
// its previous id, its running tasks and the ends it could not report, and
// cancels the tasks that scheduler does not adopt; the tasks no scheduler
// took within the grace are canceled. Every call to the scheduler goes
// through the one leader connection, switched at registration. A task's end
// is never lost in a failover; a checkpoint acknowledgement may be, as the
// new leader abandons the checkpoints in flight. A scheduler that answers
// that it no longer knows this task manager makes it cancel every task and
// register afresh.
//
// Fencing: the task manager keeps the highest leader term it has seen, from
// registrations and from the calls that carry one (DeployTask, CancelTasks,
// TriggerCheckpoint, NotifyCheckpointComplete), and refuses those calls,
// and registrations, with an older term.
package taskmanager
