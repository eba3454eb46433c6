package client_test

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
)

// TestRescale checks that a request crosses the wire exactly, parallelism
// and operators, and that the job's history then tells the rescale.
func TestRescale(t *testing.T) {
	fake, c := start(t)
	ctx := context.Background()
	id, err := c.SubmitFiles(ctx, writeJob(t, "wasm"), client.SubmitOptions{CheckpointInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	want := api.RescaleRequest{Parallelism: 3, Operators: map[string]int{"upper": 6}}
	if err := c.Rescale(ctx, id, want); err != nil {
		t.Fatal(err)
	}
	calls := fake.Rescales()
	if len(calls) != 1 || calls[0].Job != id || calls[0].Request.Parallelism != 3 || !maps.Equal(calls[0].Request.Operators, want.Operators) {
		t.Errorf("the scheduler was asked %+v, want %+v", calls, want)
	}
	var job api.JobStatus
	for range 4 {
		if job, err = c.Job(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	last := job.History[len(job.History)-1]
	if last.State != api.JobRunning || last.Message != "rescaled to 3/6/3: 0s downtime (0s since the request)" ||
		job.Vertices[1].Parallelism != 6 || job.Attempt != 2 {
		t.Errorf("after the rescale: %+v", job)
	}
}

// TestRescaleErrors checks that the scheduler's refusals wrap the api
// sentinels, and that an operator-only request leaves out parallelism.
func TestRescaleErrors(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	plain, err := c.SubmitFiles(ctx, writeJob(t, "wasm"), client.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	id, err := c.SubmitFiles(ctx, writeJob(t, "wasm"), client.SubmitOptions{CheckpointInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		id      string
		r       api.RescaleRequest
		is      error
		message string
	}{
		{"unknown job", "nope", api.RescaleRequest{Parallelism: 2}, api.ErrNotFound, `not found: no job "nope"`},
		{"no checkpoints", plain, api.RescaleRequest{Parallelism: 2}, api.ErrConflict, "conflict: job job-1 takes no checkpoints"},
		{"empty", id, api.RescaleRequest{}, api.ErrBadRequest, `want "parallelism" or "operators"`},
		{"unknown uid", id, api.RescaleRequest{Operators: map[string]int{"lower": 2}}, api.ErrBadRequest,
			`bad request: no source, operator or sink with uid "lower"`},
		{"too high", id, api.RescaleRequest{Parallelism: 129}, api.ErrBadRequest, "bad request: parallelism override: 129 exceeds maxParallelism 128"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := c.Rescale(ctx, tt.id, tt.r)
			var e *client.Error
			if !errors.As(err, &e) || !errors.Is(err, tt.is) || !strings.Contains(e.Message, tt.message) {
				t.Errorf("got %v, want an *Error wrapping %v with %q", err, tt.is, tt.message)
			}
		})
	}
}
