// Package lifecycle is the life of the scheduler's jobs as a pure state
// machine, in the style of etcd's raft RawNode and of the checkpoint
// coordinator it drives. The scheduler's server feeds a Machine events —
// a job submitted, a task manager registered (or registered again after a
// failover), heartbeating or lost, the scheduler become leader, a task's
// status, a checkpoint acknowledged or declined, its metadata written, a
// tick of the clock, a rescale, savepoint or cancel requested — and carries
// out the actions each event returns: deploy a task on a task manager,
// cancel an attempt's tasks, trigger a checkpoint, write a completed
// checkpoint's metadata, tell the tasks it is complete, delete files no
// checkpoint needs, close a lost task manager's connection, copy a
// savepoint's completed checkpoint into the savepoint. Every change of a job's
// state or message that enters its history is returned as a JobState
// action too (a waiting job's "waiting for slots" message does not).
//
// A Machine never touches the network, the disk or the clock: each event
// carries its time, and everything it decides follows from the events it
// was given, in order (task managers are numbered in the order they
// register, and ties are broken by id, never by map order). Applying the
// same events to a new Machine rebuilds the same state, which is what a
// replicated scheduler (issue 15) needs. Its methods are not safe for
// concurrent use; the server calls them under its lock. Due tells, without
// changing anything, whether a Tick would change anything, so that a
// driver that journals its events need not journal every tick; and
// MarshalState and RestoreState write a machine's whole state as data and
// read it back (plans are made again from the jobs' submissions), so that
// a snapshot of the log can stand for the events before it.
//
// # Job states
//
// A job moves through the states of scheduler/api:
//
//	WAITING ──placed──▶ DEPLOYING ──every task running──▶ RUNNING
//	   ▲                    │                                │
//	   │                    ├── task manager unreachable ────┼──▶ WAITING
//	   │                    │   during deployment (no        │    (no restart
//	   │                    │   restart spent)               │     spent)
//	   │                    ▼                                ▼
//	   │              a task failed, or its task manager was lost:
//	   │              RESTARTING if the restart strategy has attempts
//	   │              left (fixedDelay, or exponentialDelay: always),
//	   │              else FAILED
//	   └── restart delay passed ── RESTARTING
//
// Under exponentialDelay the delay is the strategy's Backoff of the
// count of consecutive restarts (Job.Backoff): the initial backoff,
// doubled with each failure up to the maximum. The count starts again
// when the attempt that failed had run, every task running, for the
// strategy's ResetAfter (Job.RunningSince to the failure's time), so the
// reset needs no tick of its own.
//
// RUNNING ends in FINISHED when every task has finished (or when a
// savepoint stops the job), and any live state ends in CANCELED when the
// user cancels. A rescale takes a checkpoint while RUNNING; once it is
// complete the attempt stops and the job goes back to WAITING at the new
// parallelism, to restore from that checkpoint. With Config.PartialRescale,
// a rescale that leaves some stages' parallelism as it was keeps their
// tasks running, suspended at the rescale's checkpoint, redeploys only
// the changed stages in a new attempt (the job is DEPLOYING meanwhile)
// and then resumes the kept tasks, rewired; any failure on the way falls
// back to the whole-job path (partial.go). The job's tasks may then
// belong to different attempts: each task's own (Task.Attempt) fences
// its reports.
//
// Every attempt is placed anew on the free slots of fresh task managers
// (slot i runs subtask i of every stage; see package placement) and
// restores the latest completed checkpoint. The result of a restore
// arrives as the task's status: when it fails because that checkpoint is
// unreadable (the task's error contains ckmeta.Unreadable(id) and a
// colon), the checkpoint is dropped and the next attempt falls back to the
// one before it; any other failure retries the same one.
//
// # Checkpoints
//
// A job that takes checkpoints owns a coordinator.Coordinator, started when
// every task of an attempt runs and stopped when the attempt ends. The
// Machine turns the coordinator's Trigger into TriggerCheckpoint actions
// for the task managers of the sources, its Complete into the metadata to
// write (WriteMetadata), and counts a checkpoint complete only once the
// server reports the metadata written (MetadataWritten): then it retains
// it, retires older ones (DeleteFiles) and notifies the tasks.
//
// Checkpoints go on after part of a graph has ended: a task that reports
// FINISHED is no longer waited for (a source is recorded as finished, so a
// restore does not read it again), and one that reports ENDING (a sink
// holding its last output for the final commit) is triggered directly and
// acknowledges with that output. Checkpointing stops once no source runs.
//
// # Savepoints
//
// A savepoint is a trigger kept in the job's checkpointing (savepoint.go):
// Savepoint takes a checkpoint at once and records the trigger, named by
// the caller, IN_PROGRESS; a job keeps its last MaxSavepointTriggers. If
// the checkpoint fails, so does the trigger, with the checkpoint's reason.
// If it completes, it is pinned (retention keeps its files) and a
// SavepointReady action asks the server to copy it; the server reports the
// copy's end with SavepointDone, which completes or fails the trigger,
// unpins the checkpoint and, for a stop, finishes the job. The triggers
// are part of the machine's state, so of every snapshot: Lead fails a
// trigger whose checkpoint it abandons, and one whose copy was under way,
// which the previous leader may or may not have finished.
//
// # Failover
//
// The machine's state is rebuilt on a scheduler that restarts, or that
// takes over from another, by applying the same events again (package
// journal). What the previous leader did outside the machine — calls to
// task managers, metadata writes — may or may not have happened, so the
// new leader feeds Lead before anything else:
//
//   - every known task manager must register again; until it does, its
//     heartbeats are answered as not registered (which makes it register)
//     and its task reports are ignored. One that has not registered within
//     two heartbeat timeouts is lost: a task manager whose scheduler
//     stopped answering notices only after its own heartbeat timeout, so
//     one is not enough;
//   - every checkpoint in flight is abandoned, even one whose metadata was
//     being written: it was never counted complete, so no sink committed
//     it, and a late MetadataWritten for it changes nothing. Checkpoint
//     ids keep growing past every id used;
//   - every attempt deploying or running waits for its task managers.
//
// A task manager registers again with its previous id and the tasks it
// runs (Register's previous and reported). It keeps its id, and the
// reported tasks of a job's current attempt placed on it are adopted:
// states it reports that the machine lacks (a task that finished or failed
// meanwhile) are applied as task statuses. Once every task manager of an
// attempt is back, the attempt goes on with no restart: its tasks are told
// again of the latest completed checkpoint (or that every input has
// ended), which the previous leader may not have sent, and checkpoints
// resume. A task manager that comes back without a task of the current
// attempt (it restarted) makes the job be placed again, restoring its
// latest completed checkpoint, without spending a restart; one that does
// not come back is lost, as any silent task manager is, and the job
// restarts under its strategy.
//
// The machine fences what does not come from the current attempt on the
// task manager that runs it now: a task status from an earlier attempt,
// from a task manager other than the task's, from one the machine forgot
// (lost, then registered anew under another id) or from one that has not
// registered again since Lead; acks and declines of an earlier attempt;
// the metadata of an abandoned checkpoint.
//
// # Failures
//
// A job keeps its failures as Exceptions (exceptions.go): every task
// reported FAILED, with where its failure arose when the task manager
// knows (a Failure: the operator, module and function, the key and value
// of the record being processed), and every attempt failed as a whole
// (its task manager lost, its deployment impossible). They are part of
// the machine's state, so of every snapshot of the log: a job keeps its
// last MaxExceptions, counting the older ones dropped, each message cut
// to MaxExceptionMessage bytes. A stale report is no failure of the job.
//
// A task failed by a broken channel names the task manager at the
// channel's other end; the machine has it checked (its CancelTasks is
// marked Check) and, if that task manager is lost soon after, rewrites
// the failure to blame it, how it was found lost first (lostpeer.go).
//
// # What stays in the server
//
// The server keeps what is I/O: parsing and validating a submission,
// storing its modules, opening checkpoint storage and loading a savepoint
// before Submit; the gRPC connections to task managers; the RPCs and
// store writes the actions ask for; copying a completed checkpoint into a
// savepoint; and rendering a job's status for the REST
// API from the Machine's read-only views. A rescale's new plan comes from
// the Replan function the submission carries (the server parses the spec
// again), so the machine does not depend on the spec's format.
//
// Not every input is lifecycle: Metrics (records in and out, back
// pressure) and the keyed states tasks declare are kept here because they
// hang off the current attempt's tasks, but a replicated log need not
// carry metrics.
package lifecycle
