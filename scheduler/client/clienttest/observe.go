package clienttest

import (
	"context"
	"strconv"

	"github.com/floe-stream/floe/scheduler/api"
)

// observed are a fake job's failures, oldest first, and its log lines.
type observed struct {
	exceptions []api.Exception
	lines      []api.LogLine
}

// obs returns job id's failures and log lines. f.mu is held.
func (f *Fake) obs(id string) *observed {
	if f.observed == nil {
		f.observed = map[string]*observed{}
	}
	o, ok := f.observed[id]
	if !ok {
		o = &observed{}
		f.observed[id] = o
	}
	return o
}

// AddException records a failure of job id, the newest.
func (f *Fake) AddException(id string, e api.Exception) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.obs(id).exceptions = append(f.obs(id).exceptions, e)
}

// AddLog records a log line of job id. Lines are returned in the order
// added, which should be that of their Seq.
func (f *Fake) AddLog(id string, l api.LogLine) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.obs(id).lines = append(f.obs(id).lines, l)
}

// Exceptions returns the failures AddException recorded, newest first.
func (f *Fake) Exceptions(_ context.Context, id string) (api.Exceptions, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, err := f.find(id); err != nil {
		return api.Exceptions{}, err
	}
	out := api.Exceptions{Exceptions: []api.Exception{}}
	xs := f.obs(id).exceptions
	for i := len(xs) - 1; i >= 0; i-- {
		out.Exceptions = append(out.Exceptions, xs[i])
	}
	return out, nil
}

// Logs returns the lines AddLog recorded that q selects: after q.Since,
// of vertex q.Vertex (its name or its stage as a number) and subtask
// q.Subtask, at most q.Limit.
func (f *Fake) Logs(_ context.Context, id string, q api.LogQuery) (api.Logs, error) {
	q, err := api.CheckLogQuery(q)
	if err != nil {
		return api.Logs{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, err := f.find(id); err != nil {
		return api.Logs{}, err
	}
	out := api.Logs{Lines: []api.LogLine{}, Next: q.Since}
	for _, l := range f.obs(id).lines {
		if l.Seq <= q.Since || (q.Vertex != "" && q.Vertex != l.Vertex && q.Vertex != strconv.Itoa(l.Stage)) ||
			(q.Subtask >= 0 && q.Subtask != l.Subtask) {
			continue
		}
		if len(out.Lines) == q.Limit {
			out.More = true
			break
		}
		out.Lines = append(out.Lines, l)
		out.Next = l.Seq
	}
	return out, nil
}
