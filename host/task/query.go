package task

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/storage/keygroup"
)

// Errors of Query; the task manager maps them to gRPC codes.
var (
	// ErrUnknownState: no operator of the task declared the state.
	ErrUnknownState = errors.New("unknown state")
	// ErrNotQueryable: the state is not declared queryable.
	ErrNotQueryable = errors.New("state is not queryable")
	// ErrMoved: the task does not own the key's key group, or is no longer
	// running; the caller should ask again where the key lives now.
	ErrMoved = errors.New("state moved")
)

// Lookup is the answer for one key.
type Lookup struct {
	Found bool
	Value []byte
}

// query is a state lookup waiting for the task loop.
type query struct {
	state string
	keys  [][]byte
	reply chan queryResult
}

type queryResult struct {
	values []Lookup
	err    error
}

// querier serves state lookups: through the task loop while the task runs,
// so they never race with processing, and directly once it has finished
// and kept its state.
type querier struct {
	queue chan query
	mu    sync.Mutex
	done  bool // the task loop has ended; lookups read the state directly
	kept  bool // the state stays open for lookups after the task ended
}

// Query reads keys of the named keyed state. It is safe to call from any
// goroutine: once the task is open it reads through the state gate, between
// two state operations of the task; before that the task loop answers when
// it starts.
func (t *Task) Query(ctx context.Context, state string, keys [][]byte) ([]Lookup, error) {
	t.q.mu.Lock()
	if t.q.done {
		defer t.q.mu.Unlock()
		if !t.q.kept {
			return nil, fmt.Errorf("%w: the task has ended", ErrMoved)
		}
		return t.lookup(state, keys)
	}
	t.q.mu.Unlock()
	if t.ready.Load() {
		// The task is open: cut in.
		t.stateGate.lockForLookup()
		defer t.stateGate.unlockForLookup()
		if !t.ready.Load() {
			return nil, fmt.Errorf("%w: the task has ended", ErrMoved)
		}
		return t.lookup(state, keys)
	}
	q := query{state: state, keys: keys, reply: make(chan queryResult, 1)}
	select {
	case t.q.queue <- q:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	t.poke()
	select {
	case r := <-q.reply:
		return r.values, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// serviceQueries answers the lookups waiting for the task loop.
func (t *Task) serviceQueries() {
	for {
		select {
		case q := <-t.q.queue:
			v, err := t.lookup(q.state, q.keys)
			q.reply <- queryResult{v, err}
		default:
			return
		}
	}
}

// endQueries switches lookups to direct reads once the loop has ended;
// waiting ones are answered first.
func (t *Task) endQueries(keep bool) {
	t.q.mu.Lock()
	t.q.done, t.q.kept = true, keep && t.state != nil
	t.q.mu.Unlock()
	for {
		select {
		case q := <-t.q.queue:
			q.reply <- queryResult{nil, fmt.Errorf("%w: the task has ended", ErrMoved)}
		default:
			return
		}
	}
}

// lookup reads keys from the state an operator declared under name.
func (t *Task) lookup(name string, keys [][]byte) ([]Lookup, error) {
	info, ok := t.declared(name)
	switch {
	case !ok || t.state == nil:
		return nil, fmt.Errorf("%w %q", ErrUnknownState, name)
	case !info.Queryable:
		return nil, fmt.Errorf("%w: %q", ErrNotQueryable, name)
	case info.Kind != udf.KindValue:
		return nil, fmt.Errorf("%w: %q is %s state; only value state can be queried", ErrNotQueryable, name, info.Kind)
	}
	vs, err := t.state.Value(info.Namespace)
	if err != nil {
		return nil, err
	}
	owned := t.keyGroups()
	out := make([]Lookup, len(keys))
	for i, k := range keys {
		kg := keygroup.Of(k, t.spec.Plan.Job.MaxParallelism)
		if !owned.Contains(int(kg)) {
			return nil, fmt.Errorf("%w: key group %d is not in %v", ErrMoved, kg, owned)
		}
		v, found, err := vs.Get(kg, k)
		if err != nil {
			return nil, err
		}
		out[i] = Lookup{Found: found, Value: bytes.Clone(v)}
	}
	return out, nil
}

// States returns the keyed states the task's operators declared.
func (t *Task) States() []udf.StateInfo {
	var out []udf.StateInfo
	for _, op := range t.ops {
		// NB: a Wasm instance and a SQL view (host/sqlop.View) declare
		// states.
		if in, ok := op.(*udf.Instance); ok && in == nil {
			continue
		}
		if in, ok := op.(interface{ States() []udf.StateInfo }); ok && in != nil {
			out = append(out, in.States()...)
		}
	}
	return out
}

func (t *Task) declared(name string) (udf.StateInfo, bool) {
	for _, s := range t.States() {
		if s.Name == name {
			return s, true
		}
	}
	return udf.StateInfo{}, false
}

// CloseState releases the state a finished task kept for lookups.
func (t *Task) CloseState() error {
	t.q.mu.Lock()
	defer t.q.mu.Unlock()
	if !t.q.kept {
		return nil
	}
	t.q.kept = false
	return t.state.Close()
}
