package scheduler

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/floe-stream/floe/host/record"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/lifecycle"
)

// Exceptions implements api.Service: the job's failures as its lifecycle
// keeps them, newest first, with its secret parameters hidden.
func (s *Server) Exceptions(ctx context.Context, id string) (api.Exceptions, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.machine().Job(id)
	if j == nil {
		return api.Exceptions{}, fmt.Errorf("%w: no job %q", api.ErrNotFound, id)
	}
	out := api.Exceptions{Exceptions: []api.Exception{}, Dropped: j.Exceptions.Dropped}
	for _, e := range slices.Backward(j.Exceptions.List) {
		out.Exceptions = append(out.Exceptions, exception(j, e))
	}
	return out, nil
}

// exception renders one failure of job j.
func exception(j *lifecycle.Job, e lifecycle.Exception) api.Exception {
	redact := j.Plan.Job.Redact
	x := api.Exception{Time: e.Time, Attempt: e.Attempt, TaskManager: e.TaskManager, Message: redact(e.Message)}
	if t := e.Task; t != nil {
		stage, sub := t.Stage, t.Subtask
		x.Stage, x.Subtask = &stage, &sub
		if stage < len(j.Plan.Stages) {
			x.Vertex = j.Plan.Stages[stage].Name
		}
	}
	if f := e.Failure; f != nil {
		x.Operator, x.Module, x.Function = f.Operator, f.Module, f.Function
		if f.KeySize > 0 {
			x.Key = redact(record.QuoteExcerpt(f.Key, f.KeySize))
		}
		if f.HasRecord {
			x.Record = redact(record.QuoteExcerpt(f.Value, f.ValueSize))
		}
	}
	return x
}

// failure reads where a task's failure arose from its status report.
func failure(f *floev1.Failure) *lifecycle.Failure {
	if f == nil {
		return nil
	}
	return &lifecycle.Failure{Operator: f.Operator, Module: f.Module, Function: f.Function,
		Key: f.Key, KeySize: int(f.KeySize), HasRecord: f.HasRecord, Value: f.Value, ValueSize: int(f.ValueSize)}
}

// fetchLogsTimeout bounds how long Logs waits for a task manager.
const fetchLogsTimeout = 5 * time.Second

// Logs implements api.Service. Guest log lines stay on the task managers
// that ran the subtasks, each subtask's in a bounded ring, and are fetched
// only when a user asks: shipping them with every heartbeat would cost
// the scheduler (and, in a group, the replicated log) for lines nobody
// reads. Every connected task manager is asked, since the lines of an
// earlier attempt can be on one the job no longer uses. A task manager
// that is gone took its lines with it; one that does not answer is named
// in Unreachable.
//
// Only the leader holds task managers' connections: a follower answers
// api.ErrUnavailable, and forwards the request to the leader instead
// (see forwarding).
func (s *Server) Logs(ctx context.Context, id string, q api.LogQuery) (api.Logs, error) {
	q, err := api.CheckLogQuery(q)
	if err != nil {
		return api.Logs{}, err
	}
	req, names, tms, err := s.logRequest(id, q)
	if err != nil {
		return api.Logs{}, err
	}
	answers := make([]logAnswer, len(tms))
	var wg sync.WaitGroup
	for i, tm := range tms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(ctx, fetchLogsTimeout)
			defer cancel()
			answers[i].tm = tm.id
			answers[i].resp, answers[i].err = tm.client.FetchLogs(ctx, req)
			if answers[i].err != nil {
				s.log.Warn("fetching logs", "job", id, "task manager", tm.id, "err", answers[i].err)
			}
		}()
	}
	wg.Wait()
	return mergeLogs(answers, names, q.Since, q.Limit), nil
}

// logAnswer is a task manager's answer to FetchLogs.
type logAnswer struct {
	tm   string
	resp *floev1.FetchLogsResponse
	err  error
}

// mergeLogs merges the task managers' answers to a query from since, of
// at most limit lines, into one, ordered by seq. names are the job's
// vertices by stage.
func mergeLogs(answers []logAnswer, names []string, since int64, limit int) api.Logs {
	out := api.Logs{Lines: []api.LogLine{}, Next: since}
	// cutoff is the smallest last seq of the task managers that left lines
	// out: past it, another's lines would come before some of theirs.
	cutoff := int64(math.MaxInt64)
	for _, a := range answers {
		if a.err != nil {
			out.Unreachable = append(out.Unreachable, a.tm)
			continue
		}
		if n := len(a.resp.Lines); a.resp.More && n > 0 {
			out.More, cutoff = true, min(cutoff, a.resp.Lines[n-1].Seq)
		}
		for _, l := range a.resp.Lines {
			out.Lines = append(out.Lines, logLine(l, a.tm, names))
		}
	}
	slices.Sort(out.Unreachable)
	slices.SortFunc(out.Lines, func(a, b api.LogLine) int {
		return cmp.Or(cmp.Compare(a.Seq, b.Seq), cmp.Compare(a.TaskManager, b.TaskManager))
	})
	// NB: every task manager sent its oldest lines after since, so the
	// lines up to cutoff, and of those the oldest limit, are all there are
	// up to the last one kept: following from Next misses none.
	if i := slices.IndexFunc(out.Lines, func(l api.LogLine) bool { return l.Seq > cutoff }); i >= 0 {
		out.Lines = out.Lines[:i]
	}
	if len(out.Lines) > limit {
		out.Lines, out.More = out.Lines[:limit], true
	}
	if n := len(out.Lines); n > 0 {
		out.Next = out.Lines[n-1].Seq
	}
	return out
}

// logRequest resolves a log query against job id: the request to send,
// the job's vertex names by stage and the task managers to ask.
func (s *Server) logRequest(id string, q api.LogQuery) (*floev1.FetchLogsRequest, []string, []*taskManager, error) {
	if !s.isLeading() {
		return nil, nil, nil, fmt.Errorf("%w: only the leader reaches the task managers that keep a job's logs", errNotLeader)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.machine().Job(id)
	if j == nil {
		return nil, nil, nil, fmt.Errorf("%w: no job %q", api.ErrNotFound, id)
	}
	names := make([]string, len(j.Plan.Stages))
	for i, st := range j.Plan.Stages {
		names[i] = st.Name
	}
	req := &floev1.FetchLogsRequest{JobId: id, Since: q.Since, Limit: int32(q.Limit)}
	if q.Vertex != "" {
		stage, err := vertexOf(j, q.Vertex)
		if err != nil {
			return nil, nil, nil, err
		}
		st := int32(stage)
		req.Stage = &st
		if q.Subtask >= 0 {
			sub := int32(q.Subtask)
			req.Subtask = &sub
		}
	}
	tms := make([]*taskManager, 0, len(s.tms))
	for _, tm := range s.tms {
		tms = append(tms, tm)
	}
	return req, names, tms, nil
}

// vertexOf finds a stage of a job by its index or its name.
func vertexOf(j *lifecycle.Job, v string) (int, error) {
	if n, err := strconv.Atoi(v); err == nil && n >= 0 && n < len(j.Plan.Stages) {
		return n, nil
	}
	for i, st := range j.Plan.Stages {
		if st.Name == v {
			return i, nil
		}
	}
	names := make([]string, len(j.Plan.Stages))
	for i, st := range j.Plan.Stages {
		names[i] = strconv.Quote(st.Name)
	}
	return 0, fmt.Errorf("%w: job %s has no vertex %q (its vertices, by index from 0: %v)", api.ErrNotFound, j.ID, v, names)
}

// logLine renders a line task manager tm sent.
func logLine(l *floev1.LogLine, tm string, names []string) api.LogLine {
	out := api.LogLine{Seq: l.Seq, Time: time.Unix(0, l.TimeUnixNano).UTC(), Level: slog.Level(l.Level).String(),
		TaskManager: tm, Operator: l.Operator, Message: l.Message}
	if t := l.Task; t != nil {
		out.Stage, out.Subtask, out.Attempt = int(t.Stage), int(t.Subtask), int(t.Attempt)
		if int(t.Stage) < len(names) {
			out.Vertex = names[t.Stage]
		}
	}
	return out
}
