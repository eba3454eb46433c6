// Package ckmeta holds what a checkpoint records and how its pieces
// are named in checkpoint storage: the metadata the scheduler writes last,
// the snapshot handle each task acknowledges with, and the share of a
// completed checkpoint a restarted task restores.
//
// Storage layout under the job's checkpoint URL:
//
//	<job id>/shared/<stage>-<subtask>-a<attempt>-c<checkpoint>.snap   keyed state snapshots (full or delta)
//	<job id>/chk-<checkpoint>/_metadata                                 JSON Metadata, written last
//
// A checkpoint whose _metadata object is absent is not complete and is
// never restored. Snapshot files are shared: a delta builds on the files of
// earlier checkpoints, so a file is deleted only when no retained
// checkpoint refers to it.
package ckmeta

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"time"

	"github.com/floe-stream/floe/storage/keygroup"
)

// Version is the metadata format version.
const Version = 1

// Final is the checkpoint id of a job's final commit: sinks that reached
// the end of their input commit everything they hold.
const Final = int64(1<<63 - 1)

// File is a keyed-state snapshot file in checkpoint storage.
type File struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
	Full bool   `json:"full,omitempty"`
}

// SubtaskState is one task's part of a checkpoint: what it acknowledges
// with.
type SubtaskState struct {
	Stage   int `json:"stage"`
	Subtask int `json:"subtask"`
	// KeyGroups is the key-group range whose keyed state Keyed holds.
	KeyGroups keygroup.Range `json:"keyGroups"`
	// Keyed is the chain of snapshot files to apply in order: a full
	// snapshot, then deltas. Empty for a stateless task.
	Keyed []File `json:"keyed,omitempty"`
	// Source is the source's read position when the task has a source: its
	// list of split states (connector.Source.Position), possibly empty, and
	// nil when the task has no source. NB: no omitempty, so that an empty
	// list survives JSON and still marks the stage as a source.
	Source [][]byte `json:"source"`
	// Sink is the sink's state at the checkpoint (opaque to all but the
	// sink): what to commit once it completes, or on a restore.
	Sink []byte `json:"sink,omitempty"`
	// Operator holds the operator list states of the task's operators.
	Operator []OperatorList `json:"operator,omitempty"`
	// IncrementalBytes is what this checkpoint uploaded; FullBytes the
	// size of the whole chain.
	IncrementalBytes int64 `json:"incrementalBytes"`
	FullBytes        int64 `json:"fullBytes"`
	// AlignmentMillis is how long the task waited for barriers from all
	// its inputs; SyncMillis how long it paused processing to snapshot.
	AlignmentMillis int64 `json:"alignmentMillis"`
	SyncMillis      int64 `json:"syncMillis"`
	// Finished marks a subtask whose input had ended before the
	// checkpoint: a source that had read everything (Source lists its
	// spent splits, or none), a sink waiting for the job's final commit
	// (Sink holds all its output), or a task that had ended (nothing
	// else). Its keyed state is neither recorded nor restored: what the
	// task had to emit reached its readers before its end, which their
	// alignment counted as the barrier of that input.
	Finished bool `json:"finished,omitempty"`
}

// OperatorList is one operator list state (ABI state kinds 4 and 5, and
// the entries of a broadcast map state, kind 6) of one
// subtask: its namespace ("<uid>/<name>"), how it is redistributed, and its
// elements.
type OperatorList struct {
	Namespace string   `json:"ns"`
	Mode      string   `json:"mode"` // ModeEvenSplit or ModeUnion
	Elems     [][]byte `json:"elems"`
}

// The redistribution modes of operator list state.
const (
	ModeEvenSplit = "even-split"
	ModeUnion     = "union"
	// ModeBroadcast is broadcast map state (ABI kind 6), saved as a list
	// of entries: every subtask holds the same copy, so every new subtask
	// restores old subtask 0's (Broadcast).
	ModeBroadcast = "broadcast"
)

// Stage describes a stage of the checkpointed job.
type Stage struct {
	Name        string `json:"name"`
	Parallelism int    `json:"parallelism"`
}

// Metadata describes a completed checkpoint.
type Metadata struct {
	Version        int            `json:"version"`
	JobID          string         `json:"jobId"`
	JobName        string         `json:"jobName"`
	ID             int64          `json:"id"`
	Attempt        int            `json:"attempt"`
	MaxParallelism int            `json:"maxParallelism"`
	Stages         []Stage        `json:"stages"`
	Subtasks       []SubtaskState `json:"subtasks"`
	TriggeredAt    time.Time      `json:"triggeredAt"`
	CompletedAt    time.Time      `json:"completedAt"`
	// Savepoint marks a self-contained savepoint: its file paths are
	// relative to its own directory.
	Savepoint bool `json:"savepoint,omitempty"`
	// Store is the URL the files are relative to when it is not the job's
	// checkpoint storage (a savepoint being restored). Not written.
	Store string `json:"-"`
}

// Unreadable is how a task's error says that checkpoint id's files are
// missing or corrupt: the scheduler then falls back to the checkpoint
// before it. (Errors cross processes as text.)
func Unreadable(id int64) string { return fmt.Sprintf("checkpoint %d is unreadable", id) }

// Files returns every snapshot file the checkpoint refers to.
func (m *Metadata) Files() []string {
	var out []string
	for _, s := range m.Subtasks {
		for _, f := range s.Keyed {
			out = append(out, f.Path)
		}
	}
	return out
}

// Sizes returns the bytes the checkpoint uploaded and the size of all the
// state it refers to.
func (m *Metadata) Sizes() (incremental, full int64) {
	for _, s := range m.Subtasks {
		incremental += s.IncrementalBytes
		full += s.FullBytes
	}
	return incremental, full
}

// KeyedShare is the keyed state one old subtask contributes to a restored
// task: its chain and the key groups to take from it.
type KeyedShare struct {
	KeyGroups keygroup.Range `json:"keyGroups"`
	Files     []File         `json:"files"`
}

// Restore is a task's share of the checkpoint it restarts from.
type Restore struct {
	CheckpointID int64 `json:"checkpointId"`
	// Store is the URL of the storage holding the files, when it is not
	// the job's checkpoint storage (a savepoint).
	Store string       `json:"store,omitempty"`
	Keyed []KeyedShare `json:"keyed,omitempty"`
	// Chain is the restored chain when the task owns exactly the key
	// groups of one old subtask, so its next checkpoint can be a delta on
	// it; nil otherwise.
	Chain []File `json:"chain,omitempty"`
	// Source is the list of split states the task's source Seeks to: its
	// share, under EvenSplit, of the lists of the stage's old
	// subtasks. It is nil when the stage recorded no source state, and
	// non-nil but possibly empty otherwise: a task given no split reads
	// nothing, rather than its fresh share. NB: no omitempty, so that an
	// empty list survives the trip to the task as JSON.
	Source [][]byte `json:"source"`
	// Sink holds the sink states of the old subtasks this one takes over:
	// its own at an unchanged parallelism; after a rescale, those of the
	// old subtasks j with j % parallelism == this subtask.
	Sink [][]byte `json:"sink,omitempty"`
	// Operator holds the task's share of the stage's operator list states:
	// for each namespace, EvenSplit or Union of the old
	// subtasks' lists.
	Operator []OperatorList `json:"operator,omitempty"`
	// EndedInputs are the channels into the task (plan.Plan.Channel)
	// whose senders the restore does not deploy, as the checkpoint
	// recorded them finished (Metadata.Done): the task counts them ended
	// from its start.
	EndedInputs []int `json:"endedInputs,omitempty"`
}

// Done reports whether subtask sub of stage stage, at parallelism par,
// has nothing left to do after a restore of m: m recorded it finished at
// the same parallelism, with no sink output for a final commit. Its end
// reached its readers before the checkpoint, so a restore need not deploy
// it (RATIONALE.md, "Checkpoints after a branch ends").
func (m *Metadata) Done(stage, sub, par int) bool {
	if stage >= len(m.Stages) || m.Stages[stage].Parallelism != par {
		return false
	}
	for _, s := range m.Subtasks {
		if s.Stage == stage && s.Subtask == sub {
			return s.Finished && s.Sink == nil
		}
	}
	return false
}

// RestoreFor computes the share of checkpoint m that subtask sub of stage
// stage restores when the stage runs at parallelism par: the keyed state of
// every old subtask not finished whose key groups overlap the new ones, its share of the
// source's split states at any parallelism (see sourceFor), and, at an
// unchanged parallelism, its own sink files.
func (m *Metadata) RestoreFor(stage, sub, par int) (*Restore, error) {
	if stage >= len(m.Stages) {
		return nil, fmt.Errorf("checkpoint %d has no stage %d", m.ID, stage)
	}
	r := &Restore{CheckpointID: m.ID, Store: m.Store}
	var err error
	if r.Source, err = m.sourceFor(stage, sub, par); err != nil {
		return nil, err
	}
	if r.Operator, err = m.operatorFor(stage, sub, par); err != nil {
		return nil, err
	}
	mine := keygroup.RangeFor(m.MaxParallelism, par, sub)
	for _, s := range m.Subtasks {
		if s.Stage != stage {
			continue
		}
		if s.Sink != nil && s.Subtask%par == sub {
			r.Sink = append(r.Sink, s.Sink)
		}
		if len(s.Keyed) == 0 || s.Finished {
			continue
		}
		overlap := keygroup.Intersect(mine, s.KeyGroups)
		if overlap.Len() == 0 {
			continue
		}
		r.Keyed = append(r.Keyed, KeyedShare{KeyGroups: overlap, Files: s.Keyed})
		if overlap == mine && s.KeyGroups == mine {
			r.Chain = s.Keyed
		}
	}
	return r, nil
}

// sourceFor returns the split states that subtask sub of stage restores at
// parallelism par: EvenSplit of the old subtasks' lists, in subtask
// order. At an unchanged parallelism that is the subtask's own list. It is nil
// when no old subtask of the stage recorded source state.
func (m *Metadata) sourceFor(stage, sub, par int) ([][]byte, error) {
	old := m.Stages[stage].Parallelism
	lists := make([][][]byte, old)
	isSource := false
	for _, s := range m.Subtasks {
		if s.Stage != stage || s.Source == nil {
			continue
		}
		if s.Subtask < 0 || s.Subtask >= old {
			return nil, fmt.Errorf("checkpoint %d: stage %d has subtask %d at parallelism %d", m.ID, stage, s.Subtask, old)
		}
		lists[s.Subtask], isSource = s.Source, true
	}
	if !isSource {
		return nil, nil
	}
	if sub < 0 || sub >= par {
		return nil, fmt.Errorf("checkpoint %d: restoring subtask %d at parallelism %d", m.ID, sub, par)
	}
	return EvenSplit(lists, par)[sub], nil
}

// operatorFor returns subtask sub's share, at parallelism par, of every
// operator list state the stage's old subtasks saved, by namespace.
func (m *Metadata) operatorFor(stage, sub, par int) ([]OperatorList, error) {
	old := m.Stages[stage].Parallelism
	type saved struct {
		mode  string
		lists [][][]byte
	}
	byNS := map[string]*saved{}
	var names []string
	for _, s := range m.Subtasks {
		if s.Stage != stage {
			continue
		}
		for _, l := range s.Operator {
			if s.Subtask < 0 || s.Subtask >= old {
				return nil, fmt.Errorf("checkpoint %d: stage %d has subtask %d at parallelism %d", m.ID, stage, s.Subtask, old)
			}
			sv, ok := byNS[l.Namespace]
			if !ok {
				sv = &saved{mode: l.Mode, lists: make([][][]byte, old)}
				byNS[l.Namespace] = sv
				names = append(names, l.Namespace)
			}
			if sv.mode != l.Mode {
				return nil, fmt.Errorf("checkpoint %d: operator state %q saved as %s and as %s", m.ID, l.Namespace, sv.mode, l.Mode)
			}
			sv.lists[s.Subtask] = l.Elems
		}
	}
	slices.Sort(names)
	var out []OperatorList
	for _, ns := range names {
		sv := byNS[ns]
		var share [][]byte
		switch sv.mode {
		case ModeEvenSplit:
			share = EvenSplit(sv.lists, par)[sub]
		case ModeUnion:
			share = Union(sv.lists, par)[sub]
		case ModeBroadcast:
			share = Broadcast(sv.lists, par)[sub]
		default:
			return nil, fmt.Errorf("checkpoint %d: operator state %q has unknown mode %q", m.ID, ns, sv.mode)
		}
		out = append(out, OperatorList{Namespace: ns, Mode: sv.mode, Elems: share})
	}
	return out, nil
}

// SnapshotPath is where a task's snapshot for a checkpoint goes.
func SnapshotPath(job string, stage, sub, attempt int, id int64) string {
	return path.Join(job, "shared", fmt.Sprintf("%d-%d-a%d-c%d.snap", stage, sub, attempt, id))
}

// MetadataPath is where a checkpoint's metadata goes.
func MetadataPath(job string, id int64) string {
	return path.Join(job, fmt.Sprintf("chk-%d", id), "_metadata")
}

// Marshal encodes v as JSON; Unmarshal decodes it.
func Marshal(v any) ([]byte, error) { return json.Marshal(v) }

// Unmarshal decodes JSON into v.
func Unmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
