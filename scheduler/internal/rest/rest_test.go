package rest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client/clienttest"
	"github.com/floe-stream/floe/scheduler/internal/rest"
)

// spec is a valid job spec with one module, ops, and two parameters.
const spec = `name: demo
parallelism: 2
params:
  count: "10"
  note: ""
modules:
  ops: ops.wasm
source: {type: generator, uid: gen, count: "${count}"}
operators:
  - {type: map, uid: upper, module: ops, function: upper}
sink: {type: stdout, uid: out}
`

// part is one part of a multipart/form-data body; a file part has a
// filename.
type part struct {
	name, filename, data string
}

// form encodes parts as a multipart/form-data body.
func form(t *testing.T, parts ...part) (*bytes.Buffer, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, p := range parts {
		var pw io.Writer
		var err error
		if p.filename != "" {
			pw, err = w.CreateFormFile(p.name, p.filename)
		} else {
			pw, err = w.CreateFormField(p.name)
		}
		if err == nil {
			_, err = io.WriteString(pw, p.data)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return &buf, w.FormDataContentType()
}

// validJob is the parts of an upload of spec with its module.
var validJob = []part{{"spec", "job.yaml", spec}, {"ops", "ops.wasm", "\x00asm"}}

// env is a handler under test with its fake service and log.
type env struct {
	fake *clienttest.Fake
	h    http.Handler
	log  *bytes.Buffer
}

func newEnv(t *testing.T, opts rest.Options) *env {
	e := &env{fake: clienttest.NewFake(), log: new(bytes.Buffer)}
	opts.Logger = slog.New(slog.NewTextHandler(e.log, nil))
	e.h = rest.New(e.fake, opts)
	return e
}

// do serves one request and returns the recorded response.
func (e *env) do(method, path string, body io.Reader, contentType string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, body)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return rec
}

// submit uploads parts and returns the response.
func (e *env) submit(t *testing.T, parts ...part) *httptest.ResponseRecorder {
	body, ct := form(t, parts...)
	return e.do(http.MethodPost, "/v1/jobs", body, ct)
}

// mustSubmit uploads the valid job and returns its id.
func (e *env) mustSubmit(t *testing.T) string {
	t.Helper()
	rec := e.submit(t, validJob...)
	var out struct{ ID string }
	decode(t, rec, http.StatusCreated, &out)
	return out.ID
}

// decode checks a response's status and content type and decodes its body.
func decode(t *testing.T, rec *httptest.ResponseRecorder, status int, out any) {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status %d, want %d; body %s", rec.Code, status, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
		t.Fatalf("decode %s: %v", rec.Body, err)
	}
}

func TestSuccess(t *testing.T) {
	e := newEnv(t, rest.Options{})
	id := e.mustSubmit(t)
	e.fake.AddTaskManager(api.TaskManagerStatus{ID: "tm-1", Addr: "10.0.0.1:7000", Slots: 4, FreeSlots: 1})
	done := clienttest.Start.Add(time.Second)
	e.fake.AddCheckpoint(id, api.CheckpointStatus{ID: 1, Status: api.CheckpointCompleted, Attempt: 1,
		TriggeredAt: clienttest.Start, CompletedAt: &done, DurationMillis: 1000, FullBytes: 2048, IncrementalBytes: 512,
		Subtasks: []api.CheckpointSubtaskStatus{{Stage: 0, Subtask: 1, SyncMillis: 2, FullBytes: 2048, IncrementalBytes: 512}}})
	e.fake.AddCheckpoint(id, api.CheckpointStatus{ID: 2, Status: api.CheckpointInProgress, Attempt: 1, TriggeredAt: done})
	tests := []struct {
		method, path string
		check        func(t *testing.T, rec *httptest.ResponseRecorder)
	}{
		{"GET", "/healthz", func(t *testing.T, rec *httptest.ResponseRecorder) {
			var out map[string]string
			decode(t, rec, 200, &out)
			if out["status"] != "ok" {
				t.Errorf("got %v", out)
			}
		}},
		{"GET", "/v1/jobs", func(t *testing.T, rec *httptest.ResponseRecorder) {
			var out struct{ Jobs []api.JobStatus }
			decode(t, rec, 200, &out)
			if len(out.Jobs) != 1 || out.Jobs[0].ID != id || out.Jobs[0].Name != "demo" || out.Jobs[0].Vertices != nil {
				t.Errorf("got %+v", out.Jobs)
			}
		}},
		{"GET", "/v1/jobs/" + id, func(t *testing.T, rec *httptest.ResponseRecorder) {
			var out api.JobStatus
			decode(t, rec, 200, &out)
			if out.State != api.JobRunning || len(out.Vertices) != 3 || len(out.Vertices[1].Subtasks) != 2 {
				t.Errorf("got %+v", out)
			}
		}},
		{"GET", "/v1/jobs/" + id + "/checkpoints", func(t *testing.T, rec *httptest.ResponseRecorder) {
			var out struct{ Checkpoints []api.CheckpointStatus }
			decode(t, rec, 200, &out)
			cps := out.Checkpoints
			if len(cps) != 2 || cps[0].ID != 2 || cps[0].CompletedAt != nil || cps[1].Status != api.CheckpointCompleted ||
				!cps[1].CompletedAt.Equal(done) || cps[1].IncrementalBytes != 512 || len(cps[1].Subtasks) != 1 ||
				cps[1].Subtasks[0].Subtask != 1 {
				t.Errorf("got %+v", cps)
			}
		}},
		{"GET", "/v1/taskmanagers", func(t *testing.T, rec *httptest.ResponseRecorder) {
			var out struct{ TaskManagers []api.TaskManagerStatus }
			decode(t, rec, 200, &out)
			if len(out.TaskManagers) != 1 || out.TaskManagers[0].FreeSlots != 1 {
				t.Errorf("got %+v", out)
			}
		}},
		{"DELETE", "/v1/jobs/" + id, func(t *testing.T, rec *httptest.ResponseRecorder) {
			var out api.JobStatus
			decode(t, rec, 200, &out)
			if out.ID != id || out.State != api.JobCanceled {
				t.Errorf("got %+v", out)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			tt.check(t, e.do(tt.method, tt.path, nil, ""))
		})
	}
}

// TestEmptyLists checks that empty lists are [] rather than null.
func TestEmptyLists(t *testing.T) {
	e := newEnv(t, rest.Options{})
	for path, want := range map[string]string{"/v1/jobs": `{"jobs":[]}`, "/v1/taskmanagers": `{"taskManagers":[]}`} {
		if got := strings.TrimSpace(e.do("GET", path, nil, "").Body.String()); got != want {
			t.Errorf("GET %s = %s, want %s", path, got, want)
		}
	}
	id := e.mustSubmit(t)
	for path, want := range map[string]string{"/v1/jobs/" + id + "/checkpoints": `{"checkpoints":[]}`} {
		if got := strings.TrimSpace(e.do("GET", path, nil, "").Body.String()); got != want {
			t.Errorf("GET %s = %s, want %s", path, got, want)
		}
	}
}

func TestErrors(t *testing.T) {
	e := newEnv(t, rest.Options{})
	ended := e.mustSubmit(t)
	e.fake.SetState(ended, api.JobFinished, "")
	tests := []struct {
		name, method, path string
		status             int
		want               string // a substring of the message
		allow              string
	}{
		{"unknown job", "GET", "/v1/jobs/nope", 404, `no job "nope"`, ""},
		{"cancel unknown job", "DELETE", "/v1/jobs/nope", 404, `no job "nope"`, ""},
		{"checkpoints of unknown job", "GET", "/v1/jobs/nope/checkpoints", 404, `no job "nope"`, ""},
		{"unknown job subresource", "GET", "/v1/jobs/" + ended + "/nosuch", 404, "no such endpoint", ""},
		{"cancel ended job", "DELETE", "/v1/jobs/" + ended, 409, "already ended (FINISHED)", ""},
		{"unknown route", "GET", "/v2/jobs", 404, "no such endpoint: GET /v2/jobs", ""},
		{"trailing slash", "GET", "/v1/jobs/", 404, "no such endpoint", ""},
		{"wrong method", "PUT", "/v1/jobs", 405, "method PUT not allowed on /v1/jobs", "POST, GET"},
		{"wrong method with id", "POST", "/v1/jobs/x", 405, "not allowed", "GET, DELETE, PATCH"},
		{"wrong method on health", "DELETE", "/healthz", 405, "not allowed", "GET"},
		{"wrong method on checkpoints", "POST", "/v1/jobs/x/checkpoints", 405, "not allowed", "GET"},
		{"wrong method on savepoints", "GET", "/v1/jobs/x/savepoints", 405, "not allowed", "POST"},
		{"wrong method on stop", "PUT", "/v1/jobs/x/stop", 405, "not allowed", "POST"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := e.do(tt.method, tt.path, nil, "")
			var out struct{ Error string }
			decode(t, rec, tt.status, &out)
			if !strings.Contains(out.Error, tt.want) {
				t.Errorf("error %q, want it to contain %q", out.Error, tt.want)
			}
			if got := rec.Header().Get("Allow"); got != tt.allow {
				t.Errorf("Allow %q, want %q", got, tt.allow)
			}
		})
	}
}

// TestServerError checks that an error without a sentinel is a logged 500.
func TestServerError(t *testing.T) {
	e := newEnv(t, rest.Options{})
	e.fake.FailNext(errors.New("disk on fire"))
	var out struct{ Error string }
	decode(t, e.do("GET", "/v1/jobs", nil, ""), 500, &out)
	if out.Error != "disk on fire" {
		t.Errorf("error %q", out.Error)
	}
	if log := e.log.String(); !strings.Contains(log, "disk on fire") || !strings.Contains(log, "status=500") {
		t.Errorf("log %q does not report the failure", log)
	}
	e.do("GET", "/v1/jobs/nope", nil, "")
	if strings.Contains(e.log.String(), "nope") {
		t.Errorf("a 404 was logged: %s", e.log)
	}
}
