package rest_test

import (
	"bytes"
	"io"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/rest"
)

func TestSubmitParts(t *testing.T) {
	e := newEnv(t, rest.Options{})
	rec := e.submit(t,
		part{"set", "", "count=5"},
		part{"spec", "", spec}, // a plain field works as well as a file
		part{"parallelism", "", " 3 "},
		part{"ops", "whatever.bin", "\x00asm\x01"},
		part{"set", "", "note=a=b"},
		part{"checkpointInterval", "", " 1m30s "},
		part{"fromSavepoint", "", " s3://floe/sp/savepoint-abc123-7 "},
		part{"allowNonRestoredState", "", "true"},
	)
	var out struct{ ID string }
	decode(t, rec, http.StatusCreated, &out)
	if out.ID != "job-1" {
		t.Errorf("id %q", out.ID)
	}
	subs := e.fake.Submissions()
	if len(subs) != 1 {
		t.Fatalf("%d submissions", len(subs))
	}
	s := subs[0]
	if string(s.Spec) != spec || s.Parallelism != 3 || s.CheckpointInterval != 90*time.Second {
		t.Errorf("spec %q, parallelism %d, checkpoint interval %v", s.Spec, s.Parallelism, s.CheckpointInterval)
	}
	if s.FromSavepoint != "s3://floe/sp/savepoint-abc123-7" || !s.AllowNonRestoredState {
		t.Errorf("from savepoint %q, allow non-restored state %v", s.FromSavepoint, s.AllowNonRestoredState)
	}
	if want := map[string]string{"count": "5", "note": "a=b"}; !maps.Equal(s.Params, want) {
		t.Errorf("params %v, want %v", s.Params, want)
	}
	if len(s.Modules) != 1 || !bytes.Equal(s.Modules["ops"], []byte("\x00asm\x01")) {
		t.Errorf("modules %q", s.Modules)
	}
}

func TestSubmitErrors(t *testing.T) {
	spec := part{"spec", "job.yaml", spec}
	ops := part{"ops", "ops.wasm", "wasm"}
	tests := []struct {
		name  string
		parts []part
		want  string // a substring of the error
	}{
		{"no spec", []part{ops}, `no "spec" part`},
		{"two specs", []part{spec, spec, ops}, `more than one "spec" part`},
		{"bad set", []part{spec, ops, {"set", "", "novalue"}}, `want name=value`},
		{"bad parallelism", []part{spec, ops, {"parallelism", "", "two"}}, `parallelism "two"`},
		{"negative parallelism", []part{spec, ops, {"parallelism", "", "-1"}}, `want an integer >= 1`},
		{"two parallelisms", []part{spec, ops, {"parallelism", "", "1"}, {"parallelism", "", "2"}}, `more than one "parallelism"`},
		{"bad checkpoint interval", []part{spec, ops, {"checkpointInterval", "", "10"}}, `checkpointInterval "10": want a duration`},
		{"negative checkpoint interval", []part{spec, ops, {"checkpointInterval", "", "-1s"}}, `checkpointInterval "-1s"`},
		{"two checkpoint intervals", []part{spec, ops, {"checkpointInterval", "", "1s"}, {"checkpointInterval", "", "2s"}},
			`more than one "checkpointInterval"`},
		{"checkpoint interval too short, as the service reports it", []part{spec, ops, {"checkpointInterval", "", "1ms"}},
			"checkpoint interval 1ms is below the minimum 10ms"},
		{"bad allowNonRestoredState", []part{spec, ops, {"allowNonRestoredState", "", "yes"}},
			`allowNonRestoredState "yes": want true or false`},
		{"two savepoints", []part{spec, ops, {"fromSavepoint", "", "file:///a"}, {"fromSavepoint", "", "file:///b"}},
			`more than one "fromSavepoint"`},
		{"savepoint not a URL, as the service reports it", []part{spec, ops, {"fromSavepoint", "", "/tmp/sp"}},
			`fromSavepoint "/tmp/sp": want a file:// or s3:// URL`},
		{"two copies of a module", []part{spec, ops, ops}, `more than one "ops" part`},
		{"module as a field", []part{spec, {"ops", "", "wasm"}}, `unknown form field "ops"`},
		{"bad spec, as the service reports it", []part{{"spec", "", "name: [x"}, ops}, "bad request"},
		{"missing module, as the service reports it", []part{spec}, `module "ops" was not uploaded`},
		{"parallelism too high, as the service reports it", []part{spec, ops, {"parallelism", "", "1000"}}, "exceeds maxParallelism"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, rest.Options{})
			var out struct{ Error string }
			decode(t, e.submit(t, tt.parts...), http.StatusBadRequest, &out)
			if !strings.Contains(out.Error, tt.want) {
				t.Errorf("error %q, want it to contain %q", out.Error, tt.want)
			}
			if n := len(e.fake.Submissions()); n != 0 {
				t.Errorf("%d submissions accepted", n)
			}
		})
	}
}

// TestSubmitFromSavepoint starts a job from a savepoint of another, whose
// operator has a new uid: the savepoint's state for the old uid is refused
// unless allowNonRestoredState drops it.
func TestSubmitFromSavepoint(t *testing.T) {
	e := withCheckpoints(t, rest.Options{})
	sp := poll(t, e, trigger(t, e, "savepoints", "").Trigger)
	renamed := part{"spec", "job.yaml", strings.Replace(spec, "uid: upper", "uid: upper2", 1)}
	ops := part{"ops", "ops.wasm", "wasm"}
	from := part{"fromSavepoint", "", sp.Path}
	var out struct{ Error string }
	decode(t, e.submit(t, renamed, ops, from), http.StatusBadRequest, &out)
	if want := `bad request: savepoint ` + sp.Path + ` has state for "upper", which the job lacks (pass --allow-non-restored-state to drop it)`; out.Error != want {
		t.Errorf("error %q, want %q", out.Error, want)
	}
	decode(t, e.submit(t, renamed, ops, from, part{"allowNonRestoredState", "", "true"}), http.StatusCreated, &out)
	decode(t, e.submit(t, validJob[0], ops, from, part{"allowNonRestoredState", "", "false"}), http.StatusCreated, &out)
	subs := e.fake.Submissions()
	if len(subs) != 3 || subs[1].FromSavepoint != sp.Path || !subs[1].AllowNonRestoredState || subs[2].AllowNonRestoredState {
		t.Errorf("submissions %+v", subs)
	}
}

func TestSubmitNotMultipart(t *testing.T) {
	tests := []struct{ name, contentType, body string }{
		{"json", "application/json", `{"spec": "x"}`},
		{"no content type", "", "x"},
		{"truncated", "multipart/form-data; boundary=xyz", "--xyz\r\nContent-Disposition: form-data; name=\"spec\"\r\n\r\nname: x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, rest.Options{})
			var out struct{ Error string }
			decode(t, e.do("POST", "/v1/jobs", strings.NewReader(tt.body), tt.contentType), http.StatusBadRequest, &out)
			if out.Error == "" {
				t.Error("no error message")
			}
		})
	}
}

// TestSubmitTooLarge covers both ways an upload is found too large: by its
// Content-Length before it is read, and while it is streamed.
func TestSubmitTooLarge(t *testing.T) {
	big := part{"ops", "ops.wasm", strings.Repeat("x", 2048)}
	tests := []struct {
		name          string
		contentLength bool
	}{{"by Content-Length", true}, {"while reading", false}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, rest.Options{MaxUpload: 1024})
			body, ct := form(t, part{"spec", "", spec}, big)
			var r io.Reader = body
			if !tt.contentLength {
				r = struct{ io.Reader }{body} // hides the length
			}
			var out struct{ Error string }
			decode(t, e.do("POST", "/v1/jobs", r, ct), http.StatusRequestEntityTooLarge, &out)
			if want := "upload larger than the 1 KiB limit (--max-upload)"; out.Error != want {
				t.Errorf("error %q, want %q", out.Error, want)
			}
		})
	}
}

// TestSubmitDefaultLimit checks the default limit and its message.
func TestSubmitDefaultLimit(t *testing.T) {
	e := newEnv(t, rest.Options{})
	body, ct := form(t, part{"spec", "", spec}, part{"ops", "ops.wasm", strings.Repeat("x", rest.DefaultMaxUpload)})
	var out struct{ Error string }
	decode(t, e.do("POST", "/v1/jobs", body, ct), http.StatusRequestEntityTooLarge, &out)
	if want := "upload larger than the 64 MiB limit (--max-upload)"; out.Error != want {
		t.Errorf("error %q, want %q", out.Error, want)
	}
}

func TestSubmitTooLargeFromService(t *testing.T) {
	e := newEnv(t, rest.Options{})
	e.fake.FailNext(api.ErrTooLarge)
	var out struct{ Error string }
	decode(t, e.submit(t, validJob...), http.StatusRequestEntityTooLarge, &out)
}

func TestFormatSize(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{64 << 20, "64 MiB"},
		{1 << 30, "1 GiB"},
		{3 << 10, "3 KiB"},
		{1536 << 10, "1536 KiB"},
		{1000, "1000 bytes"},
	}
	for _, tt := range tests {
		if got := rest.FormatSize(tt.n); got != tt.want {
			t.Errorf("FormatSize(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
