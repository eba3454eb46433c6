package udf

import (
	"fmt"
	"slices"
	"sort"
)

// OperatorLists is an in-memory OperatorState: the operator list states of
// one subtask. The task snapshots it at checkpoints (Snapshot) and presets
// it from a restored checkpoint before the instance opens (Preset).
type OperatorLists struct {
	lists map[string]*opList
}

// NewOperatorLists returns empty operator state.
func NewOperatorLists() *OperatorLists { return &OperatorLists{lists: map[string]*opList{}} }

type opList struct {
	kind     StateKind
	declared bool
	elems    [][]byte
}

// List returns the list of namespace ns, declaring it with kind.
func (o *OperatorLists) List(ns string, kind StateKind) (OperatorList, error) {
	l, ok := o.lists[ns]
	if !ok {
		l = &opList{kind: kind}
		o.lists[ns] = l
	}
	if l.declared && l.kind != kind {
		return nil, fmt.Errorf("operator list %q declared as %s and as %s", ns, l.kind, kind)
	}
	if !l.declared && l.kind != kind {
		return nil, fmt.Errorf("operator list %q was saved as %s state and is now declared as %s state", ns, l.kind, kind)
	}
	l.declared = true
	return l, nil
}

// Preset gives namespace ns the elements restored from a checkpoint, before
// any instance declares it.
func (o *OperatorLists) Preset(ns string, kind StateKind, elems [][]byte) {
	o.lists[ns] = &opList{kind: kind, elems: elems}
}

// OperatorListState is one operator list as a checkpoint holds it.
type OperatorListState struct {
	Namespace string
	Kind      StateKind
	Elems     [][]byte
}

// Snapshot returns copies of every list, declared or restored and not yet
// declared (so state survives a restore into a job that has not opened its
// operator yet), sorted by namespace.
func (o *OperatorLists) Snapshot() []OperatorListState {
	out := make([]OperatorListState, 0, len(o.lists))
	for ns, l := range o.lists {
		elems := make([][]byte, len(l.elems))
		for i, e := range l.elems {
			elems[i] = slices.Clone(e)
		}
		out = append(out, OperatorListState{Namespace: ns, Kind: l.kind, Elems: elems})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Namespace < out[j].Namespace })
	return out
}

func (l *opList) Append(elem []byte) error {
	l.elems = append(l.elems, slices.Clone(elem))
	return nil
}

func (l *opList) Get(fn func(elem []byte) error) error {
	for _, e := range l.elems {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

func (l *opList) Clear() error {
	l.elems = l.elems[:0:0]
	return nil
}
