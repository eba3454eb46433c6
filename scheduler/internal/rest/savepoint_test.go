package rest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client/clienttest"
	"github.com/floe-stream/floe/scheduler/internal/rest"
)

func TestSavepoint(t *testing.T) {
	tests := []struct {
		name, body string
		dir        string // what the service is asked
		path       string
	}{
		{"no body", "", "", "file:///ckpt/savepoints/savepoint-job-1-1"},
		{"white space", " \n", "", "file:///ckpt/savepoints/savepoint-job-1-1"},
		{"empty object", `{}`, "", "file:///ckpt/savepoints/savepoint-job-1-1"},
		{"null", `null`, "", "file:///ckpt/savepoints/savepoint-job-1-1"},
		{"dir", `{"dir": "s3://floe/sp/"}`, "s3://floe/sp/", "s3://floe/sp/savepoint-job-1-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := withCheckpoints(t, rest.Options{})
			var out api.Savepoint
			decode(t, e.do("POST", "/v1/jobs/job-1/savepoints", strings.NewReader(tt.body), "application/json"), http.StatusOK, &out)
			if out.ID != 1 || out.Path != tt.path {
				t.Errorf("got %+v, want id 1 and path %s", out, tt.path)
			}
			want := []clienttest.SavepointCall{{Job: "job-1", Dir: tt.dir}}
			if calls := e.fake.Savepoints(); !slices.Equal(calls, want) {
				t.Errorf("the service was asked %+v, want %+v", calls, want)
			}
			if job, _ := e.fake.Job(t.Context(), "job-1"); job.State != api.JobRunning {
				t.Errorf("after a savepoint the job is %s", job.State)
			}
		})
	}
}

// TestStop checks both ways to stop: with a savepoint, which answers with
// it, and without, which cancels.
func TestStop(t *testing.T) {
	tests := []struct {
		name, body string
		calls      []clienttest.SavepointCall
		state      string // the job's afterwards
	}{
		{"savepoint", `{"savepoint": true}`, []clienttest.SavepointCall{{Job: "job-1", Stop: true}}, api.JobFinished},
		{"savepoint into dir", `{"savepoint": true, "dir": "file:///sp"}`,
			[]clienttest.SavepointCall{{Job: "job-1", Dir: "file:///sp", Stop: true}}, api.JobFinished},
		{"no body", "", nil, api.JobCanceled},
		{"no savepoint", `{"savepoint": false}`, nil, api.JobCanceled},
		{"empty object", `{}`, nil, api.JobCanceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := withCheckpoints(t, rest.Options{})
			rec := e.do("POST", "/v1/jobs/job-1/stop", strings.NewReader(tt.body), "application/json")
			if tt.calls != nil {
				var out api.Savepoint
				decode(t, rec, http.StatusOK, &out)
				if out.ID != 1 || !strings.HasSuffix(out.Path, "/savepoint-job-1-1") {
					t.Errorf("got %+v", out)
				}
			} else {
				var out api.JobStatus
				decode(t, rec, http.StatusOK, &out)
				if out.ID != "job-1" || out.State != api.JobCanceled {
					t.Errorf("got %+v, want the status of the canceled job", out)
				}
			}
			if calls := e.fake.Savepoints(); !slices.Equal(calls, tt.calls) {
				t.Errorf("the service was asked %+v, want %+v", calls, tt.calls)
			}
			if job, _ := e.fake.Job(t.Context(), "job-1"); job.State != tt.state {
				t.Errorf("the job is %s, want %s", job.State, tt.state)
			}
		})
	}
}

func TestSavepointBadBody(t *testing.T) {
	e := withCheckpoints(t, rest.Options{})
	tests := []struct{ name, path, body, want string }{
		{"not JSON", "savepoints", "dir=s3://x", `want a JSON object {"dir": "s3://bucket/savepoints"} as the body: invalid character`},
		{"misspelt field", "savepoints", `{"directory": "s3://x"}`, `unknown field "directory"`},
		{"stop field", "savepoints", `{"savepoint": true}`, `unknown field "savepoint"`},
		{"number", "savepoints", `{"dir": 3}`, "cannot unmarshal number"},
		{"two objects", "savepoints", `{} {}`, "found more after it"},
		{"stop not JSON", "stop", "savepoint", `want a JSON object {"savepoint": true, "dir": "s3://bucket/savepoints"} as the body`},
		{"stop as a string", "stop", `{"savepoint": "yes"}`, "cannot unmarshal string"},
		{"stop dir without savepoint", "stop", `{"dir": "s3://x"}`,
			`"dir" needs "savepoint": true in the body {"savepoint": true, "dir": "s3://bucket/savepoints"}; without a savepoint, stop cancels the job`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out struct{ Error string }
			decode(t, e.do("POST", "/v1/jobs/job-1/"+tt.path, strings.NewReader(tt.body), "application/json"), 400, &out)
			if !strings.Contains(out.Error, tt.want) {
				t.Errorf("error %q, want it to contain %q", out.Error, tt.want)
			}
		})
	}
	if n := len(e.fake.Savepoints()); n != 0 {
		t.Errorf("%d bad requests reached the service", n)
	}
	if job, _ := e.fake.Job(t.Context(), "job-1"); job.State != api.JobRunning {
		t.Errorf("a bad stop left the job %s", job.State)
	}
}

// TestSavepointErrors checks that the service's errors keep their status
// and message, for both endpoints.
func TestSavepointErrors(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(t *testing.T, e *env) string // returns the job
		dir    string
		status int
		want   string
	}{
		{"unknown job", func(*testing.T, *env) string { return "nope" }, "", 404, `not found: no job "nope"`},
		{"not running", func(_ *testing.T, e *env) string { e.fake.SetState("job-1", api.JobRestarting, ""); return "job-1" },
			"", 409, "conflict: job job-1 is RESTARTING; savepoints are taken of running jobs"},
		{"no checkpoints", func(t *testing.T, e *env) string { return e.mustSubmit(t) }, "", 409,
			"conflict: job job-2 takes no checkpoints; submit it with --checkpoint-interval to take savepoints"},
		{"bad dir, as the service reports it", func(*testing.T, *env) string { return "job-1" }, "/tmp/sp", 400,
			`bad request: savepoint dir "/tmp/sp": want a file:// or s3:// URL`},
		{"checkpoint fails", func(_ *testing.T, e *env) string {
			e.fake.FailSavepoints("job-1", fmt.Errorf("%w: the checkpoint of the savepoint failed", api.ErrConflict))
			return "job-1"
		}, "", 409, "conflict: the checkpoint of the savepoint failed"},
		{"service failure", func(_ *testing.T, e *env) string {
			e.fake.FailSavepoints("job-1", errors.New("bucket on fire"))
			return "job-1"
		}, "", 500, "bucket on fire"},
	}
	bodies := map[string]string{"savepoints": `{"dir": %q}`, "stop": `{"savepoint": true, "dir": %q}`}
	for _, tt := range tests {
		for _, path := range []string{"savepoints", "stop"} {
			t.Run(tt.name+" "+path, func(t *testing.T) {
				e := withCheckpoints(t, rest.Options{})
				id := tt.setup(t, e)
				body := fmt.Sprintf(bodies[path], tt.dir)
				var out struct{ Error string }
				decode(t, e.do("POST", "/v1/jobs/"+id+"/"+path, strings.NewReader(body), "application/json"), tt.status, &out)
				if out.Error != tt.want {
					t.Errorf("error %q, want %q", out.Error, tt.want)
				}
			})
		}
	}
}

// TestStopEndedJob checks that a stop without a savepoint fails as a
// cancel does.
func TestStopEndedJob(t *testing.T) {
	e := withCheckpoints(t, rest.Options{})
	e.fake.SetState("job-1", api.JobFinished, "")
	var out struct{ Error string }
	decode(t, e.do("POST", "/v1/jobs/job-1/stop", nil, ""), 409, &out)
	if want := "conflict: job job-1 has already ended (FINISHED)"; out.Error != want {
		t.Errorf("error %q, want %q", out.Error, want)
	}
}

// slowService takes savepoints that never complete: its Savepoint and Stop
// report the deadline of their context and wait for it to end.
type slowService struct {
	*clienttest.Fake
	deadlines chan time.Duration
}

func (s slowService) Savepoint(ctx context.Context, _, _ string) (api.Savepoint, error) {
	return s.wait(ctx)
}

func (s slowService) Stop(ctx context.Context, _, _ string) (api.Savepoint, error) {
	return s.wait(ctx)
}

func (s slowService) wait(ctx context.Context) (api.Savepoint, error) {
	d, _ := ctx.Deadline()
	s.deadlines <- time.Until(d)
	<-ctx.Done()
	return api.Savepoint{}, fmt.Errorf("savepoint: %w", ctx.Err())
}

// TestSavepointTimeout checks that a request waits for a savepoint up to
// Options.SavepointTimeout, and then fails with a message that says so.
func TestSavepointTimeout(t *testing.T) {
	for path, body := range map[string]string{"savepoints": "", "stop": `{"savepoint": true}`} {
		t.Run(path, func(t *testing.T) {
			svc := slowService{clienttest.NewFake(), make(chan time.Duration, 1)}
			e := &env{fake: svc.Fake, h: rest.New(svc, rest.Options{SavepointTimeout: 20 * time.Millisecond})}
			var out struct{ Error string }
			decode(t, e.do("POST", "/v1/jobs/job-1/"+path, strings.NewReader(body), ""), 500, &out)
			if want := "savepoint of job job-1 not complete after 20ms: savepoint: context deadline exceeded"; out.Error != want {
				t.Errorf("error %q, want %q", out.Error, want)
			}
			<-svc.deadlines
		})
	}
}

// TestSavepointDefaultTimeout checks that the service has 10 minutes by
// default, and that a client that goes away ends the wait sooner.
func TestSavepointDefaultTimeout(t *testing.T) {
	svc := slowService{clienttest.NewFake(), make(chan time.Duration, 1)}
	ctx, cancel := context.WithCancel(t.Context())
	req := httptest.NewRequestWithContext(ctx, "POST", "/v1/jobs/job-1/savepoints", nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		rest.New(svc, rest.Options{}).ServeHTTP(httptest.NewRecorder(), req)
	}()
	if d := <-svc.deadlines; d < 9*time.Minute || d > rest.DefaultSavepointTimeout {
		t.Errorf("the service was given %v, want 10m", d)
	}
	cancel()
	<-done
}
