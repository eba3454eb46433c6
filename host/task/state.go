package task

import (
	"fmt"

	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/storage/kv"
	"github.com/floe-stream/floe/storage/kv/memkv"
	"github.com/floe-stream/floe/storage/kv/pebblekv"
	"github.com/floe-stream/floe/storage/state"
)

// keyedState adapts a state.Backend to what the host's state calls need.
type keyedState struct{ *state.Backend }

func (k keyedState) Value(ns string) (udf.ValueState, error) { return k.Backend.Value(ns) }
func (k keyedState) List(ns string) (udf.ListState, error)   { return k.Backend.List(ns) }
func (k keyedState) Map(ns string) (udf.MapState, error)     { return k.Backend.Map(ns) }

// OpenState opens a subtask's keyed state: in memory, or in a pebble store
// in dir with the default memory budget.
func OpenState(backend jobspec.StateBackend, dir string) (StateBackend, error) {
	return OpenStateWithin(backend, dir, 0)
}

// OpenStateWithin is OpenState with a pebble store that keeps to
// memoryBytes (pebblekv.Options.MemoryBytes; 0 means its default).
func OpenStateWithin(backend jobspec.StateBackend, dir string, memoryBytes int64) (StateBackend, error) {
	var store kv.Store
	switch backend {
	case jobspec.StateMemory:
		store = memkv.New()
	case jobspec.StatePebble, "":
		s, err := pebblekv.Open(dir, pebblekv.Options{MemoryBytes: memoryBytes})
		if err != nil {
			return nil, err
		}
		store = s
	default:
		return nil, fmt.Errorf("unknown state backend %q", backend)
	}
	return keyedState{state.New(store)}, nil
}
