package coordinator

import (
	"cmp"
	"slices"
	"time"
)

// State is a coordinator's whole state as data, for a snapshot of the
// scheduler's state.
type State struct {
	Running  bool
	Tasks    []Task `json:",omitempty"`
	Sources  []Task `json:",omitempty"`
	Ending   []Task `json:",omitempty"`
	NextID   int64
	Pending  []PendingState `json:",omitempty"`
	LastTrig time.Time
	LastEnd  time.Time
}

// PendingState is a checkpoint in flight and the acknowledgements it has,
// by task.
type PendingState struct {
	ID        int64
	Triggered time.Time
	Acks      []Ack `json:",omitempty"`
}

// Ack is one task's acknowledgement of a pending checkpoint.
type Ack struct {
	Task   Task
	Handle []byte
}

// State returns the coordinator's state. The handles are shared with the
// coordinator, which never changes them.
func (c *Coordinator) State() State {
	s := State{Running: c.running, Tasks: slices.Clone(c.tasks), Sources: slices.Clone(c.sources), Ending: slices.Clone(c.ending), NextID: c.nextID,
		LastTrig: c.lastTrig, LastEnd: c.lastEnd}
	for _, p := range c.pending {
		ps := PendingState{ID: p.id, Triggered: p.triggered}
		for t, h := range p.handles {
			ps.Acks = append(ps.Acks, Ack{Task: t, Handle: h})
		}
		slices.SortFunc(ps.Acks, func(a, b Ack) int {
			return cmp.Or(cmp.Compare(a.Task.Stage, b.Task.Stage), cmp.Compare(a.Task.Subtask, b.Task.Subtask))
		})
		s.Pending = append(s.Pending, ps)
	}
	return s
}

// SetState replaces the coordinator's state (its configuration stays).
func (c *Coordinator) SetState(s State) {
	c.running, c.tasks, c.sources, c.nextID = s.Running, slices.Clone(s.Tasks), slices.Clone(s.Sources), s.NextID
	c.ending = slices.Clone(s.Ending)
	c.lastTrig, c.lastEnd, c.pending = s.LastTrig, s.LastEnd, nil
	for _, ps := range s.Pending {
		p := &pending{id: ps.ID, triggered: ps.Triggered, handles: map[Task][]byte{}}
		for _, a := range ps.Acks {
			p.handles[a.Task] = a.Handle
		}
		c.pending = append(c.pending, p)
	}
}
