package udf

import "bytes"

// The keyed state an instance's state calls reach. storage/state provides
// the implementation; these interfaces are what the host needs of it, so the
// Wasm boundary can be tested against any store.
//
// Every method is scoped by key group and key; the host passes the key group
// the record was routed by, so stores never hash a key again. Returned slices
// are valid until the next call on the same store.

// ValueState stores one value per key.
type ValueState interface {
	Get(kg uint16, key []byte) ([]byte, bool, error)
	Put(kg uint16, key, value []byte) error
	Delete(kg uint16, key []byte) error
}

// ListState stores a list per key.
type ListState interface {
	Append(kg uint16, key, elem []byte) error
	Get(kg uint16, key []byte, fn func(elem []byte) error) error
	Clear(kg uint16, key []byte) error
}

// MapState stores a map per key.
type MapState interface {
	Get(kg uint16, key, mapKey []byte) ([]byte, bool, error)
	Put(kg uint16, key, mapKey, value []byte) error
	Delete(kg uint16, key, mapKey []byte) error
	Iter(kg uint16, key []byte, fn func(mapKey, value []byte) error) error
	Clear(kg uint16, key []byte) error
}

// DeletePrefix deletes the entries of key's map in m whose map keys start
// with prefix, as a window deletes one window's records.
func DeletePrefix(m MapState, kg uint16, key, prefix []byte) error {
	var mks [][]byte
	err := m.Iter(kg, key, func(mk, _ []byte) error {
		if bytes.HasPrefix(mk, prefix) {
			mks = append(mks, bytes.Clone(mk))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, mk := range mks {
		if err := m.Delete(kg, key, mk); err != nil {
			return err
		}
	}
	return nil
}

// Keyed hands out the states of one subtask by namespace
// ("<operator uid>/<state name>").
type Keyed interface {
	Value(ns string) (ValueState, error)
	List(ns string) (ListState, error)
	Map(ns string) (MapState, error)
}

// OperatorList is one subtask's operator list state (ABI kinds 4 and 5).
type OperatorList interface {
	Append(elem []byte) error
	Get(fn func(elem []byte) error) error
	Clear() error
}

// OperatorState hands out a subtask's operator list states by namespace.
// kind is KindEvenSplitList or KindUnionList, which decides how the list is
// redistributed when the job is restored at another parallelism.
type OperatorState interface {
	List(ns string, kind StateKind) (OperatorList, error)
	// BroadcastMap returns the broadcast map state (ABI kind 6) of
	// namespace ns (broadcast.go).
	BroadcastMap(ns string) (BroadcastMap, error)
}

// TimeDomain is a timer's clock, as the ABI numbers it.
type TimeDomain int32

// The time domains of ABI v1.
const (
	EventTime      TimeDomain = 0
	ProcessingTime TimeDomain = 1
)

func (d TimeDomain) String() string {
	if d == ProcessingTime {
		return "processing-time"
	}
	return "event-time"
}

// Timers keeps a keyed instance's timers, scoped like keyed state by key
// group and key.
type Timers interface {
	Register(kg uint16, key []byte, d TimeDomain, ts int64) error
	Delete(kg uint16, key []byte, d TimeDomain, ts int64) error
}

// StateKind is a state's shape, as the ABI's state_declare numbers it.
type StateKind int32

// The state kinds of ABI v1.
const (
	KindValue StateKind = 1
	KindList  StateKind = 2
	KindMap   StateKind = 3
	// Operator list state, redistributed by even split or by union.
	KindEvenSplitList StateKind = 4
	KindUnionList     StateKind = 5
	// KindBroadcastMap is broadcast map state: one map per subtask,
	// written only by the function of a broadcast input (broadcast.go).
	KindBroadcastMap StateKind = 6
)

func (k StateKind) String() string {
	switch k {
	case KindValue:
		return "value"
	case KindList:
		return "list"
	case KindMap:
		return "map"
	case KindEvenSplitList:
		return "operator list (even split)"
	case KindUnionList:
		return "operator list (union)"
	case KindBroadcastMap:
		return "broadcast map"
	}
	return "unknown"
}

// ValueType is how a queryable state's values are rendered.
type ValueType uint8

// The value types of ABI v1.
const (
	TypeBytes  ValueType = 0
	TypeInt64  ValueType = 1
	TypeString ValueType = 2
	TypeJSON   ValueType = 3
)

func (t ValueType) String() string {
	switch t {
	case TypeInt64:
		return "int64"
	case TypeString:
		return "string"
	case TypeJSON:
		return "json"
	}
	return "bytes"
}

// StateInfo describes a state an instance declared.
type StateInfo struct {
	Name      string
	Namespace string
	Kind      StateKind
	Type      ValueType
	Queryable bool
}

// stateBinding is a declared state and the store behind it.
type stateBinding struct {
	info  StateInfo
	value ValueState
	list  ListState
	mp    MapState
	op    OperatorList
	bc    BroadcastMap
}
