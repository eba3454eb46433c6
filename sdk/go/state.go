package floe

import (
	"bytes"
	"errors"
	"fmt"
	"iter"
)

// The state kinds of the ABI's state_declare.
const (
	stateValue = 1
	stateList  = 2
	stateMap   = 3
)

// StateOption configures a state declaration.
type StateOption func(*stateDecl)

// Queryable makes the state readable from outside the job (queryable state)
// under its name, rendered by its codec's value type.
func Queryable() StateOption { return func(d *stateDecl) { d.queryable = true } }

// stateDecl is a state the module declares to the host when it opens.
type stateDecl struct {
	kind      int32
	name      string
	vtype     ValueType
	queryable bool
	id        int32
}

// states lists every state handle the module created, in creation order.
var states []*stateDecl

func newState(kind int32, name string, vtype ValueType, opts []StateOption) *stateDecl {
	d := &stateDecl{kind: kind, name: name, vtype: vtype, id: -1}
	for _, o := range opts {
		o(d)
	}
	states = append(states, d)
	return d
}

// declareStates registers every state with the host and records its id.
func declareStates() error {
	for _, d := range states {
		flags := int32(d.vtype) << 8
		if d.queryable {
			flags |= 1
		}
		id := hostStateDeclare(d.kind, d.name, flags)
		if id < 0 {
			return fmt.Errorf("declaring state %q failed", d.name)
		}
		d.id = id
	}
	return nil
}

// getter is a host call that reads a state's bytes into buf and returns
// their length, or -1 when absent.
type getter func(state, rec int32, buf []byte) int32

// read calls get with the operator's scratch buffer, growing it until the
// value fits, and returns the value's bytes (valid until the next read) or
// false when absent.
func read(get getter, state, rec int32) ([]byte, bool) {
	for {
		n := get(state, rec, op.scratch[:cap(op.scratch)])
		if n < 0 {
			return nil, false
		}
		if int(n) <= cap(op.scratch) {
			return op.scratch[:n], true
		}
		op.scratch = make([]byte, 0, int(n)+int(n)/4)
	}
}

// stateError is a state's stored bytes that its codec cannot decode, or a
// malformed list or map from the host. The SDK panics with it from the
// state handle's method and turns it into the task's failure, naming the
// record, with the same message as the other SDKs': `state "NAME": …`.
type stateError struct{ msg string }

func (e stateError) Error() string { return e.msg }

func badState(name string, err error) stateError {
	return stateError{fmt.Sprintf("state %q: %v", name, err)}
}

// mustDecode decodes b or panics with a stateError.
func mustDecode[T any](c Codec[T], name string, b []byte) T {
	v, err := c.Decode(b)
	if err != nil {
		panic(badState(name, err))
	}
	return v
}

// mapKey is the map key of the map_get in flight; it lets map_get share
// read's shape.
var mapKey []byte

func hostMapGetKey(state, rec int32, buf []byte) int32 { return hostMapGet(state, rec, mapKey, buf) }

// ValueState holds one value of T per key.
type ValueState[T any] struct {
	d   *stateDecl
	c   Codec[T]
	enc []byte
}

// NewValueState declares a value state. Call it at package level.
func NewValueState[T any](name string, c Codec[T], opts ...StateOption) *ValueState[T] {
	return &ValueState[T]{d: newState(stateValue, name, c.Type(), opts), c: c}
}

// Get returns the current key's value and whether it is set.
func (s *ValueState[T]) Get(ctx *Context) (T, bool) {
	b, ok := read(hostValueGet, s.d.id, ctx.rec)
	if !ok {
		var zero T
		return zero, false
	}
	return mustDecode(s.c, s.d.name, b), true
}

// Put sets the current key's value.
func (s *ValueState[T]) Put(ctx *Context, v T) {
	s.enc = s.c.Append(s.enc[:0], v)
	hostValuePut(s.d.id, ctx.rec, s.enc)
}

// Delete removes the current key's value.
func (s *ValueState[T]) Delete(ctx *Context) { hostValueDelete(s.d.id, ctx.rec) }

// ListState holds a list of T per key.
type ListState[T any] struct {
	d   *stateDecl
	c   Codec[T]
	enc []byte
}

// NewListState declares a list state. Call it at package level.
func NewListState[T any](name string, c Codec[T], opts ...StateOption) *ListState[T] {
	return &ListState[T]{d: newState(stateList, name, c.Type(), opts), c: c}
}

// Append adds v to the end of the current key's list.
func (s *ListState[T]) Append(ctx *Context, v T) {
	s.enc = s.c.Append(s.enc[:0], v)
	hostListAppend(s.d.id, ctx.rec, s.enc)
}

// Get returns the current key's list (empty when none).
func (s *ListState[T]) Get(ctx *Context) []T { return getList(s.d, s.c, ctx.rec) }

// getList reads a list state's elements for record rec (-1 for operator
// state).
func getList[T any](d *stateDecl, c Codec[T], rec int32) []T {
	b, ok := read(hostListGet, d.id, rec)
	if !ok {
		return nil
	}
	var out []T
	err := forEachElement(b, func(e []byte) error {
		out = append(out, mustDecode(c, d.name, e))
		return nil
	})
	if err != nil {
		panic(badState(d.name, err))
	}
	return out
}

// Clear removes the current key's list.
func (s *ListState[T]) Clear(ctx *Context) { hostListClear(s.d.id, ctx.rec) }

// MapState holds a map from K to V per key. Entries are kept by their
// encoded key: K may be any type its codec encodes, []byte included
// (floe.Bytes), and two keys are the same entry when their encodings are
// equal.
type MapState[K, V any] struct {
	d    *stateDecl
	kc   Codec[K]
	vc   Codec[V]
	kenc []byte
	venc []byte
}

// NewMapState declares a map state. Call it at package level.
func NewMapState[K, V any](name string, kc Codec[K], vc Codec[V], opts ...StateOption) *MapState[K, V] {
	return &MapState[K, V]{d: newState(stateMap, name, vc.Type(), opts), kc: kc, vc: vc}
}

// Get returns the value under k in the current key's map and whether there
// is one.
func (s *MapState[K, V]) Get(ctx *Context, k K) (V, bool) {
	s.kenc = s.kc.Append(s.kenc[:0], k)
	mapKey = s.kenc
	b, ok := read(hostMapGetKey, s.d.id, ctx.rec)
	if !ok {
		var zero V
		return zero, false
	}
	return mustDecode(s.vc, s.d.name, b), true
}

// Put sets k to v in the current key's map.
func (s *MapState[K, V]) Put(ctx *Context, k K, v V) {
	s.kenc = s.kc.Append(s.kenc[:0], k)
	s.venc = s.vc.Append(s.venc[:0], v)
	hostMapPut(s.d.id, ctx.rec, s.kenc, s.venc)
}

// Delete removes k from the current key's map.
func (s *MapState[K, V]) Delete(ctx *Context, k K) {
	s.kenc = s.kc.Append(s.kenc[:0], k)
	hostMapDelete(s.d.id, ctx.rec, s.kenc)
}

// All returns the current key's entries in ascending order of their encoded
// keys' bytes, as the host keeps them (sdk/ABI.md, map_entries): for
// floe.String and floe.Bytes keys that is byte-wise lexicographic order;
// floe.Int64's little-endian encoding does not sort numerically. It reads
// the map once, when the loop starts: the loop sees a snapshot, and may read
// and write state (this map included) as it goes.
//
//	for word, n := range tally.All(ctx) { ... }
func (s *MapState[K, V]) All(ctx *Context) iter.Seq2[K, V] {
	rec := ctx.rec
	return func(yield func(K, V) bool) {
		b, ok := read(hostMapEntries, s.d.id, rec)
		if !ok {
			return
		}
		// NB: the entries are in the shared read buffer, which the loop's
		// own state calls reuse: walk a copy.
		b = bytes.Clone(b)
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

// Clear removes the current key's map.
func (s *MapState[K, V]) Clear(ctx *Context) { hostMapClear(s.d.id, ctx.rec) }

// Redistribution is how an operator list state is spread over the subtasks
// when a job is restored at another parallelism.
type Redistribution int32

const (
	// EvenSplit pools every subtask's elements and gives each new subtask
	// an even, contiguous share: every element lands in one subtask.
	EvenSplit Redistribution = 4
	// Union gives every new subtask all elements of all subtasks.
	Union Redistribution = 5
)

// OperatorList is operator (non-keyed) list state: one list of T per
// subtask, usable by any operator from OnOpen on, checkpointed with the job
// and redistributed at a rescale by its Redistribution.
type OperatorList[T any] struct {
	d   *stateDecl
	c   Codec[T]
	enc []byte
}

// NewOperatorList declares an operator list state. Call it at package level.
func NewOperatorList[T any](name string, c Codec[T], mode Redistribution) *OperatorList[T] {
	return &OperatorList[T]{d: newState(int32(mode), name, c.Type(), nil), c: c}
}

// Append adds v to the end of this subtask's list.
func (s *OperatorList[T]) Append(v T) {
	s.enc = s.c.Append(s.enc[:0], v)
	hostListAppend(s.d.id, -1, s.enc)
}

// Get returns this subtask's list (empty when none).
func (s *OperatorList[T]) Get() []T { return getList(s.d, s.c, -1) }

// Clear empties this subtask's list.
func (s *OperatorList[T]) Clear() { hostListClear(s.d.id, -1) }
