package cluster

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// part is one part of a job upload: a form field, or a file when file is
// set.
type part struct {
	name, value string
	file        bool
}

// upload encodes parts as a multipart/form-data body.
func upload(t *testing.T, parts ...part) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, p := range parts {
		var err error
		if p.file {
			var fw io.Writer
			if fw, err = w.CreateFormFile(p.name, p.name+".wasm"); err == nil {
				_, err = io.WriteString(fw, p.value)
			}
		} else {
			err = w.WriteField(p.name, p.value)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), w.FormDataContentType()
}

// request sends a request to the REST API and returns the status code and,
// for an error response, its message. Every error response must be JSON
// with a non-empty "error".
func (c *cluster) request(method, path string, body []byte, contentType string) (int, string) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.server+path, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Expect", "100-continue")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode < 400 {
		return resp.StatusCode, ""
	}
	var e struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(data, &e); err != nil || e.Error == "" {
		c.t.Errorf("%s %s: %s with body %q, want a JSON error message", method, path, resp.Status, data)
	}
	return resp.StatusCode, e.Error
}

// checkHealthy checks that the scheduler still answers.
func (c *cluster) checkHealthy(after string) {
	c.t.Helper()
	if code, msg := c.request(http.MethodGet, "/healthz", nil, ""); code != http.StatusOK {
		c.t.Fatalf("after %s: GET /healthz: %d %s", after, code, msg)
	}
}

func TestRESTRefusesBadRequestsAndKeepsServing(t *testing.T) {
	wasm, err := os.ReadFile(filepath.Join(modulesDir, "wordcount.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	// The limit leaves room for the real module and the spec, not for an
	// upload a megabyte larger.
	maxUpload := (len(wasm)>>20 + 2) << 20
	c := newCluster(t, clusterConfig{taskManagers: 1, slots: 2,
		schedulerArgs: []string{"--max-upload", fmt.Sprint(maxUpload)}})
	specPath := wordcountSpec(t, "wordcount-rest", "")
	spec, err := os.ReadFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	in := newInput(t, 20_000, 3)
	out := filepath.Join(t.TempDir(), "out")
	base := []part{{name: "spec", value: string(spec), file: true},
		{name: "set", value: "input=" + in.path}, {name: "set", value: "output=" + out}}
	module := func(content string) part { return part{name: "wordcount", value: content, file: true} }
	with := func(extra ...part) []part { return append(append([]part(nil), base...), extra...) }

	for _, tc := range []struct {
		name   string
		parts  []part
		status int
		want   []string
	}{
		{"module not uploaded", with(), http.StatusBadRequest,
			[]string{`module "wordcount"`, "not uploaded"}},
		{"module not WebAssembly", with(module("this is not a module")), http.StatusBadRequest,
			[]string{`"wordcount"`, "not a WebAssembly module"}},
		{"module truncated", with(module(string(wasm[:len(wasm)/2]))), http.StatusBadRequest,
			[]string{`"wordcount"`, "invalid WebAssembly"}},
		{"parallelism above maxParallelism", with(module(string(wasm)), part{name: "parallelism", value: "129"}),
			http.StatusBadRequest, []string{"129", "exceeds maxParallelism 128"}},
		{"upload over --max-upload", with(module(strings.Repeat("x", maxUpload+1<<20))), http.StatusRequestEntityTooLarge,
			[]string{fmt.Sprintf("larger than the %d MiB limit", maxUpload>>20), "--max-upload"}},
	} {
		body, ct := upload(t, tc.parts...)
		code, msg := c.request(http.MethodPost, "/v1/jobs", body, ct)
		t.Logf("%s: %d %s", tc.name, code, msg)
		if code != tc.status {
			t.Errorf("%s: POST /v1/jobs: %d %q, want %d", tc.name, code, msg, tc.status)
		}
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: message %q does not say %q", tc.name, msg, w)
			}
		}
		c.checkHealthy(tc.name)
	}

	// The same through floe job submit, which reports the scheduler's
	// message and exits 1.
	big := filepath.Join(modulesDir, "huge.wasm")
	if err := os.WriteFile(big, bytes.Repeat([]byte{0}, 2*maxUpload), 0o644); err != nil {
		t.Fatal(err)
	}
	hugeSpec := writeSpec(t, "wordcount-huge", strings.Replace(string(spec), "wordcount: wordcount.wasm", "wordcount: huge.wasm", 1))
	r := c.floe(time.Minute, "job", "submit", hugeSpec, "--set", "input="+in.path, "--set", "output="+out)
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "--max-upload") {
		t.Errorf("floe job submit over --max-upload: exit %d, stdout %q, stderr %q; want 1 and the limit", r.code, r.stdout, r.stderr)
	}

	const unknown = "0123456789abcdef"
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		code, msg := c.request(method, "/v1/jobs/"+unknown, nil, "")
		if code != http.StatusNotFound || !strings.Contains(msg, `no job "`+unknown+`"`) {
			t.Errorf("%s of an unknown job: %d %q, want 404 naming the id", method, code, msg)
		}
	}
	r = c.floe(time.Minute, "job", "status", unknown)
	if r.code != 1 || !strings.Contains(r.stderr, "no job") {
		t.Errorf("floe job status of an unknown job: exit %d, stderr %q", r.code, r.stderr)
	}

	// None of the refused submissions left a job behind, and a good one
	// still runs.
	if jobs, err := c.client.Jobs(t.Context()); err != nil || len(jobs) != 0 {
		t.Errorf("jobs after refused submissions: %+v (%v), want none", jobs, err)
	}
	id := c.submit(specPath, "--set", "input="+in.path, "--set", "output="+out)
	c.wait(id, time.Minute)
	in.check(t, out, 1)

	code, msg := c.request(http.MethodDelete, "/v1/jobs/"+id, nil, "")
	if code != http.StatusConflict || !strings.Contains(msg, "already ended (FINISHED)") {
		t.Errorf("cancelling a finished job: %d %q, want 409 saying it has ended", code, msg)
	}
	r = c.floe(time.Minute, "job", "cancel", id)
	if r.code != 1 || !strings.Contains(r.stderr, "already ended") {
		t.Errorf("floe job cancel of a finished job: exit %d, stderr %q", r.code, r.stderr)
	}
	if job := c.job(id); job.State != "FINISHED" {
		t.Errorf("job %s after a refused cancel, want FINISHED", job.State)
	}
}
