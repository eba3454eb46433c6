package floe

import (
	"bytes"
	"errors"
	"iter"
)

// stateBroadcastMap is the ABI's state kind of broadcast map state.
const stateBroadcastMap = 6

// BroadcastState is broadcast map state (Flink's broadcast state): one map
// from K to V per subtask, not per key, for an operator with a broadcast
// input (a job spec's coProcess with broadcast:). Every subtask gets every
// record of the broadcast input, and the function of that input keeps
// what they say here, e.g. the current rules; the function of the keyed
// input reads it for each of its records.
//
// Only the broadcast input's function may write (Put, Delete, Clear): a
// write from the keyed input's function or a timer fails the task, since
// the subtasks' copies must stay the same. Reads work everywhere, OnOpen
// included. It is checkpointed with the operator, and on a restore at any
// parallelism every subtask gets the whole map back.
type BroadcastState[K, V any] struct {
	d    *stateDecl
	kc   Codec[K]
	vc   Codec[V]
	kenc []byte
	venc []byte
}

// NewBroadcastState declares a broadcast map state. Call it at package
// level.
func NewBroadcastState[K, V any](name string, kc Codec[K], vc Codec[V]) *BroadcastState[K, V] {
	return &BroadcastState[K, V]{d: newState(stateBroadcastMap, name, vc.Type(), nil), kc: kc, vc: vc}
}

// Get returns the value under k and whether there is one.
func (s *BroadcastState[K, V]) Get(k K) (V, bool) {
	s.kenc = s.kc.Append(s.kenc[:0], k)
	mapKey = s.kenc
	b, ok := read(hostMapGetKey, s.d.id, -1)
	if !ok {
		var zero V
		return zero, false
	}
	return mustDecode(s.vc, s.d.name, b), true
}

// Put sets k to v. Only the broadcast input's function may call it.
func (s *BroadcastState[K, V]) Put(k K, v V) {
	s.kenc = s.kc.Append(s.kenc[:0], k)
	s.venc = s.vc.Append(s.venc[:0], v)
	hostMapPut(s.d.id, -1, s.kenc, s.venc)
}

// Delete removes k. Only the broadcast input's function may call it.
func (s *BroadcastState[K, V]) Delete(k K) {
	s.kenc = s.kc.Append(s.kenc[:0], k)
	hostMapDelete(s.d.id, -1, s.kenc)
}

// Clear removes every entry. Only the broadcast input's function may call
// it.
func (s *BroadcastState[K, V]) Clear() { hostMapClear(s.d.id, -1) }

// All returns the entries in ascending order of their encoded keys' bytes,
// as MapState.All does, read once when the loop starts.
func (s *BroadcastState[K, V]) All() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		b, ok := read(hostMapEntries, s.d.id, -1)
		if !ok {
			return
		}
		b = bytes.Clone(b) // NB: the loop's own state calls reuse the read buffer.
		stop := errors.New("stop")
		err := forEachEntry(b, func(k, v []byte) error {
			if !yield(mustDecode(s.kc, s.d.name, k), mustDecode(s.vc, s.d.name, v)) {
				return stop
			}
			return nil
		})
		if err != nil && err != stop {
			panic(badState(s.d.name, err))
		}
	}
}
