package main

import (
	"context"
	"errors"
	"os"

	_ "github.com/floe-stream/floe/host/connector/builtin" // the connectors that specs name
	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/task"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/internal/jobspec"
)

// wasmOperator is a module's instance, one subtask, with the keyed state
// it was given.
type wasmOperator struct {
	in    *udf.Instance
	state *pebbleState // nil for a stateless operator
}

func (w *wasmOperator) Process(ctx context.Context, in, out *record.Batch) error {
	return w.in.Process(ctx, in, out)
}

func (w *wasmOperator) Finish() error { return w.state.flush() }

func (w *wasmOperator) Close() error {
	return errors.Join(w.in.Close(context.Background()), w.state.close())
}

// openWasm returns an opener of instances of module udfs/<module>. With
// keyed set, each instance gets a fresh pebble state backend.
func openWasm(e *env, module string, cfg udf.InstanceConfig, keyed bool) opener {
	return func(ctx context.Context) (operator, error) {
		m, err := e.module(module)
		if err != nil {
			return nil, err
		}
		var st *pebbleState
		if keyed {
			if st, err = openPebble(e); err != nil {
				return nil, err
			}
			cfg.Keyed, cfg.KeyedInput = st.backend, true
		}
		in, err := m.Instantiate(ctx, cfg)
		if err != nil {
			return nil, errors.Join(err, st.close())
		}
		return &wasmOperator{in: in, state: st}, nil
	}
}

// pebbleState is a task's pebble state backend in a directory of its own,
// which close removes.
type pebbleState struct {
	backend task.StateBackend
	dir     string
}

func openPebble(e *env) (*pebbleState, error) {
	dir, err := e.stateDir()
	if err != nil {
		return nil, err
	}
	b, err := task.OpenStateWithin(jobspec.StatePebble, dir, e.cfg.StateMemory)
	if err != nil {
		return nil, errors.Join(err, os.RemoveAll(dir))
	}
	return &pebbleState{backend: b, dir: dir}, nil
}

// flush makes the state durable; nil state has nothing to flush.
func (s *pebbleState) flush() error {
	if s == nil {
		return nil
	}
	return s.backend.Flush()
}

func (s *pebbleState) close() error {
	if s == nil {
		return nil
	}
	return errors.Join(s.backend.Close(), os.RemoveAll(s.dir))
}
