package replog

import (
	"errors"
	"fmt"
	"io"

	"github.com/hashicorp/raft"
)

// fsmAdapter presents an FSM to raft.
type fsmAdapter struct{ fsm FSM }

// Apply is called by raft for committed commands only (raft.LogCommand);
// raft applies its own entry types itself.
func (a fsmAdapter) Apply(e *raft.Log) any {
	return a.fsm.Apply(e.Index, e.Data)
}

// Snapshot takes the FSM's state on raft's FSM goroutine, between two
// Applies, so that the bytes match the snapshot's index; raft persists them
// later on another goroutine.
func (a fsmAdapter) Snapshot() (raft.FSMSnapshot, error) {
	b, err := a.fsm.Snapshot()
	if err != nil {
		return nil, fmt.Errorf("replog: FSM snapshot: %w", err)
	}
	return fsmSnapshot(b), nil
}

func (a fsmAdapter) Restore(r io.ReadCloser) error {
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("replog: reading a snapshot: %w", err)
	}
	if err := a.fsm.Restore(b); err != nil {
		return fmt.Errorf("replog: FSM restore: %w", err)
	}
	return nil
}

// fsmSnapshot is the bytes FSM.Snapshot returned.
type fsmSnapshot []byte

func (s fsmSnapshot) Persist(sink raft.SnapshotSink) error {
	if _, err := sink.Write(s); err != nil {
		return fmt.Errorf("replog: writing a snapshot: %w", errors.Join(err, sink.Cancel()))
	}
	return sink.Close()
}

func (s fsmSnapshot) Release() {}
