// Package journal turns the scheduler's job lifecycle into a log of
// commands, so that a lifecycle.Machine can be rebuilt by replaying it: on
// a scheduler that restarts with the same data directory, and on the
// standby schedulers that apply the leader's log (issue 15).
//
// Every event of a lifecycle.Machine has a command here — a plain struct
// with the event's time and its arguments, as data: Register, Heartbeat,
// LoseTaskManager, Lead, Tick, Submit, TaskStatus, DeployUnreachable,
// ResumeFailed, Ack,
// Decline, MetadataWritten, Rescale, Savepoint, SavepointDone and Cancel
// (and Unpin and StopWithSavepoint, which only logs written before
// SavepointDone hold) — and one more, Module, which changes no job: it replicates
// a job's Wasm module so that whichever scheduler leads can serve it (the
// FSM keeps the modules, by digest, for a scheduler that restores a
// snapshot). Encode turns one into bytes (JSON in an envelope naming its
// type) and Decode back, refusing an unknown type or a malformed command
// with a clear error.
//
// FSM applies encoded commands to its Machine, in order, and returns a
// *Result: the actions the event returned and what else it answered (a
// task manager's id and adopted tasks, whether a heartbeat's task manager
// is known, a savepoint's checkpoint id, an error). It implements the
// FSM interface of the replicated log (package replog) without importing
// it: Apply, Snapshot and Restore. Applying the same commands to a new
// FSM rebuilds the same Machine, since the Machine is a pure function of
// its events; that is the whole of the design, and the tests check it.
//
// Submit carries only data — the job's id, its spec as submitted, its
// parameters and overrides, its modules' digests, where its checkpoints go
// and the savepoint it restores — never a parsed plan or a function. The
// FSM turns it into a lifecycle.Submission with a Planner the scheduler
// provides (it parses the spec and builds the plan and its Replan), which
// must be a pure function of the command, so that every member plans the
// same job. The FSM keeps each job's Submit, for the scheduler to find a
// job's resources (spec, digests, checkpoint storage) after a restart.
//
// Not journaled: Metrics (records in and out, back-pressure). They are
// samples the leader applies to its own Machine directly, and the next
// heartbeats bring them back after a failover.
//
// A snapshot is the Machine's state (lifecycle.Machine.MarshalState), the
// jobs' Submit commands, from which each job's plan is made again on
// restore, and the modules: it grows with the jobs and modules the
// scheduler has had, not with its history. Version 1 snapshots, every
// command applied so far, are still read. Known limit: ended jobs and
// their modules are never forgotten.
//
// An FSM is not safe for concurrent use; its owner serializes calls.
package journal
