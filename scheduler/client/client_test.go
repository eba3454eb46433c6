package client_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
	"github.com/floe-stream/floe/scheduler/client/clienttest"
	"github.com/floe-stream/floe/scheduler/internal/rest"
)

// spec is a valid job spec whose module ops lives in lib/ops.wasm.
const spec = `name: demo
parallelism: 2
params:
  count: "10"
modules:
  ops: lib/ops.wasm
source: {type: generator, uid: gen, count: "${count}"}
operators:
  - {type: map, uid: upper, module: ops, function: upper}
sink: {type: stdout, uid: out}
`

// start serves a new Fake and returns it with a client of it.
func start(t *testing.T) (*clienttest.Fake, *client.Client) {
	fake := clienttest.NewFake()
	srv := clienttest.NewServer(t, fake)
	return fake, client.New(srv.URL+"/", nil)
}

// writeJob writes spec and its module into a new directory and returns the
// spec's path.
func writeJob(t *testing.T, module string) string {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	if module != "" {
		if err := os.WriteFile(filepath.Join(dir, "lib", "ops.wasm"), []byte(module), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "job.yaml")
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRoundTrip(t *testing.T) {
	fake, c := start(t)
	ctx := context.Background()
	fake.AddTaskManager(api.TaskManagerStatus{ID: "tm-1", Addr: "10.0.0.1:7000", Slots: 4, FreeSlots: 2})
	id, err := c.SubmitFiles(ctx, writeJob(t, "\x00asm"),
		client.SubmitOptions{Set: map[string]string{"count": "7"}, Parallelism: 3, CheckpointInterval: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	s := fake.Submissions()[0]
	if string(s.Spec) != spec || s.Parallelism != 3 || !maps.Equal(s.Params, map[string]string{"count": "7"}) ||
		s.CheckpointInterval != 1500*time.Millisecond ||
		s.Digests["ops"] != sha256Hex("\x00asm") || len(s.Modules) != 0 {
		t.Errorf("submission %+v, want module ops by digest %s", s, sha256Hex("\x00asm"))
	}
	jobs, err := c.Jobs(ctx)
	if err != nil || len(jobs) != 1 || jobs[0].ID != id {
		t.Errorf("Jobs = %+v, %v", jobs, err)
	}
	job, err := c.Job(ctx, id)
	if err != nil || job.Name != "demo" || job.Parallelism != 3 || len(job.Vertices) != 3 || !job.SubmittedAt.Equal(clienttest.Start.Add(time.Second)) {
		t.Errorf("Job = %+v, %v", job, err)
	}
	tms, err := c.TaskManagers(ctx)
	if err != nil || len(tms) != 1 || tms[0].FreeSlots != 2 {
		t.Errorf("TaskManagers = %+v, %v", tms, err)
	}
	if err := c.Cancel(ctx, id); err != nil {
		t.Fatal(err)
	}
	if job, _ := c.Job(ctx, id); job.State != api.JobCanceled {
		t.Errorf("state after cancel %s", job.State)
	}
}

// TestCheckpoints checks that a job's checkpoints come back as the service
// has them, field for field, and that a job without any has an empty list.
func TestCheckpoints(t *testing.T) {
	fake, c := start(t)
	ctx := context.Background()
	id, err := c.SubmitFiles(ctx, writeJob(t, "wasm"), client.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cps, err := c.Checkpoints(ctx, id)
	if err != nil || cps == nil || len(cps) != 0 {
		t.Errorf("Checkpoints before any = %#v, %v; want an empty list", cps, err)
	}
	done := clienttest.Start.Add(1500 * time.Millisecond)
	want := []api.CheckpointStatus{
		{ID: 2, Status: api.CheckpointInProgress, Attempt: 1, TriggeredAt: clienttest.Start.Add(2 * time.Second)},
		{ID: 1, Status: api.CheckpointCompleted, Attempt: 1, TriggeredAt: clienttest.Start, CompletedAt: &done,
			DurationMillis: 1500, FullBytes: 4096, IncrementalBytes: 1024, Path: "file:///ckpt/job-1/chk-1",
			Subtasks: []api.CheckpointSubtaskStatus{{Stage: 1, Subtask: 0, AlignmentMillis: 3, SyncMillis: 4, IncrementalBytes: 1024, FullBytes: 4096}}},
	}
	fake.AddCheckpoint(id, want[1])
	fake.AddCheckpoint(id, want[0])
	cps, err = c.Checkpoints(ctx, id)
	if err != nil || !reflect.DeepEqual(cps, want) {
		t.Errorf("Checkpoints = %+v, %v; want %+v", cps, err, want)
	}
}

// TestSubmitCheckpointInterval checks that the interval crosses the wire
// exactly, and is left out when it is zero.
func TestSubmitCheckpointInterval(t *testing.T) {
	fake, c := start(t)
	for _, d := range []time.Duration{0, 90 * time.Minute, 10*time.Millisecond + 500*time.Microsecond} {
		if _, err := c.Submit(context.Background(), api.Submission{Spec: []byte(spec), CheckpointInterval: d,
			Modules: map[string][]byte{"ops": []byte("wasm")}}); err != nil {
			t.Fatalf("interval %v: %v", d, err)
		}
		subs := fake.Submissions()
		if got := subs[len(subs)-1].CheckpointInterval; got != d {
			t.Errorf("interval %v arrived as %v", d, got)
		}
	}
}

// TestErrors checks that server errors wrap the api sentinels and carry the
// server's message.
func TestErrors(t *testing.T) {
	fake, c := start(t)
	ctx := context.Background()
	id, err := c.SubmitFiles(ctx, writeJob(t, "wasm"), client.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fake.SetState(id, api.JobFinished, "")
	_, jobErr := c.Job(ctx, "nope")
	_, ckptErr := c.Checkpoints(ctx, "nope")
	_, submitErr := c.Submit(ctx, api.Submission{Spec: []byte("name: [")})
	_, listErr := func() ([]api.JobStatus, error) { fake.FailNext(errors.New("boom")); return c.Jobs(ctx) }()
	tests := []struct {
		name    string
		err     error
		is      error
		status  int
		message string
	}{
		{"unknown job", jobErr, api.ErrNotFound, 404, `not found: no job "nope"`},
		{"unknown job to cancel", c.Cancel(ctx, "nope"), api.ErrNotFound, 404, `not found: no job "nope"`},
		{"checkpoints of an unknown job", ckptErr, api.ErrNotFound, 404, `not found: no job "nope"`},
		{"ended job", c.Cancel(ctx, id), api.ErrConflict, 409, "conflict: job job-1 has already ended (FINISHED)"},
		{"bad spec", submitErr, api.ErrBadRequest, 400, "bad request: "},
		{"server failure", listErr, nil, 500, "boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e *client.Error
			if !errors.As(tt.err, &e) {
				t.Fatalf("error %v (%T) is not a *client.Error", tt.err, tt.err)
			}
			if tt.is != nil && !errors.Is(tt.err, tt.is) {
				t.Errorf("error %v does not wrap %v", tt.err, tt.is)
			}
			if e.StatusCode != tt.status || !strings.HasPrefix(e.Message, tt.message) {
				t.Errorf("got %d %q, want %d %q...", e.StatusCode, e.Message, tt.status, tt.message)
			}
		})
	}
}

// TestTooLarge uploads a module far over the limit: the scheduler refuses
// it by its length, before the body is sent.
func TestTooLarge(t *testing.T) {
	srv := httptest.NewServer(rest.New(clienttest.NewFake(), rest.Options{MaxUpload: 1 << 10}))
	defer srv.Close()
	c := client.New(srv.URL, nil)
	_, err := c.SubmitFiles(context.Background(), writeJob(t, strings.Repeat("x", 16<<20)), client.SubmitOptions{})
	if !errors.Is(err, api.ErrTooLarge) || err.Error() != `module "ops": pushing it: upload larger than the 1 KiB limit (--max-upload)` {
		t.Errorf("got %v", err)
	}
}

func TestSubmitFilesLocalErrors(t *testing.T) {
	tests := []struct {
		name string
		path func(t *testing.T) string
		opts client.SubmitOptions
		want string
	}{
		{"missing module", func(t *testing.T) string { return writeJob(t, "") }, client.SubmitOptions{}, `module "ops": open `},
		{"missing spec", func(t *testing.T) string { return filepath.Join(t.TempDir(), "nope.yaml") }, client.SubmitOptions{}, "read job spec"},
		{"unknown parameter", func(t *testing.T) string { return writeJob(t, "wasm") },
			client.SubmitOptions{Set: map[string]string{"x": "1"}}, "unknown parameter"},
		{"checkpoint interval too short", func(t *testing.T) string { return writeJob(t, "wasm") },
			client.SubmitOptions{CheckpointInterval: time.Millisecond}, "checkpoint interval 1ms is below the minimum 10ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake, c := start(t)
			_, err := c.SubmitFiles(context.Background(), tt.path(t), tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to contain %q", err, tt.want)
			}
			if n := len(fake.Submissions()); n != 0 {
				t.Errorf("%d submissions reached the server", n)
			}
		})
	}
}

func TestReservedModuleName(t *testing.T) {
	_, c := start(t)
	for _, name := range []string{"spec", "set", "parallelism", "checkpointInterval", "fromSavepoint", "allowNonRestoredState"} {
		_, err := c.Submit(context.Background(), api.Submission{Spec: []byte(spec), Modules: map[string][]byte{name: nil}})
		if !errors.Is(err, api.ErrBadRequest) || !strings.Contains(err.Error(), fmt.Sprintf("module %q", name)) {
			t.Errorf("module %q: got %v", name, err)
		}
	}
}

func TestWait(t *testing.T) {
	fake, c := start(t)
	ctx := context.Background()
	id, err := c.SubmitFiles(ctx, writeJob(t, "wasm"), client.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var steps []api.Event
	for _, state := range []string{api.JobRunning, api.JobRestarting, api.JobRunning, api.JobFinished, api.JobRunning} {
		steps = append(steps, api.Event{State: state})
	}
	fake.Script(id, steps...)
	job, err := c.Wait(ctx, id, time.Millisecond)
	if err != nil || job.State != api.JobFinished {
		t.Errorf("Wait = %s, %v; want FINISHED", job.State, err)
	}
	if _, err := c.Wait(ctx, "nope", time.Millisecond); !errors.Is(err, api.ErrNotFound) {
		t.Errorf("Wait for an unknown job: %v", err)
	}
}

func TestWaitContext(t *testing.T) {
	_, c := start(t)
	id, err := c.SubmitFiles(context.Background(), writeJob(t, "wasm"), client.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	job, err := c.Wait(ctx, id, 5*time.Millisecond)
	if !errors.Is(err, context.DeadlineExceeded) || job.State != api.JobRunning {
		t.Errorf("Wait = %s, %v; want RUNNING, deadline exceeded", job.State, err)
	}
}

func TestUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = client.New("http://"+addr, nil).Jobs(context.Background())
	if !client.IsUnreachable(err) {
		t.Errorf("IsUnreachable(%v) = false", err)
	}
	if client.IsUnreachable(&client.Error{StatusCode: 500, Message: "x"}) {
		t.Error("IsUnreachable of a server error = true")
	}
}

// TestForeignError checks an error response that is not the scheduler's
// JSON, as a proxy might send.
func TestForeignError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "upstream down", http.StatusBadGateway)
	}))
	defer srv.Close()
	_, err := client.New(srv.URL, nil).Job(context.Background(), "a/b")
	var e *client.Error
	if !errors.As(err, &e) || e.StatusCode != 502 || errors.Unwrap(e) != nil ||
		e.Message != "GET "+srv.URL+"/v1/jobs/a%2Fb: 502 Bad Gateway: upstream down" {
		t.Errorf("got %#v", err)
	}
}
