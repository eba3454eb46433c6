package minicluster

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
)

// lockedBuffer is a buffer that loggers on several goroutines may write.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestSecretParamIsNeverShown runs a job whose source path is built from a
// secret parameter and fails, so that the task manager's error quotes the
// path. The secret's value reaches the task manager (the path it opens holds
// it) but is in no log line, no status and no REST answer, which is what
// `floe job status` prints from; the ordinary parameter beside it still shows.
func TestSecretParamIsNeverShown(t *testing.T) {
	const marker = "s3cr3t-MARKER-5d0e"
	dir := t.TempDir()
	var logs lockedBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, err := Start(context.Background(), Config{DataDir: dir, RESTAddr: "127.0.0.1:0", Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}()
	spec := strings.Join([]string{
		"name: secret",
		"params: {apiKey: {secret: true}, dir: ~}",
		"source: {type: file, uid: in, path: '${dir}/${apiKey}/missing.txt'}",
		"sink: {type: stdout, uid: out}",
	}, "\n")
	inputDir := filepath.Join(dir, "plain-dir")
	sub := api.Submission{Spec: []byte(spec), Params: map[string]string{"apiKey": marker, "dir": inputDir}}
	id, err := c.Scheduler.Submit(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	st := awaitEnd(t, c, id)
	if st.State != api.JobFailed {
		t.Fatalf("job %s, want FAILED: %s", st.State, st.Message)
	}
	if want := inputDir + "/[secret]/missing.txt"; !strings.Contains(st.Message, want) {
		t.Errorf("message %q\nlacks %q: the ordinary parameter should show, the secret as [secret]", st.Message, want)
	}
	for _, path := range []string{"/v1/jobs/" + id, "/v1/jobs"} {
		body := get(t, "http://"+c.Scheduler.RESTAddr()+path)
		if strings.Contains(body, marker) {
			t.Errorf("GET %s shows the secret:\n%s", path, body)
		}
		if path != "/v1/jobs" && !strings.Contains(body, inputDir) {
			t.Errorf("GET %s lacks the ordinary parameter %q:\n%s", path, inputDir, body)
		}
	}
	if strings.Contains(logs.String(), marker) {
		t.Errorf("the logs show the secret:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "task failed") {
		t.Errorf("the logs lack the task's failure:\n%s", logs.String())
	}
}

// TestSecretParamIsNotInSubmitErrors submits specs that the parser accepts
// but the scheduler refuses, with a message quoting a value built from a
// secret parameter: the message hides it and the refusal stays a bad request.
func TestSecretParamIsNotInSubmitErrors(t *testing.T) {
	const marker = "S3CR3T_MARKER"
	c, err := Start(context.Background(), Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}()
	spec := strings.Join([]string{
		"name: secret",
		"params: {apiKey: {secret: true}}",
		"source: {type: file, uid: in, path: /in.txt}",
		"sink: {type: stdout, uid: out}",
		"checkpoints: {interval: 1s, storage: 's3://${apiKey}/prefix'}",
	}, "\n")
	_, err = c.Scheduler.Submit(context.Background(), api.Submission{Spec: []byte(spec), Params: map[string]string{"apiKey": marker}})
	switch {
	case err == nil:
		t.Fatal("the job was accepted, want a refused bucket name")
	case strings.Contains(err.Error(), marker):
		t.Errorf("the error quotes the secret: %v", err)
	case !strings.Contains(err.Error(), `"s3://[secret]/prefix"`):
		t.Errorf("the error %q lacks the redacted URL", err)
	case api.StatusOf(err) != http.StatusBadRequest:
		t.Errorf("status %d for %v, want 400", api.StatusOf(err), err)
	}
}

// TestSecretParamIsNotInCheckpoints runs a job whose checkpoint store URL is
// built from a secret parameter: the checkpoints the REST API lists show the
// URL with the secret hidden, and the logs never hold it.
func TestSecretParamIsNotInCheckpoints(t *testing.T) {
	const marker = "s3cr3t-MARKER-c4e1"
	dir := t.TempDir()
	var logs lockedBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster"), RESTAddr: "127.0.0.1:0", Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}()
	spec := strings.Join([]string{
		"name: secret",
		"params: {apiKey: {secret: true}, dir: ~}",
		"source: {type: generator, uid: in, rate: 1000}",
		"sink: {type: file, uid: out, path: '${dir}/out'}",
		"checkpoints: {interval: 100ms, storage: 'file://${dir}/${apiKey}'}",
	}, "\n")
	sub := api.Submission{Spec: []byte(spec), Params: map[string]string{"apiKey": marker, "dir": dir}}
	id, err := c.Scheduler.Submit(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	var body string
	waitFor(t, func() bool {
		body = get(t, "http://"+c.Scheduler.RESTAddr()+"/v1/jobs/"+id+"/checkpoints")
		return strings.Contains(body, api.CheckpointCompleted)
	})
	if err := c.Scheduler.Cancel(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	awaitEnd(t, c, id)
	if strings.Contains(body, marker) {
		t.Errorf("the checkpoints show the secret:\n%s", body)
	}
	if want := dir + "/[secret]"; !strings.Contains(body, want) {
		t.Errorf("the checkpoints lack %q, the store with the secret hidden:\n%s", want, body)
	}
	if strings.Contains(logs.String(), marker) {
		t.Errorf("the logs show the secret:\n%s", logs.String())
	}
}

// get returns the body of a GET of url, which must answer 200.
func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %s", url, resp.Status, body)
	}
	return string(body)
}
