// Package api is the scheduler's job-management surface as Go types: what
// the REST server serves, what the Go client returns and what the CLI
// prints. It holds data and errors only; the scheduler implements Service.
package api

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"time"
)

// Job states.
const (
	// JobWaiting: accepted, waiting for enough free slots (Message says
	// how many it needs and has).
	JobWaiting = "WAITING"
	// JobDeploying: tasks are being deployed to task managers.
	JobDeploying = "DEPLOYING"
	// JobRunning: every task has started.
	JobRunning = "RUNNING"
	// JobRestarting: a task failed; the job waits out the restart delay.
	JobRestarting = "RESTARTING"
	// JobFinished: every task finished; the terminal success state.
	JobFinished = "FINISHED"
	// JobFailed: a task failed and the restart strategy gave up.
	JobFailed = "FAILED"
	// JobCanceled: cancelled by a user.
	JobCanceled = "CANCELED"
)

// Terminal reports whether a job in state never changes again.
func Terminal(state string) bool {
	return state == JobFinished || state == JobFailed || state == JobCanceled
}

// Task states.
const (
	TaskScheduled = "SCHEDULED"
	TaskDeploying = "DEPLOYING"
	TaskRunning   = "RUNNING"
	TaskFinished  = "FINISHED"
	TaskFailed    = "FAILED"
	TaskCanceled  = "CANCELED"
	// TaskEnding: the task's input ended; its sink waits for the job's
	// final commit.
	TaskEnding = "ENDING"
)

// Submission is a job to run: its spec as written, the --set parameters, an
// optional default parallelism, and the Wasm modules the spec names, by
// module name.
type Submission struct {
	Spec        []byte
	Params      map[string]string
	Parallelism int
	Modules     map[string][]byte
	// Digests names, by module name, the modules the spec names by path
	// whose bytes are not uploaded because the scheduler has them already
	// (pushed by digest, POST /v1/modules): each is the hex SHA-256 of the
	// module file. A module is in Modules or Digests, not both.
	Digests map[string]string
	// CheckpointInterval, when set, turns checkpoints on at that interval
	// (or changes the spec's interval).
	CheckpointInterval time.Duration
	// FromSavepoint is the URL of a savepoint to start from (the directory
	// holding its _metadata); its state is matched to the job's stages by
	// their operators' uids.
	FromSavepoint string
	// AllowNonRestoredState accepts a savepoint with state for operators
	// the job no longer has (that state is dropped).
	AllowNonRestoredState bool
	// WaitForSlots accepts a job that needs more slots than the live task
	// managers have in all: it waits for more to register. Without it such
	// a job is refused (ErrConflict), unless no task manager is registered
	// at all (a cluster still starting).
	WaitForSlots bool
}

// Savepoint trigger states: a savepoint is IN_PROGRESS from its trigger
// until it is COMPLETED (Path is set) or FAILED (Failure says why).
const (
	SavepointInProgress = "IN_PROGRESS"
	SavepointCompleted  = "COMPLETED"
	SavepointFailed     = "FAILED"
)

// SavepointTrigger is a savepoint asked for, as Savepoint and Stop return
// it at once and SavepointStatus reports it until it ends.
type SavepointTrigger struct {
	// Trigger names the request: poll GET
	// /v1/jobs/{id}/savepoints/{trigger}.
	Trigger string `json:"trigger"`
	// Status is IN_PROGRESS, COMPLETED or FAILED.
	Status string `json:"status"`
	// ID is the checkpoint id the savepoint is taken as.
	ID int64 `json:"id,omitempty"`
	// Path is a completed savepoint's URL: pass it to FromSavepoint.
	Path string `json:"path,omitempty"`
	// Failure is why a FAILED savepoint failed.
	Failure string `json:"failure,omitempty"`
	// Dir is where the savepoint is copied.
	Dir string `json:"dir,omitempty"`
	// Stop tells that the job stops once the savepoint is complete.
	Stop bool `json:"stop,omitempty"`
	// TriggeredAt and EndedAt are when it was asked for and ended.
	TriggeredAt time.Time  `json:"triggeredAt"`
	EndedAt     *time.Time `json:"endedAt,omitempty"`
}

// Checkpoint states.
const (
	CheckpointInProgress = "IN_PROGRESS"
	CheckpointCompleted  = "COMPLETED"
	CheckpointFailed     = "FAILED"
)

// CheckpointStatus is one checkpoint of a job, as GET
// /v1/jobs/{id}/checkpoints shows it.
type CheckpointStatus struct {
	ID          int64      `json:"id"`
	Status      string     `json:"status"`
	Attempt     int        `json:"attempt"`
	TriggeredAt time.Time  `json:"triggeredAt"`
	CompletedAt *time.Time `json:"completedAt,omitempty"`
	// DurationMillis runs from the trigger to completion or failure.
	DurationMillis int64 `json:"durationMillis"`
	// FullBytes is the size of all state the checkpoint refers to;
	// IncrementalBytes what it uploaded.
	FullBytes        int64  `json:"fullBytes"`
	IncrementalBytes int64  `json:"incrementalBytes"`
	Message          string `json:"message,omitempty"`
	// Path is where its metadata is, once completed.
	Path     string                    `json:"path,omitempty"`
	Subtasks []CheckpointSubtaskStatus `json:"subtasks,omitempty"`
}

// CheckpointSubtaskStatus is one task's part of a checkpoint.
type CheckpointSubtaskStatus struct {
	Stage            int   `json:"stage"`
	Subtask          int   `json:"subtask"`
	AlignmentMillis  int64 `json:"alignmentMillis"`
	SyncMillis       int64 `json:"syncMillis"`
	IncrementalBytes int64 `json:"incrementalBytes"`
	FullBytes        int64 `json:"fullBytes"`
}

// JobStatus is a job as GET /v1/jobs/{id} shows it.
type JobStatus struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	State string `json:"state"`
	// Message says why a job waits, or why it failed.
	Message string `json:"message,omitempty"`
	// Attempt counts deployments: 1 for the first, +1 per restart.
	Attempt     int            `json:"attempt"`
	Parallelism int            `json:"parallelism"`
	SubmittedAt time.Time      `json:"submittedAt"`
	StartedAt   *time.Time     `json:"startedAt,omitempty"`
	EndedAt     *time.Time     `json:"endedAt,omitempty"`
	Vertices    []VertexStatus `json:"vertices,omitempty"`
	// History lists the job's state changes, oldest first: the newest
	// ones, after HistoryDropped older ones that the scheduler no longer
	// keeps (it keeps 1000). History[i] is the job's (HistoryDropped+i)-th
	// event, which is how a reader that follows the history by index
	// finds its place again.
	History        []Event `json:"history,omitempty"`
	HistoryDropped int     `json:"historyDropped,omitempty"`
}

// Event is one entry of a job's history.
type Event struct {
	Time    time.Time `json:"time"`
	State   string    `json:"state"`
	Message string    `json:"message,omitempty"`
}

// VertexStatus is one stage of a job: chained operators run by Parallelism
// subtasks.
type VertexStatus struct {
	Stage       int    `json:"stage"`
	Name        string `json:"name"`
	Parallelism int    `json:"parallelism"`
	RecordsIn   int64  `json:"recordsIn"`
	RecordsOut  int64  `json:"recordsOut"`
	// BackPressure is the largest share of time a subtask spent blocked on
	// its downstream, 0..1.
	BackPressure float64         `json:"backPressure"`
	Subtasks     []SubtaskStatus `json:"subtasks"`
	// Output is how the vertex's records reach the vertex that reads them,
	// when exactly one does: "hash" (by key group), "forward" (subtask i
	// to subtask i) or "rebalance" (round-robin); empty for a sink's
	// vertex or one read by several (Inputs has the whole graph).
	// Operators within a vertex are chained: records pass between them
	// directly.
	Output string `json:"output,omitempty"`
	// Inputs are the edges the vertex reads, in order: a job's graph is
	// its vertices and their inputs. A source vertex has none.
	Inputs []VertexInput `json:"inputs,omitempty"`
}

// VertexInput is an edge of a job's graph, as its reading vertex sees it.
type VertexInput struct {
	// Stage is the vertex the edge comes from.
	Stage int `json:"stage"`
	// Partitioning is "hash" (by key group), "forward" (subtask i to
	// subtask i), "rebalance" (round-robin) or "broadcast" (every record
	// to every subtask).
	Partitioning string `json:"partitioning"`
}

// SubtaskStatus is one parallel instance of a stage.
type SubtaskStatus struct {
	Subtask     int    `json:"subtask"`
	State       string `json:"state"`
	TaskManager string `json:"taskManager,omitempty"`
	// Attempt is the attempt the subtask was deployed in: the job's, but
	// for the subtasks a partial rescale kept running.
	Attempt      int     `json:"attempt,omitempty"`
	RecordsIn    int64   `json:"recordsIn"`
	RecordsOut   int64   `json:"recordsOut"`
	BackPressure float64 `json:"backPressure"`
	Error        string  `json:"error,omitempty"`
}

// TaskManagerStatus is a registered task manager.
type TaskManagerStatus struct {
	ID            string    `json:"id"`
	Addr          string    `json:"addr"`
	Hostname      string    `json:"hostname,omitempty"`
	Slots         int       `json:"slots"`
	FreeSlots     int       `json:"freeSlots"`
	LastHeartbeat time.Time `json:"lastHeartbeat"`
}

// Service is what the scheduler offers to manage jobs.
type Service interface {
	// Submit validates and accepts a job, returning its id. Errors wrap
	// ErrBadRequest (bad spec, missing module, invalid Wasm, parallelism
	// above maxParallelism) or ErrTooLarge.
	Submit(ctx context.Context, s Submission) (string, error)
	// Jobs lists every job, newest first, without vertices and history.
	Jobs(ctx context.Context) ([]JobStatus, error)
	// Job returns one job in full, or an error wrapping ErrNotFound.
	Job(ctx context.Context, id string) (JobStatus, error)
	// Cancel cancels a job: ErrNotFound for an unknown id, ErrConflict for
	// a job that has already ended.
	Cancel(ctx context.Context, id string) error
	// TaskManagers lists the live task managers.
	TaskManagers(ctx context.Context) ([]TaskManagerStatus, error)
	// Checkpoints lists a job's checkpoints, newest first: ErrNotFound for
	// an unknown job.
	Checkpoints(ctx context.Context, id string) ([]CheckpointStatus, error)
	// Savepoint starts a savepoint of a running job with checkpoints into
	// dir (a file:// or s3:// URL; empty means the job's checkpoint storage,
	// under savepoints/) and returns its trigger, IN_PROGRESS, at once;
	// SavepointStatus tells when it is complete: a self-contained copy of
	// the job's state, independent of parallelism. Errors wrap
	// ErrNotFound, ErrConflict (not running, no checkpoints) or
	// ErrBadRequest (bad dir).
	Savepoint(ctx context.Context, id, dir string) (SavepointTrigger, error)
	// Stop starts a savepoint like Savepoint; once it is complete the job
	// stops and ends FINISHED.
	Stop(ctx context.Context, id, dir string) (SavepointTrigger, error)
	// SavepointStatus returns a savepoint trigger of a job (the last
	// 100 are kept): ErrNotFound for an unknown job or
	// trigger.
	SavepointStatus(ctx context.Context, id, trigger string) (SavepointTrigger, error)
	// Rescale changes the parallelism of a running job with checkpoints:
	// it takes a checkpoint, stops the job and redeploys it at the new
	// parallelism, each subtask restoring the key groups it now owns. It
	// returns once the checkpoint is triggered; the job's status and
	// history report the rest, with the downtime. Errors wrap ErrNotFound,
	// ErrConflict (not running, no checkpoints, a rescale already under
	// way) or ErrBadRequest (parallelism out of range, unknown uid).
	Rescale(ctx context.Context, id string, r RescaleRequest) error
	// QueryState reads keys of a job's queryable keyed state from the
	// subtasks that own them, one StateValue per key in order. Errors wrap
	// ErrNotFound (unknown job or state), ErrForbidden (state not
	// queryable), ErrConflict (job ended and past its retention) or
	// ErrUnavailable (the state is moving: retry).
	QueryState(ctx context.Context, id, state string, keys [][]byte) ([]StateValue, error)
	// Exceptions lists a job's failures, newest first: ErrNotFound for an
	// unknown job.
	Exceptions(ctx context.Context, id string) (Exceptions, error)
	// Logs returns the recent log lines of a job's subtasks that q selects,
	// from the task managers that ran them: ErrNotFound for an unknown job
	// or vertex, ErrBadRequest for a bad query.
	Logs(ctx context.Context, id string, q LogQuery) (Logs, error)
}

// RescaleRequest is a new parallelism for a whole job (Parallelism, the
// default of every source, operator and sink without its own), and/or for
// single ones by uid (Operators).
type RescaleRequest struct {
	Parallelism int            `json:"parallelism,omitempty"`
	Operators   map[string]int `json:"operators,omitempty"`
}

// StateValue is one key's answer from queryable state.
type StateValue struct {
	Key   string `json:"key"`
	Found bool   `json:"found"`
	// Type is how Value renders the bytes: int64, string, json or bytes.
	Type string `json:"type"`
	// Value is the value rendered by Type (a number, a string, a JSON
	// value, or for bytes the base64 of the raw bytes); absent when not
	// found.
	Value any `json:"value,omitempty"`
	// Raw is the stored bytes, base64-encoded in JSON.
	Raw []byte `json:"raw,omitempty"`
}

// Render fills v.Value from v.Raw according to v.Type.
func (v *StateValue) Render() {
	if !v.Found {
		return
	}
	switch v.Type {
	case "int64":
		if len(v.Raw) == 8 {
			v.Value = int64(binary.LittleEndian.Uint64(v.Raw))
			return
		}
	case "string":
		v.Value = string(v.Raw)
		return
	case "json":
		if json.Valid(v.Raw) {
			v.Value = json.RawMessage(v.Raw)
			return
		}
	}
	v.Value = base64.StdEncoding.EncodeToString(v.Raw)
}

// The errors a Service wraps; one table maps them to HTTP status codes
// (StatusOf).
var (
	ErrBadRequest = errors.New("bad request")
	ErrNotFound   = errors.New("not found")
	ErrConflict   = errors.New("conflict")
	ErrTooLarge   = errors.New("too large")
	// ErrForbidden: the request is not allowed (a state not declared
	// queryable, a user whose role may not).
	ErrForbidden = errors.New("forbidden")
	// ErrUnauthenticated: the request carries no token, or one the
	// scheduler does not know.
	ErrUnauthenticated = errors.New("unauthenticated")
	// ErrUnavailable: try again soon (state moving during a restart or
	// rescale).
	ErrUnavailable = errors.New("unavailable")
)

// StatusOf returns the HTTP status code for an error of a Service.
func StatusOf(err error) int {
	switch {
	case errors.Is(err, ErrBadRequest):
		return 400
	case errors.Is(err, ErrNotFound):
		return 404
	case errors.Is(err, ErrConflict):
		return 409
	case errors.Is(err, ErrTooLarge):
		return 413
	case errors.Is(err, ErrUnauthenticated):
		return 401
	case errors.Is(err, ErrForbidden):
		return 403
	case errors.Is(err, ErrUnavailable):
		return 503
	}
	return 500
}
