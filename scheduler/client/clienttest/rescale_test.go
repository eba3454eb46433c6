package clienttest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
)

// spec is a job spec with three stages at parallelism 2, and checkpoints.
const spec = `name: demo
parallelism: 2
checkpoints: {interval: 10s}
source: {type: generator, uid: gen}
operators:
  - {type: map, uid: upper, module: ops, function: upper}
sink: {type: stdout, uid: out}
modules:
  ops: ops.wasm
`

// submitted returns a Fake with one running job, job-1, of spec.
func submitted(t *testing.T) *Fake {
	t.Helper()
	f := NewFake()
	if _, err := f.Submit(t.Context(), api.Submission{Spec: []byte(spec), Modules: map[string][]byte{"ops": nil}}); err != nil {
		t.Fatal(err)
	}
	return f
}

// history returns the states and messages of a job's events since the
// first n.
func history(job api.JobStatus, n int) []string {
	var out []string
	for _, e := range job.History[n:] {
		out = append(out, e.State+" "+e.Message)
	}
	return out
}

// TestRescaleSteps checks the history of a rescale, step by step, after a
// scripted step, and the job's new shape.
func TestRescaleSteps(t *testing.T) {
	f := submitted(t)
	done := Start
	f.AddCheckpoint("job-1", api.CheckpointStatus{ID: 4, Status: api.CheckpointCompleted, CompletedAt: &done})
	f.Script("job-1", api.Event{State: api.JobRunning, Message: "scripted"})
	if err := f.Rescale(t.Context(), "job-1", api.RescaleRequest{Parallelism: 4, Operators: map[string]int{"gen": 1}}); err != nil {
		t.Fatal(err)
	}
	var job api.JobStatus
	for range 6 {
		job, _ = f.Job(t.Context(), "job-1")
	}
	want := []string{
		"RUNNING rescaling: taking checkpoint 5",
		"RUNNING scripted",
		"WAITING rescaling from 2/2/2 to 1/4/4 from checkpoint 5",
		"DEPLOYING attempt 2 on 4 slots, restoring checkpoint 5",
		"RUNNING attempt 2 running",
		"RUNNING rescaled to 1/4/4: 0s downtime (0s since the request)",
	}
	if got := history(job, 1); !slices.Equal(got, want) {
		t.Errorf("history\n%q\nwant\n%q", got, want)
	}
	if job.Parallelism != 4 || job.Attempt != 2 || job.Vertices[0].Parallelism != 1 || len(job.Vertices[2].Subtasks) != 4 {
		t.Errorf("after the rescale: %+v", job)
	}
	// A second rescale starts from the first's operator parallelism.
	if err := f.Rescale(t.Context(), "job-1", api.RescaleRequest{Parallelism: 3}); err != nil {
		t.Fatal(err)
	}
	job, _ = f.Job(t.Context(), "job-1")
	if got := job.History[len(job.History)-1].Message; got != "rescaling from 1/4/4 to 1/3/3 from checkpoint 5" {
		t.Errorf("second rescale: %q", got)
	}
}

// TestRescaleEnded checks that a second rescale is refused while one is
// under way, and that a job that ends during a rescale drops the rest of it.
func TestRescaleEnded(t *testing.T) {
	f := submitted(t)
	if err := f.Rescale(t.Context(), "job-1", api.RescaleRequest{Parallelism: 4}); err != nil {
		t.Fatal(err)
	}
	err := f.Rescale(t.Context(), "job-1", api.RescaleRequest{Parallelism: 3})
	if !errors.Is(err, api.ErrConflict) || err.Error() != "conflict: job job-1 is already being rescaled" {
		t.Errorf("second rescale: %v", err)
	}
	f.SetState("job-1", api.JobFailed, "boom")
	job, _ := f.Job(t.Context(), "job-1")
	if job.State != api.JobFailed || job.Parallelism != 2 {
		t.Errorf("after the failure: %s, parallelism %d", job.State, job.Parallelism)
	}
}

func TestRescaleCalls(t *testing.T) {
	f := submitted(t)
	boom := errors.New("boom")
	f.FailRescales("job-1", boom, nil)
	ops := map[string]int{"upper": 3}
	if err := f.Rescale(t.Context(), "job-1", api.RescaleRequest{Operators: ops}); err != boom {
		t.Errorf("first call: %v, want boom", err)
	}
	ops["upper"] = 5 // the Fake keeps its own copy
	if err := f.Rescale(t.Context(), "job-1", api.RescaleRequest{Operators: map[string]int{"upper": 3}}); err != nil {
		t.Errorf("second call: %v", err)
	}
	if err := f.Rescale(t.Context(), "nope", api.RescaleRequest{Parallelism: 1}); !errors.Is(err, api.ErrNotFound) {
		t.Errorf("unknown job: %v", err)
	}
	calls := f.Rescales()
	if len(calls) != 2 || calls[0].Request.Operators["upper"] != 3 || calls[1].Job != "job-1" {
		t.Errorf("calls %+v", calls)
	}
	calls[0].Request.Operators["upper"] = 7
	if got := f.Rescales()[0].Request.Operators["upper"]; got != 3 {
		t.Errorf("Rescales shares its maps: %d", got)
	}
}

// TestRescaleRefused checks what the Fake refuses as the scheduler does.
func TestRescaleRefused(t *testing.T) {
	f := submitted(t)
	plain := strings.Replace(spec, "checkpoints: {interval: 10s}\n", "", 1)
	if _, err := f.Submit(t.Context(), api.Submission{Spec: []byte(plain), Modules: map[string][]byte{"ops": nil}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Submit(t.Context(), api.Submission{Spec: []byte(plain), CheckpointInterval: time.Second,
		Modules: map[string][]byte{"ops": nil}}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id   string
		r    api.RescaleRequest
		is   error
		want string
	}{
		{"job-2", api.RescaleRequest{Parallelism: 4}, api.ErrConflict,
			"conflict: job job-2 takes no checkpoints; rescaling moves state through one (submit it with --checkpoint-interval)"},
		{"job-3", api.RescaleRequest{}, api.ErrBadRequest, "bad request: give a parallelism or operators' parallelism"},
		{"job-3", api.RescaleRequest{Parallelism: 129}, api.ErrBadRequest, "bad request: parallelism override: 129 exceeds maxParallelism 128"},
		{"job-1", api.RescaleRequest{Operators: map[string]int{"out": 0}}, api.ErrBadRequest,
			"bad request: parallelism of out: 0 is not within 1..maxParallelism 128"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %+v", tt.id, tt.r), func(t *testing.T) {
			err := f.Rescale(t.Context(), tt.id, tt.r)
			if !errors.Is(err, tt.is) || err.Error() != tt.want {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
	f.SetState("job-1", api.JobRestarting, "")
	if err := f.Rescale(t.Context(), "job-1", api.RescaleRequest{Parallelism: 4}); !errors.Is(err, api.ErrConflict) {
		t.Errorf("a restarting job: %v", err)
	}
}
