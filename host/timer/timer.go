// Package timer keeps the timers of one keyed operator subtask: a priority
// queue per time domain in memory, backed by the subtask's keyed state so
// that timers are checkpointed, restored and moved at a rescale by key group
// like any other keyed state.
//
// A timer is (key, domain, timestamp); registering it twice keeps one.
// Timers of a domain come out in ascending timestamp order, and for equal
// timestamps in ascending order of the key's bytes (sdk/ABI.md, "Time and
// timers").
package timer

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/floe-stream/floe/host/udf"
)

// Namespace returns the keyed-state namespace that holds an operator's
// timers. It cannot clash with a state's namespace ("<uid>/<name>").
func Namespace(operatorUID string) string { return operatorUID + "#timers" }

// Timer is one timer.
type Timer struct {
	Domain    udf.TimeDomain
	Timestamp int64
	KeyGroup  uint16
	Key       []byte
}

// Queue holds one subtask's timers. It is not safe for concurrent use.
type Queue struct {
	store udf.MapState
	heaps [2]timerHeap
	live  map[string]bool // ids of registered timers: true for those kept in memory only
	id    []byte
	mk    [9]byte
}

// New returns an empty queue that persists its timers in store, a map state
// (key → encoded (domain, timestamp) → nothing).
func New(store udf.MapState) *Queue {
	return &Queue{store: store, live: map[string]bool{}}
}

// Register adds a timer; it implements udf.Timers.
func (q *Queue) Register(kg uint16, key []byte, d udf.TimeDomain, ts int64) error {
	id := q.timerID(key, d, ts)
	if _, ok := q.live[string(id)]; ok {
		return nil
	}
	if err := q.store.Put(kg, key, q.mapKey(d, ts), nil); err != nil {
		return err
	}
	q.add(kg, key, d, ts, id, false)
	return nil
}

// RegisterInMemory adds a timer that is not written to the store, so
// that no checkpoint holds it: its owner must register it again after a
// restore, from state of its own that says the timer is due (a window
// operator does, from its windows). Registering a timer that exists, in
// memory or not, keeps the one there. It costs no state write, nor a
// delete when the timer fires.
func (q *Queue) RegisterInMemory(kg uint16, key []byte, d udf.TimeDomain, ts int64) {
	id := q.timerID(key, d, ts)
	if _, ok := q.live[string(id)]; !ok {
		q.add(kg, key, d, ts, id, true)
	}
}

// Delete removes a timer if it exists; it implements udf.Timers.
func (q *Queue) Delete(kg uint16, key []byte, d udf.TimeDomain, ts int64) error {
	id := q.timerID(key, d, ts)
	inMemory, ok := q.live[string(id)]
	if !ok {
		return nil
	}
	delete(q.live, string(id))
	// The heap entry stays until it comes up, and is skipped then.
	if inMemory {
		return nil
	}
	return q.store.Delete(kg, key, q.mapKey(d, ts))
}

// Restored adds a timer found in restored keyed state: the (key, map key)
// of an entry of the timer namespace.
func (q *Queue) Restored(kg uint16, key, mapKey []byte) error {
	d, ts, err := decodeMapKey(mapKey)
	if err != nil {
		return err
	}
	id := q.timerID(key, d, ts)
	if _, ok := q.live[string(id)]; !ok {
		q.add(kg, bytes.Clone(key), d, ts, id, false)
		return nil
	}
	// NB: registered in memory already (by an operator restoring it from
	// its own state, from a checkpoint taken before it kept the timer in
	// memory): it is in the store too, so firing must delete it there.
	q.live[string(id)] = false
	return nil
}

// Next returns the earliest timestamp of domain d's timers.
func (q *Queue) Next(d udf.TimeDomain) (int64, bool) {
	if !q.peek(d) {
		return 0, false
	}
	return q.heaps[d][0].Timestamp, true
}

// peek drops the deleted timers off the top of domain d's heap and
// tells whether a timer is left; q.id is then the top one's identity.
func (q *Queue) peek(d udf.TimeDomain) bool {
	h := &q.heaps[d]
	for len(*h) > 0 {
		t := &(*h)[0]
		if _, ok := q.live[string(q.timerID(t.Key, d, t.Timestamp))]; ok {
			return true
		}
		h.pop()
	}
	return false
}

// Pop removes and returns the earliest timer of domain d if its timestamp
// is at most upTo. The timer is gone from the store too, so the operator
// may register it again while handling it.
func (q *Queue) Pop(d udf.TimeDomain, upTo int64) (Timer, bool, error) {
	if !q.peek(d) || q.heaps[d][0].Timestamp > upTo {
		return Timer{}, false, nil
	}
	// NB: q.id is the top timer's identity, from peek.
	inMemory := q.live[string(q.id)]
	delete(q.live, string(q.id))
	t := q.heaps[d].pop()
	if inMemory {
		return t, true, nil
	}
	return t, true, q.store.Delete(t.KeyGroup, t.Key, q.mapKey(d, t.Timestamp))
}

// Len returns the number of registered timers.
func (q *Queue) Len() int { return len(q.live) }

func (q *Queue) add(kg uint16, key []byte, d udf.TimeDomain, ts int64, id []byte, inMemory bool) {
	q.live[string(id)] = inMemory
	q.heaps[d].push(Timer{Domain: d, Timestamp: ts, KeyGroup: kg, Key: bytes.Clone(key)})
}

// timerID is the identity of a timer, in a reused buffer.
func (q *Queue) timerID(key []byte, d udf.TimeDomain, ts int64) []byte {
	q.id = append(q.id[:0], byte(d))
	q.id = binary.BigEndian.AppendUint64(q.id, uint64(ts))
	q.id = append(q.id, key...)
	return q.id
}

// mapKey encodes (domain, timestamp) so that byte order is time order.
func (q *Queue) mapKey(d udf.TimeDomain, ts int64) []byte {
	q.mk[0] = byte(d)
	binary.BigEndian.PutUint64(q.mk[1:], uint64(ts)^(1<<63))
	return q.mk[:]
}

func decodeMapKey(mk []byte) (udf.TimeDomain, int64, error) {
	if len(mk) != 9 || mk[0] > 1 {
		return 0, 0, fmt.Errorf("timer: malformed timer entry %x", mk)
	}
	return udf.TimeDomain(mk[0]), int64(binary.BigEndian.Uint64(mk[1:]) ^ (1 << 63)), nil
}

// timerHeap orders timers by timestamp, then key: a binary heap, as
// container/heap keeps one, without its interface values (an allocation
// per push and per pop: Nexmark q5 sets a timer per auction and window).
type timerHeap []Timer

func (h timerHeap) less(i, j int) bool {
	if h[i].Timestamp != h[j].Timestamp {
		return h[i].Timestamp < h[j].Timestamp
	}
	return bytes.Compare(h[i].Key, h[j].Key) < 0
}

func (h *timerHeap) push(t Timer) {
	*h = append(*h, t)
	h.up(len(*h) - 1)
}

// pop removes and returns the earliest timer; the heap is not empty.
func (h *timerHeap) pop() Timer {
	old := *h
	n := len(old) - 1
	old[0], old[n] = old[n], old[0]
	h.down(0, n)
	t := old[n]
	old[n] = Timer{}
	*h = old[:n]
	return t
}

func (h timerHeap) up(j int) {
	for {
		i := (j - 1) / 2 // parent
		if i == j || !h.less(j, i) {
			break
		}
		h[i], h[j] = h[j], h[i]
		j = i
	}
}

func (h timerHeap) down(i0, n int) {
	i := i0
	for {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 { // j1 < 0 after int overflow
			break
		}
		j := j1 // left child
		if j2 := j1 + 1; j2 < n && h.less(j2, j1) {
			j = j2 // right child
		}
		if !h.less(j, i) {
			break
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}
