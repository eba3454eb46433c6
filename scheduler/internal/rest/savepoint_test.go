package rest_test

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client/clienttest"
	"github.com/floe-stream/floe/scheduler/internal/rest"
)

// TestSavepoint checks that a savepoint answers 202 at once with its
// trigger and where to poll it, and that the poll reports it complete.
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
			out := trigger(t, e, "savepoints", tt.body)
			if out.Status != api.SavepointInProgress || out.Stop {
				t.Errorf("trigger %+v, want IN_PROGRESS", out)
			}
			want := []clienttest.SavepointCall{{Job: "job-1", Dir: tt.dir}}
			if calls := e.fake.Savepoints(); !slices.Equal(calls, want) {
				t.Errorf("the service was asked %+v, want %+v", calls, want)
			}
			done := poll(t, e, out.Trigger)
			if done.Status != api.SavepointCompleted || done.ID != 1 || done.Path != tt.path {
				t.Errorf("got %+v, want COMPLETED, id 1 and path %s", done, tt.path)
			}
			if job, _ := e.fake.Job(t.Context(), "job-1"); job.State != api.JobRunning {
				t.Errorf("after a savepoint the job is %s", job.State)
			}
		})
	}
}

// trigger posts body to /v1/jobs/job-1/<path> and checks the 202: its
// trigger, and a Location that names it.
func trigger(t *testing.T, e *env, path, body string) api.SavepointTrigger {
	t.Helper()
	rec := e.do("POST", "/v1/jobs/job-1/"+path, strings.NewReader(body), "application/json")
	var out api.SavepointTrigger
	decode(t, rec, http.StatusAccepted, &out)
	if out.Trigger == "" {
		t.Fatalf("no trigger in %s", rec.Body)
	}
	if loc, want := rec.Header().Get("Location"), "/v1/jobs/job-1/savepoints/"+out.Trigger; loc != want {
		t.Errorf("Location %q, want %q", loc, want)
	}
	return out
}

// poll gets a savepoint trigger of job-1.
func poll(t *testing.T, e *env, trigger string) api.SavepointTrigger {
	t.Helper()
	var out api.SavepointTrigger
	decode(t, e.do("GET", "/v1/jobs/job-1/savepoints/"+trigger, nil, ""), http.StatusOK, &out)
	return out
}

// TestSavepointStatusUnknown checks the 404s of a poll.
func TestSavepointStatusUnknown(t *testing.T) {
	e := withCheckpoints(t, rest.Options{})
	for path, want := range map[string]string{
		"/v1/jobs/job-1/savepoints/nope": `not found: job job-1 has no savepoint trigger "nope"`,
		"/v1/jobs/nope/savepoints/t":     `not found: no job "nope"`,
	} {
		var out struct{ Error string }
		decode(t, e.do("GET", path, nil, ""), http.StatusNotFound, &out)
		if out.Error != want {
			t.Errorf("GET %s: %q, want %q", path, out.Error, want)
		}
	}
}

// TestStop checks both ways to stop: with a savepoint, which answers 202
// with its trigger and stops the job once it is complete, and without,
// which cancels.
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
			if tt.calls != nil {
				out := trigger(t, e, "stop", tt.body)
				if out.Status != api.SavepointInProgress || !out.Stop {
					t.Errorf("trigger %+v", out)
				}
				if job, _ := e.fake.Job(t.Context(), "job-1"); job.State != api.JobRunning {
					t.Errorf("the job is %s before its savepoint completed", job.State)
				}
				if done := poll(t, e, out.Trigger); done.ID != 1 || !strings.HasSuffix(done.Path, "/savepoint-job-1-1") {
					t.Errorf("got %+v", done)
				}
			} else {
				var out api.JobStatus
				decode(t, e.do("POST", "/v1/jobs/job-1/stop", strings.NewReader(tt.body), "application/json"), http.StatusOK, &out)
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
		{"cannot checkpoint now", func(_ *testing.T, e *env) string {
			e.fake.FailSavepoints("job-1", fmt.Errorf("%w: job job-1 cannot take a checkpoint now", api.ErrConflict))
			return "job-1"
		}, "", 409, "conflict: job job-1 cannot take a checkpoint now"},
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
