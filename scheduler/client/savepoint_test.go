package client_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
	"github.com/floe-stream/floe/scheduler/client/clienttest"
)

// TestSavepoint takes savepoints and stops a job with one, and starts a
// job from the last: the requests and the savepoints cross the wire
// exactly.
func TestSavepoint(t *testing.T) {
	fake, c := start(t)
	ctx := context.Background()
	id, err := c.SubmitFiles(ctx, writeJob(t, "wasm"), client.SubmitOptions{CheckpointInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	fake.ScriptSavepoints(id, api.SavepointTrigger{ID: 41, Path: "s3://floe/sp/savepoint-job-1-41"},
		api.SavepointTrigger{Status: api.SavepointFailed, ID: 42, Failure: "bucket on fire"})
	take := func(trigger func(context.Context, string, string) (api.SavepointTrigger, error), dir string) (api.SavepointTrigger, error) {
		t.Helper()
		tr, err := trigger(ctx, id, dir)
		if err != nil || tr.Status != api.SavepointInProgress || tr.Trigger == "" {
			t.Fatalf("trigger = %+v, %v", tr, err)
		}
		return c.WaitSavepoint(ctx, id, tr.Trigger, time.Millisecond)
	}
	sp, err := take(c.Savepoint, "s3://floe/sp")
	if err != nil || sp.Status != api.SavepointCompleted || sp.ID != 41 || sp.Path != "s3://floe/sp/savepoint-job-1-41" {
		t.Errorf("Savepoint = %+v, %v", sp, err)
	}
	sp, err = take(c.Savepoint, "")
	if !errors.Is(err, api.ErrConflict) || sp.Status != api.SavepointFailed || !strings.Contains(err.Error(), "bucket on fire") {
		t.Errorf("a failed savepoint: %+v, %v", sp, err)
	}
	sp, err = take(c.Stop, "file:///sp")
	if err != nil || sp.ID != 43 || sp.Path != "file:///sp/savepoint-job-1-43" || !sp.Stop {
		t.Errorf("Stop = %+v, %v", sp, err)
	}
	if _, err := c.SavepointStatus(ctx, id, "nope"); !errors.Is(err, api.ErrNotFound) {
		t.Errorf("an unknown trigger: %v", err)
	}
	want := []clienttest.SavepointCall{{Job: id, Dir: "s3://floe/sp"}, {Job: id}, {Job: id, Dir: "file:///sp", Stop: true}}
	if calls := fake.Savepoints(); !slices.Equal(calls, want) {
		t.Errorf("the scheduler was asked %+v, want %+v", calls, want)
	}
	if job, err := c.Job(ctx, id); err != nil || job.State != api.JobFinished || job.Message != "stopped with savepoint "+sp.Path {
		t.Errorf("after Stop: %+v, %v", job, err)
	}
	next, err := c.SubmitFiles(ctx, writeJob(t, "wasm"), client.SubmitOptions{FromSavepoint: sp.Path, AllowNonRestoredState: true})
	if err != nil {
		t.Fatal(err)
	}
	subs := fake.Submissions()
	if s := subs[len(subs)-1]; next != "job-2" || s.FromSavepoint != sp.Path || !s.AllowNonRestoredState {
		t.Errorf("submission %s: %+v", next, s)
	}
}

// TestSubmitSavepointFields checks that the fields cross the wire exactly,
// and are left out when zero.
func TestSubmitSavepointFields(t *testing.T) {
	fake, c := start(t)
	for _, s := range []api.Submission{
		{},
		{FromSavepoint: "s3://floe/sp/savepoint-abcdef-3"},
		{FromSavepoint: "file:///sp/savepoint-abcdef-3", AllowNonRestoredState: true},
		{AllowNonRestoredState: true},
		{WaitForSlots: true},
		{FromSavepoint: "file:///sp/savepoint-abcdef-3", WaitForSlots: true},
	} {
		s.Spec, s.Modules = []byte(spec), map[string][]byte{"ops": []byte("wasm")}
		if _, err := c.Submit(context.Background(), s); err != nil {
			t.Fatalf("%+v: %v", s, err)
		}
		subs := fake.Submissions()
		if got := subs[len(subs)-1]; got.FromSavepoint != s.FromSavepoint || got.AllowNonRestoredState != s.AllowNonRestoredState ||
			got.WaitForSlots != s.WaitForSlots {
			t.Errorf("%q, %v, %v arrived as %q, %v, %v", s.FromSavepoint, s.AllowNonRestoredState, s.WaitForSlots,
				got.FromSavepoint, got.AllowNonRestoredState, got.WaitForSlots)
		}
	}
}

// TestSavepointErrors checks that the scheduler's refusals wrap the api
// sentinels, for Savepoint and Stop alike.
func TestSavepointErrors(t *testing.T) {
	fake, c := start(t)
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
		id, dir string
		is      error
		message string
	}{
		{"unknown job", "nope", "", api.ErrNotFound, `not found: no job "nope"`},
		{"no checkpoints", plain, "", api.ErrConflict,
			"conflict: job job-1 takes no checkpoints; submit it with --checkpoint-interval to take savepoints"},
		{"bad dir", id, "ftp://x", api.ErrBadRequest, `bad request: savepoint dir "ftp://x": want a file:// or s3:// URL`},
	}
	for _, tt := range tests {
		for name, take := range map[string]func(context.Context, string, string) (api.SavepointTrigger, error){
			"Savepoint": c.Savepoint, "Stop": c.Stop,
		} {
			t.Run(tt.name+" "+name, func(t *testing.T) {
				sp, err := take(ctx, tt.id, tt.dir)
				var e *client.Error
				if !errors.As(err, &e) || !errors.Is(err, tt.is) || e.Message != tt.message || sp != (api.SavepointTrigger{}) {
					t.Errorf("got %+v, %v; want an *Error wrapping %v with %q", sp, err, tt.is, tt.message)
				}
			})
		}
	}
	if job, _ := c.Job(ctx, id); job.State != api.JobRunning {
		t.Errorf("a refused Stop left the job %s", job.State)
	}
	fake.SetState(id, api.JobCanceled, "")
	if _, err := c.Stop(ctx, id, ""); !errors.Is(err, api.ErrConflict) || !strings.Contains(err.Error(), "is CANCELED") {
		t.Errorf("Stop of a canceled job: %v", err)
	}
}
