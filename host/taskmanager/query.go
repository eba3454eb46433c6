package taskmanager

import (
	"context"
	"errors"
	"os"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/floe-stream/floe/host/metrics"
	"github.com/floe-stream/floe/host/task"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

// kept is a finished task whose keyed state stays queryable until expiry.
type kept struct {
	task   *task.Task
	dir    string
	expiry time.Time
}

// LookupState implements floev1.TaskManagerServer.
func (tm *TaskManager) LookupState(ctx context.Context, req *floev1.LookupStateRequest) (resp *floev1.LookupStateResponse, err error) {
	defer tm.observeLookup(time.Now(), &err)
	if req.Task == nil {
		return nil, status.Error(codes.InvalidArgument, "lookup: no task id")
	}
	t := tm.queryable(keyOf(req.Task))
	if t == nil {
		return nil, status.Errorf(codes.Unavailable, "subtask %d of job %s attempt %d is not running here", req.Task.Subtask, req.Task.JobId, req.Task.Attempt)
	}
	vals, err := t.Query(ctx, req.State, req.Keys)
	switch {
	case errors.Is(err, task.ErrMoved):
		return nil, status.Error(codes.Unavailable, err.Error())
	case errors.Is(err, task.ErrUnknownState):
		return nil, status.Error(codes.NotFound, err.Error())
	case errors.Is(err, task.ErrNotQueryable):
		return nil, status.Error(codes.PermissionDenied, err.Error())
	case err != nil:
		return nil, status.Error(codes.Internal, err.Error())
	}
	resp = &floev1.LookupStateResponse{Values: make([]*floev1.StateValue, len(vals))}
	for i, v := range vals {
		resp.Values[i] = &floev1.StateValue{Found: v.Found, Value: v.Value}
	}
	return resp, nil
}

// observeLookup counts a lookup that began at start and ended with *err.
func (tm *TaskManager) observeLookup(start time.Time, err *error) {
	outcome := metrics.LookupOK
	switch status.Code(*err) {
	case codes.OK:
	case codes.Unavailable:
		outcome = metrics.LookupUnavailable
	case codes.NotFound:
		outcome = metrics.LookupUnknownState
	case codes.PermissionDenied:
		outcome = metrics.LookupNotQueryable
	default:
		outcome = metrics.LookupError
	}
	tm.exporter.ObserveLookup(outcome, time.Since(start))
}

// queryable returns the running or kept task with key k.
func (tm *TaskManager) queryable(k taskKey) *task.Task {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	if r, ok := tm.tasks[k]; ok {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.task
	}
	if kt, ok := tm.kept[k]; ok && time.Now().Before(kt.expiry) {
		return kt.task
	}
	return nil
}

// keep holds a finished task's state for lookups until retention passes.
func (tm *TaskManager) keep(k taskKey, t *task.Task, retention time.Duration, dir string) {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	tm.kept[k] = kept{task: t, dir: dir, expiry: time.Now().Add(retention)}
}

// expireKept releases kept state past its retention, or of job (all
// attempts) when job is set.
func (tm *TaskManager) expireKept(job string) {
	tm.mu.Lock()
	var drop []kept
	now := time.Now()
	for k, kt := range tm.kept {
		if k.job == job || now.After(kt.expiry) {
			drop = append(drop, kt)
			delete(tm.kept, k)
		}
	}
	tm.mu.Unlock()
	for _, kt := range drop {
		if err := kt.task.CloseState(); err != nil {
			tm.log.Warn("closing kept state", "err", err)
		}
		os.RemoveAll(kt.dir)
	}
}

// declaredStates lists the states a task's operators declared.
func declaredStates(t *task.Task) []*floev1.DeclaredState {
	var out []*floev1.DeclaredState
	for _, s := range t.States() {
		op, _, _ := cutLast(s.Namespace, "/")
		out = append(out, &floev1.DeclaredState{Name: s.Name, Operator: op, Queryable: s.Queryable, Type: s.Type.String(), Kind: s.Kind.String()})
	}
	return out
}

func cutLast(s, sep string) (string, string, bool) {
	for i := len(s) - len(sep); i >= 0; i-- {
		if s[i:i+len(sep)] == sep {
			return s[:i], s[i+len(sep):], true
		}
	}
	return s, "", false
}
