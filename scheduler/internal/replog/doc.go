// Package replog is the scheduler's replicated log: an ordered sequence of
// opaque commands, made durable in a directory and, when there are several
// members, agreed on by a Raft group, then applied in the same order to an
// FSM on every member.
//
// It is a thin wrapper over github.com/hashicorp/raft (RATIONALE.md says
// why that library): raft-boltdb holds the log and Raft's own state (term,
// vote) in Dir/raft.db, raft's FileSnapshotStore holds snapshots in
// Dir/snapshots, and Dir/LOCK is held with flock(2) while a Log is open, so
// a second scheduler on the same directory fails with ErrDirInUse instead of
// corrupting it. The package knows nothing of jobs; the scheduler's job
// state machine is the FSM, its commands are bytes to this package.
//
// The pieces:
//
//   - Open starts a member. When Dir holds no state it bootstraps a group
//     whose configuration is Config.Peers (every member bootstraps with the
//     same list, as hashicorp/raft supports) or, with no peers, itself alone.
//     A single member elects itself, replays its whole log into the FSM and
//     is the leader by the time Open returns; a member of a group restores
//     its latest snapshot before Open returns and applies the committed tail
//     as soon as it hears from a leader.
//   - Propose appends a command on the leader and returns, once the command
//     is committed and applied here, what FSM.Apply returned. On a follower
//     it fails with ErrNotLeader; the caller forwards to Leader().
//   - LeaderChanges tells the scheduler when it gains or loses leadership. A
//     new leader calls Barrier before it acts, so that its FSM holds every
//     command committed by the leaders before it.
//   - Snapshots compact the log every SnapshotThreshold entries: FSM.Snapshot
//     returns the whole state as bytes, FSM.Restore takes it back.
//
// The FSM's methods are called from one goroutine at a time (raft's FSM
// goroutine), never concurrently with each other; other goroutines that read
// the FSM's state must synchronise with Apply themselves.
package replog
