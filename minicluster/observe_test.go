package minicluster

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/wasmbuild"
	"github.com/floe-stream/floe/scheduler/api"
)

// failingJob keys lines by their value and maps them with testops'
// misbehave, which fails on the record "error"; it restarts once.
const failingJob = `
name: failing
parallelism: 1
restartStrategy: {type: fixedDelay, attempts: 1, delay: 10ms}
modules: {testops: testops.wasm}
source: {type: file, uid: in, path: %q}
operators:
  - {type: keyBy, uid: by-value, key: value}
  - {type: map, uid: bad, module: testops, function: misbehave}
sink: {type: file, uid: out, path: %q}
`

// TestExceptionsNameTheFailingRecord runs a job whose operator fails on one
// record, in both of its attempts: its exceptions, newest first, name the
// subtask, its task manager, the operator, module and function, and the
// record's key, over the Service and over REST.
func TestExceptionsNameTheFailingRecord(t *testing.T) {
	dir := t.TempDir()
	mod := goModule(t, dir, "testops")
	input := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(input, []byte("fine\nerror\nnever\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startCluster(t, Config{DataDir: dir, RESTAddr: "127.0.0.1:0"})
	id, err := c.Scheduler.Submit(context.Background(), api.Submission{
		Spec:    []byte(fmt.Sprintf(failingJob, input, filepath.Join(dir, "out"))),
		Modules: map[string][]byte{"testops": mod},
	})
	if err != nil {
		t.Fatal(err)
	}
	if st := awaitEnd(t, c, id); st.State != api.JobFailed {
		t.Fatalf("job %s, want FAILED: %s", st.State, st.Message)
	}
	x, err := c.Scheduler.Exceptions(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Exceptions) != 2 || x.Dropped != 0 {
		t.Fatalf("%d exceptions (%d dropped), want 2 (0): %+v", len(x.Exceptions), x.Dropped, x.Exceptions)
	}
	tms, err := c.Scheduler.TaskManagers(context.Background())
	if err != nil || len(tms) != 1 {
		t.Fatalf("task managers %v (%v), want one", tms, err)
	}
	tm := tms[0].ID
	for i, e := range x.Exceptions {
		if e.Attempt != 2-i {
			t.Errorf("exception %d is of attempt %d, want %d: newest first", i, e.Attempt, 2-i)
		}
		if e.Stage == nil || *e.Stage != 1 || e.Subtask == nil || *e.Subtask != 0 || e.Vertex != "bad -> out" {
			t.Errorf("exception %d names vertex %q stage %s subtask %s, want bad -> out, 1 and 0", i, e.Vertex, deref(e.Stage), deref(e.Subtask))
		}
		if e.TaskManager != tm || e.Operator != "bad" || e.Module != "testops" || e.Function != "misbehave" {
			t.Errorf("exception %d: task manager %q operator %q module %q function %q, want %s, bad, testops, misbehave",
				i, e.TaskManager, e.Operator, e.Module, e.Function, tm)
		}
		if e.Key != `"error"` || e.Record != `"error"` || !strings.Contains(e.Message, "poison record") {
			t.Errorf("exception %d: key %s record %s message %q; want the record \"error\" and its key, and the guest's message", i, e.Key, e.Record, e.Message)
		}
	}
	var overREST api.Exceptions
	if err := json.Unmarshal([]byte(get(t, "http://"+c.Scheduler.RESTAddr()+"/v1/jobs/"+id+"/exceptions")), &overREST); err != nil {
		t.Fatal(err)
	}
	if len(overREST.Exceptions) != 2 || overREST.Exceptions[0].Key != `"error"` {
		t.Errorf("GET .../exceptions answered %+v", overREST)
	}
}

// loggingJob logs a line per record with testops' C module, whose lines
// quote the secret parameter token.
const loggingJob = `
name: logging
parallelism: 2
params: {token: {secret: true}}
modules: {misbehave: misbehave.wasm}
source: {type: generator, uid: gen, count: 40, rate: 20}
operators:
  - {type: flatMap, uid: talk, module: misbehave, function: log-each}
sink: {type: file, uid: out, path: %q}
`

// TestLogsFollowAJob follows the guest log lines of a running job from
// since to since, and checks that each poll brings only new lines and that
// together they are the lines the job logged: one per record, each naming
// its vertex, subtask and task manager, the secret parameter hidden.
func TestLogsFollowAJob(t *testing.T) {
	const marker = "t0ken-MARKER-91c3"
	dir := t.TempDir()
	wasm := filepath.Join(dir, "misbehave.wasm")
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("sh", filepath.Join(root, "udfs", "testops", "c", "build.sh"), wasm).CombinedOutput(); err != nil {
		t.Fatalf("building udfs/testops/c: %v\n%s", err, out)
	}
	mod, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	c := startCluster(t, Config{DataDir: dir, TaskManagers: 2, RESTAddr: "127.0.0.1:0"})
	ctx := context.Background()
	id, err := c.Scheduler.Submit(ctx, api.Submission{
		Spec:    []byte(fmt.Sprintf(loggingJob, filepath.Join(dir, "out"))),
		Params:  map[string]string{"token": marker},
		Modules: map[string][]byte{"misbehave": mod},
	})
	if err != nil {
		t.Fatal(err)
	}
	var followed []api.LogLine
	var since int64
	polls := 0
	for ended := false; !ended; polls++ {
		st, err := c.Scheduler.Job(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		ended = api.Terminal(st.State) // one more poll after the end
		logs, err := c.Scheduler.Logs(ctx, id, api.LogQuery{Since: since, Subtask: -1})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range logs.Lines {
			if l.Seq <= since {
				t.Fatalf("poll %d since %d returned the older line %+v", polls, since, l)
			}
		}
		followed = append(followed, logs.Lines...)
		since = logs.Next
		time.Sleep(100 * time.Millisecond)
	}
	all, err := c.Scheduler.Logs(ctx, id, api.LogQuery{Subtask: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Lines) != 40 || !slices.Equal(all.Lines, followed) {
		t.Fatalf("followed %d lines in %d polls, and the job has %d; want the same 40", len(followed), polls, len(all.Lines))
	}
	tms := map[string]bool{}
	for _, l := range all.Lines {
		tms[l.TaskManager] = true
		if strings.Contains(l.Message, marker) || !strings.HasPrefix(l.Message, "record ") || !strings.HasSuffix(l.Message, " token [secret]") {
			t.Errorf("line %q: want \"record N token [secret]\"", l.Message)
		}
		if l.Vertex != "gen -> talk -> out" || l.Operator != "talk" || l.Level != "INFO" || l.Attempt != 1 {
			t.Errorf("line %+v: want vertex gen -> talk -> out, operator talk, INFO, attempt 1", l)
		}
	}
	if len(tms) != 2 {
		t.Errorf("lines from task managers %v, want both", tms)
	}
	one, err := c.Scheduler.Logs(ctx, id, api.LogQuery{Vertex: "0", Subtask: 1, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Lines) != 5 || !one.More {
		t.Errorf("limit 5 of subtask 1: %d lines, more %t; want 5, more", len(one.Lines), one.More)
	}
	for _, l := range one.Lines {
		if l.Subtask != 1 {
			t.Errorf("asked for subtask 1, got %+v", l)
		}
	}
	body := get(t, "http://"+c.Scheduler.RESTAddr()+"/v1/jobs/"+id+"/logs?vertex=0&subtask=0&since="+fmt.Sprint(all.Lines[0].Seq))
	var overREST api.Logs
	if err := json.Unmarshal([]byte(body), &overREST); err != nil {
		t.Fatal(err)
	}
	if len(overREST.Lines) == 0 || overREST.Lines[0].Seq <= all.Lines[0].Seq || strings.Contains(body, marker) {
		t.Errorf("GET .../logs?vertex=0&subtask=0&since=S answered %s", body)
	}
}

// goModule builds the Go operator module udfs/name into dir.
func goModule(t *testing.T, dir, name string) []byte {
	t.Helper()
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	wasm, err := wasmbuild.Go(filepath.Join(root, "udfs", name), dir)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	return mod
}

// startCluster starts a mini-cluster that the test closes.
func startCluster(t *testing.T, cfg Config) *Cluster {
	t.Helper()
	c, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	return c
}

func deref(p *int) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}
