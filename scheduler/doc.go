// Package scheduler is Floe's job manager. It accepts jobs (REST, or the
// api.Service interface in process), stores their Wasm modules by digest,
// keeps the registry of task managers and their slots, places each job's
// subtasks on slots, deploys them, follows their status, detects task
// managers that stop heartbeating, and restarts failed jobs under their
// restart strategy.
//
// A Server serves two listeners: gRPC for task managers (proto/floe/v1,
// service Scheduler) and, optionally, the REST API for users. It decides
// nothing about a job's life itself: it turns calls and the ticks of its
// loop into events for a lifecycle.Machine (scheduler/internal/lifecycle),
// timed by Config.Now, and carries out the actions the machine returns.
// Calls to task managers and writes to checkpoint storage are made outside
// the lock by goroutines the server owns; their outcomes come back as
// events.
//
// Events are not fed to the machine directly: each is proposed as a
// command (scheduler/internal/journal) to a replicated log
// (scheduler/internal/replog) kept in DataDir/raft, and applied from it,
// in log order and under one lock, on every scheduler of the group — a
// single one unless Config.RaftAddr and RaftPeers name several. A
// scheduler restarted on the same DataDir replays the log and gets every
// job back. Only the leader carries out actions, and only once it has
// caught up with the log and fed the machine Lead: the task managers then
// register again with the tasks they run, and the running attempts are
// adopted (see package lifecycle). Every call to a task manager carries the
// leader's term, so that a task manager refuses a deposed leader's; a
// scheduler that does not lead answers task managers UNAVAILABLE, and its
// Service methods that write answer api.ErrUnavailable; over REST it
// forwards writes to the leader through a reverse proxy (forward.go), and
// serves reads from the state it applied. The members learn each other's
// REST and RPC addresses from the log (journal.Member, group.go).
//
// Slots are shared as in Flink: slot i of a job runs subtask i of every
// stage, so a job needs as many slots as its largest parallelism. A job that
// needs more slots than are free waits, and its status says why.
package scheduler
