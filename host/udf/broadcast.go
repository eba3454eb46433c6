package udf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
)

// Broadcast state (sdk/ABI.md, "Broadcast state") is Flink's broadcast
// state pattern: an operator with a broadcast input (a coProcess whose
// spec names broadcast:) gets every record of that input in every subtask,
// and keeps what they say in broadcast map states, one map per state name
// and subtask, not per key. The function of the broadcast input may read
// and write them; every other call of the instance (the keyed input's
// function, timers) may only read them, so that the subtasks' copies stay
// the same. A guest uses the map functions of the ABI on them, as it uses
// the list functions on operator list state.
//
// A broadcast map is kept as the list of its entries, each encoded as
// u32 key_len, key, value, in ascending key order: the form a checkpoint
// saves (as operator state of mode broadcast, internal/ckmeta), so that a
// snapshot is a copy and a restore needs no conversion.

// BroadcastMap is one subtask's copy of a broadcast map state. Returned
// slices are valid until the next call that writes the map.
type BroadcastMap interface {
	Get(key []byte) ([]byte, bool)
	Put(key, value []byte)
	Delete(key []byte)
	Iter(fn func(key, value []byte) error) error
	Clear()
}

// BroadcastMap returns the broadcast map of namespace ns, checking the
// entries restored into it.
func (o *OperatorLists) BroadcastMap(ns string) (BroadcastMap, error) {
	l, err := o.List(ns, KindBroadcastMap)
	if err != nil {
		return nil, err
	}
	m := (*bcMap)(l.(*opList))
	for i, e := range m.elems {
		if _, _, ok := splitEntry(e); !ok {
			return nil, fmt.Errorf("broadcast state %q: restored entry %d is malformed", ns, i)
		}
	}
	slices.SortFunc(m.elems, func(a, b []byte) int { return bytes.Compare(entryKey(a), entryKey(b)) })
	return m, nil
}

// bcMap is a broadcast map over the elements of its operator list.
type bcMap opList

// splitEntry returns the key and value of an encoded entry.
func splitEntry(e []byte) (key, value []byte, ok bool) {
	if len(e) < 4 {
		return nil, nil, false
	}
	n := binary.LittleEndian.Uint32(e)
	if uint64(n) > uint64(len(e)-4) {
		return nil, nil, false
	}
	return e[4 : 4+n], e[4+n:], true
}

func entryKey(e []byte) []byte { k, _, _ := splitEntry(e); return k }

// find returns where key is, or would be inserted, and whether it is there.
func (m *bcMap) find(key []byte) (int, bool) {
	return slices.BinarySearchFunc(m.elems, key, func(e, k []byte) int { return bytes.Compare(entryKey(e), k) })
}

func (m *bcMap) Get(key []byte) ([]byte, bool) {
	i, ok := m.find(key)
	if !ok {
		return nil, false
	}
	_, v, _ := splitEntry(m.elems[i])
	return v, true
}

func (m *bcMap) Put(key, value []byte) {
	e := make([]byte, 0, 4+len(key)+len(value))
	e = binary.LittleEndian.AppendUint32(e, uint32(len(key)))
	e = append(append(e, key...), value...)
	i, ok := m.find(key)
	if ok {
		m.elems[i] = e
		return
	}
	m.elems = slices.Insert(m.elems, i, e)
}

func (m *bcMap) Delete(key []byte) {
	if i, ok := m.find(key); ok {
		m.elems = slices.Delete(m.elems, i, i+1)
	}
}

func (m *bcMap) Iter(fn func(key, value []byte) error) error {
	for _, e := range m.elems {
		k, v, _ := splitEntry(e)
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}

func (m *bcMap) Clear() { m.elems = nil }

// broadcastMap returns the broadcast map behind a state id when it is one,
// whose calls ignore rec.
func (in *Instance) broadcastMap(id64 uint64) BroadcastMap {
	if id := uint32(id64); id < uint32(len(in.states)) {
		return in.states[id].bc
	}
	return nil
}

// writable traps unless the running call may write broadcast state: only
// the broadcast input's function may, so that every subtask's copy is
// written by the same records.
func (in *Instance) writable(m BroadcastMap) {
	if in.onBroadcast {
		return
	}
	for i := range in.states {
		if in.states[i].bc == m {
			trap("broadcast state %q is read-only here: only the function of the broadcast input may write it (every subtask's copy must see the same writes)", in.states[i].info.Name)
		}
	}
}

// The map functions on a broadcast map (sdk/ABI.md, "Broadcast state"):
// the same stack as on keyed map state, rec ignored.

func (in *Instance) bMapGet(m BroadcastMap, s []uint64) {
	v, ok := m.Get(in.bytes(s[2], s[3]))
	if !ok {
		s[0] = absent
		return
	}
	s[0] = in.give(v, s[4], s[5])
}

func (in *Instance) bMapPut(m BroadcastMap, s []uint64) {
	in.writable(m)
	m.Put(in.bytes(s[2], s[3]), in.bytes(s[4], s[5])) // Put copies both
}

func (in *Instance) bMapDelete(m BroadcastMap, s []uint64) {
	in.writable(m)
	m.Delete(in.bytes(s[2], s[3]))
}

func (in *Instance) bMapEntries(m BroadcastMap, s []uint64) {
	in.scratch = in.scratch[:0]
	_ = m.Iter(func(k, v []byte) error {
		in.scratch = binary.LittleEndian.AppendUint32(in.scratch, uint32(len(k)))
		in.scratch = append(in.scratch, k...)
		in.scratch = binary.LittleEndian.AppendUint32(in.scratch, uint32(len(v)))
		in.scratch = append(in.scratch, v...)
		return nil
	})
	if len(in.scratch) == 0 {
		s[0] = absent
		return
	}
	s[0] = in.give(in.scratch, s[2], s[3])
}

func (in *Instance) bMapClear(m BroadcastMap, s []uint64) {
	in.writable(m)
	m.Clear()
}
