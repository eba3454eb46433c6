package api

import (
	"fmt"
	"strconv"
	"time"
)

// Exception is one failure of a job, as GET /v1/jobs/{id}/exceptions
// shows it: a task that failed, or an attempt that failed as a whole (its
// task manager lost), which names no subtask.
type Exception struct {
	Time    time.Time `json:"time"`
	Attempt int       `json:"attempt"`
	// Vertex, Stage and Subtask name the failed subtask.
	Vertex      string `json:"vertex,omitempty"`
	Stage       *int   `json:"stage,omitempty"`
	Subtask     *int   `json:"subtask,omitempty"`
	TaskManager string `json:"taskManager,omitempty"`
	// Operator, Module and Function place a failure that arose in an
	// operator's Wasm module.
	Operator string `json:"operator,omitempty"`
	Module   string `json:"module,omitempty"`
	Function string `json:"function,omitempty"`
	// Key is the key of the record being processed and Record its value,
	// each quoted and cut to its first bytes, with the length said when
	// cut; absent when the failure is not tied to a record or the record
	// has no key.
	Key    string `json:"key,omitempty"`
	Record string `json:"record,omitempty"`
	// Message is the failure's message, cut to 4 KiB.
	Message string `json:"message"`
}

// Exceptions are a job's failures, newest first: the last 100, and how
// many older ones were dropped.
type Exceptions struct {
	Exceptions []Exception `json:"exceptions"`
	Dropped    int         `json:"dropped"`
}

// LogLine is one line a job's guest code logged (or that the host logged
// about it, such as lines dropped over the rate limit), with the job's
// secret parameters redacted.
type LogLine struct {
	// Seq orders the lines of a task manager; pass the largest seen as
	// LogQuery.Since to get only newer lines. It is the task manager's
	// clock in Unix nanoseconds, moved on by one when the clock did not
	// advance.
	Seq         int64     `json:"seq"`
	Time        time.Time `json:"time"`
	Level       string    `json:"level"`
	Vertex      string    `json:"vertex"`
	Stage       int       `json:"stage"`
	Subtask     int       `json:"subtask"`
	Attempt     int       `json:"attempt"`
	TaskManager string    `json:"taskManager"`
	Operator    string    `json:"operator,omitempty"`
	Message     string    `json:"message"`
}

// Logs are the recent log lines of a job's subtasks, oldest first.
type Logs struct {
	Lines []LogLine `json:"lines"`
	// Next is the seq to ask for newer lines with (Since): the last
	// line's, or the query's own Since when no line came.
	Next int64 `json:"next"`
	// More tells that lines were left out over the limit: ask again from
	// Next.
	More bool `json:"more,omitempty"`
	// Unreachable lists the task managers of the job that did not answer;
	// their lines are missing.
	Unreachable []string `json:"unreachable,omitempty"`
}

// LogQuery selects log lines: those after Since, of one vertex (a stage
// name or index; empty: every vertex) and one subtask of it (-1: every
// subtask), at most Limit (0: DefaultLogLimit).
type LogQuery struct {
	Since   int64
	Vertex  string
	Subtask int
	Limit   int
}

// Log lines a query returns: DefaultLogLimit unless it asks for another
// number, at most MaxLogLimit.
const (
	DefaultLogLimit = 1000
	MaxLogLimit     = 10000
)

// ParseSince reads a since parameter: a seq, or a time in RFC 3339 (the
// lines logged after it; seqs are times in Unix nanoseconds).
func ParseSince(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("%w: since %d is negative", ErrBadRequest, n)
		}
		return n, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, fmt.Errorf("%w: since %q is neither a seq nor an RFC 3339 time", ErrBadRequest, s)
	}
	return t.UnixNano(), nil
}

// CheckLogQuery returns q with its defaults, or an error wrapping
// ErrBadRequest.
func CheckLogQuery(q LogQuery) (LogQuery, error) {
	switch {
	case q.Limit < 0 || q.Limit > MaxLogLimit:
		return q, fmt.Errorf("%w: limit %d is out of range 1..%d", ErrBadRequest, q.Limit, MaxLogLimit)
	case q.Subtask < -1:
		return q, fmt.Errorf("%w: subtask %d is negative", ErrBadRequest, q.Subtask)
	case q.Subtask >= 0 && q.Vertex == "":
		return q, fmt.Errorf("%w: a subtask needs a vertex", ErrBadRequest)
	}
	if q.Limit == 0 {
		q.Limit = DefaultLogLimit
	}
	return q, nil
}
