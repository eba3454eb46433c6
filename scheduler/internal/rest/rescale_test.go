package rest_test

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/rest"
)

// checkpointed is the parts of an upload of spec, with checkpoints on, as a
// job must have them to be rescaled.
var checkpointed = append([]part{{"checkpointInterval", "", "10s"}}, validJob...)

// withCheckpoints returns an env with one running job, job-1, that takes
// checkpoints.
func withCheckpoints(t *testing.T, opts rest.Options) *env {
	t.Helper()
	e := newEnv(t, opts)
	var out struct{ ID string }
	decode(t, e.submit(t, checkpointed...), http.StatusCreated, &out)
	return e
}

func TestRescale(t *testing.T) {
	tests := []struct {
		name, body string
		want       api.RescaleRequest // what the service is asked
		from       string             // the parallelisms of the WAITING step
	}{
		{"parallelism", `{"parallelism": 4}`, api.RescaleRequest{Parallelism: 4}, "2/2/2 to 4/4/4"},
		{"operators", `{"operators": {"upper": 8, "out": 1}}`,
			api.RescaleRequest{Operators: map[string]int{"upper": 8, "out": 1}}, "2/2/2 to 2/8/1"},
		{"both", `{"parallelism": 3, "operators": {"upper": 6}}`,
			api.RescaleRequest{Parallelism: 3, Operators: map[string]int{"upper": 6}}, "2/2/2 to 3/6/3"},
		{"zero parallelism keeps the job's", `{"parallelism": 0, "operators": {"gen": 1}}`,
			api.RescaleRequest{Operators: map[string]int{"gen": 1}}, "2/2/2 to 1/2/2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := withCheckpoints(t, rest.Options{})
			var out api.JobStatus
			decode(t, e.do("PATCH", "/v1/jobs/job-1", strings.NewReader(tt.body), "application/json"), http.StatusAccepted, &out)
			// NB: the handler reads the job after the request, which takes
			// the fake's first step of the rescale.
			last := out.History[len(out.History)-1]
			if out.ID != "job-1" || out.State != api.JobWaiting || !strings.Contains(last.Message, tt.from) ||
				out.History[len(out.History)-2].Message != "rescaling: taking checkpoint 1" {
				t.Errorf("got %+v", out)
			}
			calls := e.fake.Rescales()
			if len(calls) != 1 || calls[0].Job != "job-1" || calls[0].Request.Parallelism != tt.want.Parallelism ||
				!maps.Equal(calls[0].Request.Operators, tt.want.Operators) {
				t.Errorf("the service was asked %+v, want %+v", calls, tt.want)
			}
		})
	}
}

func TestRescaleBadBody(t *testing.T) {
	e := withCheckpoints(t, rest.Options{})
	tests := []struct{ name, body, want string }{
		{"empty", "", `want a JSON object {"parallelism": N, "operators": {"uid": N}} as the body: EOF`},
		{"not JSON", "parallelism=4", "invalid character"},
		{"empty object", `{}`, `want "parallelism" or "operators" (or both)`},
		{"null", `null`, `want "parallelism" or "operators" (or both)`},
		{"zero and no operators", `{"parallelism": 0, "operators": {}}`, `want "parallelism" or "operators"`},
		{"misspelt field", `{"paralelism": 4}`, `unknown field "paralelism"`},
		{"string", `{"parallelism": "4"}`, "cannot unmarshal string"},
		{"fraction", `{"parallelism": 2.5}`, "cannot unmarshal number 2.5"},
		{"operators as a list", `{"operators": [4]}`, "cannot unmarshal array"},
		{"negative", `{"parallelism": -1}`, "parallelism -1: want an integer >= 1"},
		{"zero operator", `{"operators": {"upper": 0}}`, `operators["upper"] 0: want an integer >= 1`},
		{"two objects", `{"parallelism": 4} {"parallelism": 5}`, "found more after it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out struct{ Error string }
			decode(t, e.do("PATCH", "/v1/jobs/job-1", strings.NewReader(tt.body), "application/json"), 400, &out)
			if !strings.Contains(out.Error, tt.want) {
				t.Errorf("error %q, want it to contain %q", out.Error, tt.want)
			}
		})
	}
	if n := len(e.fake.Rescales()); n != 0 {
		t.Errorf("%d bad requests reached the service", n)
	}
}

// TestRescaleErrors checks that the service's errors keep their status and
// message.
func TestRescaleErrors(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(t *testing.T, e *env) string // returns the job to rescale
		body   string
		status int
		want   string
	}{
		{"unknown job", func(*testing.T, *env) string { return "nope" }, `{"parallelism": 4}`, 404, `not found: no job "nope"`},
		{"not running", func(_ *testing.T, e *env) string { e.fake.SetState("job-1", api.JobRestarting, ""); return "job-1" },
			`{"parallelism": 4}`, 409, "conflict: job job-1 is RESTARTING; only a running job can be rescaled"},
		{"ended", func(_ *testing.T, e *env) string { e.fake.SetState("job-1", api.JobCanceled, ""); return "job-1" },
			`{"parallelism": 4}`, 409, "conflict: job job-1 is CANCELED"},
		{"no checkpoints", func(t *testing.T, e *env) string { return e.mustSubmit(t) },
			`{"parallelism": 4}`, 409, "conflict: job job-2 takes no checkpoints"},
		{"already rescaling", func(_ *testing.T, e *env) string {
			e.do("PATCH", "/v1/jobs/job-1", strings.NewReader(`{"parallelism": 3}`), "")
			e.fake.SetState("job-1", api.JobRunning, "")
			return "job-1"
		}, `{"parallelism": 4}`, 409, "conflict: job job-1 is already being rescaled"},
		{"above maxParallelism", func(*testing.T, *env) string { return "job-1" }, `{"parallelism": 1000}`, 400,
			"bad request: parallelism override: 1000 exceeds maxParallelism 128"},
		{"unknown uid", func(*testing.T, *env) string { return "job-1" }, `{"operators": {"lower": 2}}`, 400,
			`bad request: no source, operator or sink with uid "lower"`},
		{"checkpoint cannot start", func(_ *testing.T, e *env) string {
			e.fake.FailRescales("job-1", fmt.Errorf("%w: job job-1 cannot take a checkpoint now", api.ErrConflict))
			return "job-1"
		}, `{"parallelism": 4}`, 409, "conflict: job job-1 cannot take a checkpoint now"},
		{"service failure", func(_ *testing.T, e *env) string {
			e.fake.FailRescales("job-1", errors.New("disk on fire"))
			return "job-1"
		}, `{"parallelism": 4}`, 500, "disk on fire"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := withCheckpoints(t, rest.Options{})
			id := tt.setup(t, e)
			var out struct{ Error string }
			decode(t, e.do("PATCH", "/v1/jobs/"+id, strings.NewReader(tt.body), "application/json"), tt.status, &out)
			if !strings.HasPrefix(out.Error, tt.want) {
				t.Errorf("error %q, want %q...", out.Error, tt.want)
			}
		})
	}
}

func TestRescaleTooLarge(t *testing.T) {
	e := withCheckpoints(t, rest.Options{MaxUpload: 1024})
	body := `{"operators": {"` + strings.Repeat("x", 2048) + `": 2}}`
	var out struct{ Error string }
	decode(t, e.do("PATCH", "/v1/jobs/job-1", strings.NewReader(body), "application/json"), 413, &out)
	if want := "body larger than the 1 KiB limit (--max-upload)"; out.Error != want {
		t.Errorf("error %q, want %q", out.Error, want)
	}
}
