package clienttest

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/floe-stream/floe/scheduler/api"
)

// fakeState is a keyed value state of a fake job.
type fakeState struct {
	typ       string
	queryable bool
	values    map[string][]byte
}

// Query is one call of QueryState that reached a job, as Queries reports it.
type Query struct {
	Job, State string
	Keys       []string
}

// QueryState answers from the states that AddState declared and PutState
// filled, as the scheduler would: the errors wrap api.ErrNotFound for an
// unknown job or state, api.ErrForbidden for a state not declared
// queryable, api.ErrConflict for a FAILED or CANCELED job and
// api.ErrUnavailable for a job that is neither RUNNING nor FINISHED. A
// FINISHED job's state stays queryable; FailQueries stands in for the end
// of its retention, or for any other failure.
func (f *Fake) QueryState(_ context.Context, id, name string, keys [][]byte) ([]api.StateValue, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, err := f.find(id)
	if err != nil {
		return nil, err
	}
	q := Query{Job: id, State: name, Keys: make([]string, len(keys))}
	for i, k := range keys {
		q.Keys[i] = string(k)
	}
	f.queries = append(f.queries, q)
	if len(j.queryErrs) > 0 {
		err, j.queryErrs = j.queryErrs[0], j.queryErrs[1:]
		if err != nil {
			return nil, err
		}
	}
	s, err := j.queryable(name)
	if err != nil {
		return nil, err
	}
	out := make([]api.StateValue, len(keys))
	for i, k := range keys {
		raw, found := s.values[string(k)]
		out[i] = api.StateValue{Key: string(k), Found: found, Type: s.typ, Raw: bytes.Clone(raw)}
		out[i].Render()
	}
	return out, nil
}

// queryable returns state name of j if a query may read it now.
func (j *fakeJob) queryable(name string) (*fakeState, error) {
	id, state := j.status.ID, j.status.State
	s, ok := j.states[name]
	switch {
	case !ok:
		names := slices.Sorted(maps.Keys(j.states))
		return nil, fmt.Errorf("%w: job %s has no state named %q (its states: %s)", api.ErrNotFound, id, name, strings.Join(names, ", "))
	case !s.queryable:
		return nil, fmt.Errorf("%w: state %q of job %s is not declared queryable", api.ErrForbidden, name, id)
	case state == api.JobRunning || state == api.JobFinished:
		return s, nil
	case state == api.JobFailed || state == api.JobCanceled:
		return nil, fmt.Errorf("%w: job %s is %s; its state is gone", api.ErrConflict, id, state)
	}
	return nil, fmt.Errorf("%w: job %s is %s; its state is moving", api.ErrUnavailable, id, state)
}

// AddState declares a keyed value state of job id, as the job's operators
// do when they start: typ is how its values render (int64, string, json or
// bytes), and only a queryable state answers QueryState. Declaring a state
// again replaces it, values and all. It panics for an unknown id.
func (f *Fake) AddState(id, name, typ string, queryable bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, err := f.lookup(id)
	if err != nil {
		panic(err)
	}
	if j.states == nil {
		j.states = make(map[string]*fakeState)
	}
	j.states[name] = &fakeState{typ: typ, queryable: queryable, values: make(map[string][]byte)}
}

// PutState sets key's value in state name of job id to a copy of raw, the
// bytes as the state stores them (an int64 as 8 little-endian bytes), or
// removes the key if raw is nil. It panics for an unknown job or state.
func (f *Fake) PutState(id, name, key string, raw []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, err := f.lookup(id)
	if err != nil {
		panic(err)
	}
	s, ok := j.states[name]
	if !ok {
		panic(fmt.Sprintf("clienttest: job %s has no state %q: call AddState first", id, name))
	}
	if raw == nil {
		delete(s.values, key)
		return
	}
	s.values[key] = bytes.Clone(raw)
}

// FailQueries makes the next len(errs) calls of QueryState for job id
// return errs in turn, before anything else is checked; a nil entry lets its
// call through. A test scripts a restart with
// FailQueries(id, fmt.Errorf("%w: ...", api.ErrUnavailable)), or the end of
// a finished job's retention with an error wrapping api.ErrConflict. It
// panics for an unknown id.
func (f *Fake) FailQueries(id string, errs ...error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, err := f.lookup(id)
	if err != nil {
		panic(err)
	}
	j.queryErrs = append(j.queryErrs, errs...)
}

// Queries returns every call of QueryState that named a known job, oldest
// first, whether or not it succeeded.
func (f *Fake) Queries() []Query {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := slices.Clone(f.queries)
	for i := range out {
		out[i].Keys = slices.Clone(out[i].Keys)
	}
	return out
}
