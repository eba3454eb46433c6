package state

import (
	"errors"
	"fmt"

	"github.com/floe-stream/floe/storage/keygroup"
	"github.com/floe-stream/floe/storage/kv"
)

var (
	// ErrInvalidNamespace is wrapped by the errors for a namespace that is
	// empty, too long, or already used by a state of another kind.
	ErrInvalidNamespace = errors.New("invalid state namespace")
	// ErrCorrupt is wrapped by the errors for stored bytes that do not
	// follow the layout.
	ErrCorrupt = errors.New("corrupt state")
)

// maxKeptBuffer is the largest scratch buffer a Backend keeps for reuse.
const maxKeptBuffer = 1 << 20

// kind is the type of a state.
type kind uint8

const (
	kindValue kind = iota + 1
	kindList
	kindMap
)

// String names the kind in errors.
func (k kind) String() string {
	return [...]string{kindValue: "value", kindList: "list", kindMap: "map"}[k]
}

// Backend holds the keyed state of one task in a kv.Store.
type Backend struct {
	store kv.Store
	log   *changeLog // the same store, seen through the change log
	key   []byte     // key builds store keys; the store copies what it keeps.
	end   []byte     // end builds the upper bounds of ranges.
	val   []byte     // val builds list values.
	spare [][]byte
	kinds map[string]kind
	names map[string]string // names interns namespaces seen by ScanRange.

	collected []byte // collected receives the entries Map.Iter scans.
	collect   func(k, v []byte) error

	sizes *sizes // sizes are the state's sizes per namespace; see SizeOf.
}

// New returns a Backend over store, which it owns from now on: Close
// closes it.
func New(store kv.Store) *Backend {
	log := &changeLog{Store: store}
	b := &Backend{store: log, log: log, kinds: map[string]kind{}, names: map[string]string{},
		sizes: &sizes{byNS: map[string]*Size{}}}
	b.collect = b.collectEntry
	return b
}

// Value returns the handle of the value state named ns.
func (b *Backend) Value(ns string) (*Value, error) {
	h, err := b.handle(ns, kindValue)
	if err != nil {
		return nil, err
	}
	return &Value{h}, nil
}

// List returns the handle of the list state named ns.
func (b *Backend) List(ns string) (*List, error) {
	h, err := b.handle(ns, kindList)
	if err != nil {
		return nil, err
	}
	return &List{h}, nil
}

// Map returns the handle of the map state named ns.
func (b *Backend) Map(ns string) (*Map, error) {
	h, err := b.handle(ns, kindMap)
	if err != nil {
		return nil, err
	}
	return &Map{h}, nil
}

// handle validates ns, records its kind and returns the shared part of a
// state handle.
func (b *Backend) handle(ns string, k kind) (handle, error) {
	if err := CheckNamespace(ns); err != nil {
		return handle{}, err
	}
	if old, ok := b.kinds[ns]; ok && old != k {
		return handle{}, fmt.Errorf("%w: %q is %s state, cannot open it as %s state",
			ErrInvalidNamespace, ns, old, k)
	}
	b.kinds[ns] = k
	field := append([]byte{byte(len(ns))}, ns...)
	return handle{b: b, ns: ns, nsField: field}, nil
}

// Flush makes every write so far durable; see kv.Store.Flush.
func (b *Backend) Flush() error {
	if err := b.store.Flush(); err != nil {
		return fmt.Errorf("state: flush: %w", err)
	}
	return nil
}

// Close closes the store.
func (b *Backend) Close() error {
	if err := b.store.Close(); err != nil {
		return fmt.Errorf("state: close: %w", err)
	}
	return nil
}

// ScanRange calls fn for every state entry of the key groups in r, in
// store key order: by key group, then namespace, user key and map key.
// rest is the map key for map state and empty otherwise; val is the stored
// value, which for list state is the encoded list. The slices are valid
// only during the call, and fn must not call the Backend. An entry that
// does not follow the layout stops the scan with an error wrapping
// ErrCorrupt; an error from fn stops it and is returned as is.
func (b *Backend) ScanRange(r keygroup.Range, fn func(kg uint16, ns string, key, rest, val []byte) error) error {
	start, end := KeyGroupSpan(r)
	return b.store.Scan(start, end, func(k, v []byte) error {
		p, err := decodeKey(k)
		if err != nil {
			return err
		}
		return fn(p.kg, b.intern(p.ns), p.key, p.rest, v)
	})
}

// intern returns ns as a string, allocating only the first time.
func (b *Backend) intern(ns []byte) string {
	if s, ok := b.names[string(ns)]; ok {
		return s
	}
	s := string(ns)
	b.names[s] = s
	return s
}

// borrow returns an empty scratch buffer; giveBack returns it. Iterations
// borrow their own buffer so that callbacks may start further ones.
func (b *Backend) borrow() []byte {
	n := len(b.spare)
	if n == 0 {
		return nil
	}
	buf := b.spare[n-1]
	b.spare = b.spare[:n-1]
	return buf[:0]
}

// giveBack makes buf available to borrow, unless it is too large to keep.
func (b *Backend) giveBack(buf []byte) {
	if cap(buf) <= maxKeptBuffer {
		b.spare = append(b.spare, buf)
	}
}

// handle is what every state handle shares: the Backend and the encoded
// namespace.
type handle struct {
	b       *Backend
	ns      string
	nsField []byte // nsField is the namespace with its length byte.
}

// storeKey builds the store key of (kg, key) in the Backend's scratch
// buffer, valid until the next storeKey.
func (h handle) storeKey(kg uint16, key []byte) []byte {
	h.b.key = appendKey(h.b.key[:0], kg, h.nsField, key)
	return h.b.key
}

// wrap adds the state and the operation to a store error.
func (h handle) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("state %q: %s: %w", h.ns, op, err)
}
