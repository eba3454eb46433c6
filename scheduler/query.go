package scheduler

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	floev1 "github.com/floe-stream/floe/proto/floe/v1"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/lifecycle"
	"github.com/floe-stream/floe/storage/keygroup"
)

// DefaultStateRetention keeps a finished job's state queryable this long.
const DefaultStateRetention = 10 * time.Minute

// lookup is one subtask's share of a query.
type lookup struct {
	tm      *taskManager
	req     *floev1.LookupStateRequest
	indexes []int
}

// QueryState implements api.Service.
func (s *Server) QueryState(ctx context.Context, id, name string, keys [][]byte) ([]api.StateValue, error) {
	lookups, d, err := s.route(id, name, keys)
	if err != nil {
		return nil, err
	}
	out := make([]api.StateValue, len(keys))
	errs := make([]error, len(lookups))
	var wg sync.WaitGroup
	for i, l := range lookups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.lookup(ctx, l, keys, d, out)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// lookup asks one subtask for its share of the keys and fills in its
// answers; the shares of different subtasks are asked in parallel.
func (s *Server) lookup(ctx context.Context, l *lookup, keys [][]byte, d lifecycle.Declared, out []api.StateValue) error {
	resp, err := l.tm.client.LookupState(ctx, l.req)
	if err != nil {
		return queryError(err)
	}
	if len(resp.Values) != len(l.indexes) {
		return fmt.Errorf("task manager %s answered %d values for %d keys", l.tm.id, len(resp.Values), len(l.indexes))
	}
	for i, v := range resp.Values {
		k := l.indexes[i]
		out[k] = api.StateValue{Key: string(keys[k]), Found: v.Found, Type: d.Type, Raw: v.Value}
		out[k].Render()
	}
	return nil
}

// route finds, for each key, the subtask that owns its key group and the
// task manager it runs on.
func (s *Server) route(id, name string, keys [][]byte) ([]*lookup, lifecycle.Declared, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.machine().Job(id)
	if j == nil {
		return nil, lifecycle.Declared{}, fmt.Errorf("%w: no job %q", api.ErrNotFound, id)
	}
	d, ok := j.States[name]
	switch {
	case !ok && j.States == nil:
		return nil, d, fmt.Errorf("%w: job %s has not declared its states yet (it is %s)", api.ErrUnavailable, id, j.State)
	case !ok:
		return nil, d, fmt.Errorf("%w: job %s has no state named %q (its states: %s)", api.ErrNotFound, id, name, stateNames(j))
	case !d.Queryable:
		return nil, d, fmt.Errorf("%w: state %q of job %s is not declared queryable", api.ErrForbidden, name, id)
	}
	if err := s.queryableNow(j); err != nil {
		return nil, d, err
	}
	st := j.Plan.Stages[d.Stage]
	bySub := map[int]*lookup{}
	for i, k := range keys {
		kg := keygroup.Of(k, j.Plan.Job.MaxParallelism)
		sub := keygroup.SubtaskFor(int(kg), j.Plan.Job.MaxParallelism, st.Parallelism)
		l, ok := bySub[sub]
		if !ok {
			tm, ok := s.tms[j.LastPlacement[sub]]
			if !ok {
				return nil, d, fmt.Errorf("%w: the task manager of subtask %d is gone", api.ErrUnavailable, sub)
			}
			l = &lookup{tm: tm, req: &floev1.LookupStateRequest{State: name,
				Task: &floev1.TaskID{JobId: j.ID, Attempt: int32(queriedAttempt(j, d.Stage, sub)), Stage: int32(d.Stage), Subtask: int32(sub)}}}
			bySub[sub] = l
		}
		l.req.Keys = append(l.req.Keys, k)
		l.indexes = append(l.indexes, i)
	}
	out := make([]*lookup, 0, len(bySub))
	for _, l := range bySub {
		out = append(out, l)
	}
	return out, d, nil
}

// queryableNow says whether a job's state can be read now. The caller
// holds s.mu.
func (s *Server) queryableNow(j *lifecycle.Job) error {
	switch j.State {
	case api.JobRunning:
		return nil
	case api.JobFinished:
		if s.now().Sub(j.Ended) < s.cfg.StateRetention {
			return nil
		}
		return fmt.Errorf("%w: job %s finished %s ago; its state was kept for %s", api.ErrConflict, j.ID, s.now().Sub(j.Ended).Round(time.Second), s.cfg.StateRetention)
	case api.JobFailed, api.JobCanceled:
		return fmt.Errorf("%w: job %s is %s; its state is gone", api.ErrConflict, j.ID, j.State)
	}
	return fmt.Errorf("%w: job %s is %s; its state is moving", api.ErrUnavailable, j.ID, j.State)
}

func stateNames(j *lifecycle.Job) string {
	names := make([]string, 0, len(j.States))
	for n := range j.States {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// queryError maps a task manager's answer to the api's errors.
func queryError(err error) error {
	msg := status.Convert(err).Message()
	switch status.Code(err) {
	case codes.Unavailable:
		return fmt.Errorf("%w: %s", api.ErrUnavailable, msg)
	case codes.NotFound:
		return fmt.Errorf("%w: %s", api.ErrNotFound, msg)
	case codes.PermissionDenied:
		return fmt.Errorf("%w: %s", api.ErrForbidden, msg)
	}
	return err
}

// queriedAttempt is the attempt of the subtask a lookup goes to: the job's,
// but for a subtask a partial rescale kept running.
func queriedAttempt(j *lifecycle.Job, stage, sub int) int {
	if stage < len(j.Tasks) && sub < len(j.Tasks[stage]) {
		return j.TaskAttempt(stage, sub)
	}
	return j.Attempt
}
