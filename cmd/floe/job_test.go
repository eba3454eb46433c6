package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
	"github.com/floe-stream/floe/scheduler/client/clienttest"

	"github.com/spf13/pflag"
)

// testSpec is a valid job spec whose module ops lives next to it.
const testSpec = `name: demo
parallelism: 2
params:
  count: "10"
modules:
  ops: ops.wasm
source: {type: generator, uid: gen, count: "${count}"}
operators:
  - {type: map, uid: upper, module: ops, function: upper}
sink: {type: stdout, uid: out}
`

// writeTestJob writes testSpec and, if module is set, its module into a new
// directory, and returns the spec's path.
func writeTestJob(t *testing.T, module bool) string {
	t.Helper()
	dir := t.TempDir()
	if module {
		if err := os.WriteFile(filepath.Join(dir, "ops.wasm"), []byte("\x00asm"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "job.yaml")
	if err := os.WriteFile(path, []byte(testSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// cliResult is what one run of the command line did.
type cliResult struct {
	code           int
	stdout, stderr string
}

// runFloe runs floe with args.
func runFloe(args ...string) cliResult {
	var stdout, stderr bytes.Buffer
	code := floe(args, &stdout, &stderr)
	return cliResult{code, stdout.String(), stderr.String()}
}

// cluster is a fake scheduler with one submitted job, job-1, served over
// HTTP.
type cluster struct {
	fake *clienttest.Fake
	url  string
}

// submitCheckpointed submits the test job with checkpoints on, as a job
// must have them to be rescaled, and returns its id.
func (c *cluster) submitCheckpointed(t *testing.T) string {
	t.Helper()
	r := runFloe("job", "submit", writeTestJob(t, true), "--checkpoint-interval", "10s", "--server", c.url)
	if r.code != 0 {
		t.Fatalf("submit: %+v", r)
	}
	return strings.TrimSpace(r.stdout)
}

func startCluster(t *testing.T) *cluster {
	t.Helper()
	c := &cluster{fake: clienttest.NewFake()}
	c.url = clienttest.NewServer(t, c.fake).URL
	if r := runFloe("job", "submit", writeTestJob(t, true), "--server", c.url); r.code != 0 {
		t.Fatalf("submit: %+v", r)
	}
	return c
}

func TestJobSubmit(t *testing.T) {
	c := startCluster(t)
	spec := writeTestJob(t, true)
	tests := []struct {
		name string
		args []string
		want api.Submission
	}{
		{"flags after the spec", []string{spec, "--set", "count=5", "--parallelism", "3", "--server", c.url},
			api.Submission{Params: map[string]string{"count": "5"}, Parallelism: 3}},
		{"flags before the spec", []string{"--server", c.url, "--parallelism=4", spec},
			api.Submission{Params: map[string]string{}, Parallelism: 4}},
		{"host:port", []string{spec, "--server", strings.TrimPrefix(c.url, "http://")},
			api.Submission{Params: map[string]string{}}},
		{"checkpoint interval", []string{spec, "--checkpoint-interval", "1m30s", "--server", c.url},
			api.Submission{Params: map[string]string{}, CheckpointInterval: 90 * time.Second}},
		{"from a savepoint", []string{"--from-savepoint", "s3://floe/sp/savepoint-abc123-4", spec, "--server", c.url},
			api.Submission{Params: map[string]string{}, FromSavepoint: "s3://floe/sp/savepoint-abc123-4"}},
		{"from a savepoint, dropping state", []string{spec, "--from-savepoint=file:///sp/savepoint-abc123-4",
			"--allow-non-restored-state", "--server", c.url},
			api.Submission{Params: map[string]string{}, FromSavepoint: "file:///sp/savepoint-abc123-4", AllowNonRestoredState: true}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runFloe(append([]string{"job", "submit"}, tt.args...)...)
			if id := fmt.Sprintf("job-%d\n", i+2); r.code != 0 || r.stdout != id || r.stderr != "" {
				t.Fatalf("got %+v, want exit 0 and %q only", r, id)
			}
			subs := c.fake.Submissions()
			got := subs[len(subs)-1]
			if string(got.Spec) != testSpec || len(got.Modules) != 0 || got.Digests["ops"] != client.Digest([]byte("\x00asm")) ||
				got.Parallelism != tt.want.Parallelism || got.CheckpointInterval != tt.want.CheckpointInterval ||
				got.FromSavepoint != tt.want.FromSavepoint || got.AllowNonRestoredState != tt.want.AllowNonRestoredState ||
				len(got.Params) != len(tt.want.Params) ||
				got.Params["count"] != tt.want.Params["count"] {
				t.Errorf("submission %+v", got)
			}
		})
	}
}

func TestJobSubmitEnv(t *testing.T) {
	c := startCluster(t)
	t.Setenv("FLOE_SERVER", c.url)
	if r := runFloe("job", "submit", writeTestJob(t, true)); r.code != 0 || r.stdout != "job-2\n" {
		t.Errorf("got %+v", r)
	}
	if r := runFloe("job", "submit", "--help"); !strings.Contains(r.stdout, c.url) {
		t.Errorf("--help does not show $FLOE_SERVER as the default: %s", r.stdout)
	}
}

// TestJobErrors runs command lines that fail, with the exit code and the
// message each should give.
func TestJobErrors(t *testing.T) {
	c := startCluster(t)
	c.fake.SetState("job-1", api.JobRunning, "")
	spec := writeTestJob(t, true)
	c.submitCheckpointed(t) // job-2
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string // a substring of stderr
	}{
		{"no command", nil, 2, "Available Commands:"},
		{"unknown command", []string{"restart"}, 2, `unknown command "restart"`},
		{"no spec", []string{"submit"}, 2, "missing JOB.yaml"},
		{"two specs", []string{"submit", spec, spec}, 2, "unexpected arguments"},
		{"bad set", []string{"submit", spec, "--set", "novalue"}, 2, "want name=value"},
		{"unknown flag", []string{"submit", spec, "--paralelism", "2"}, 2, "unknown flag: --paralelism"},
		{"bad server", []string{"list", "--server", "ftp://x"}, 2, `--server "ftp://x"`},
		{"bad output", []string{"status", "job-1", "-o", "yaml"}, 2, `-o "yaml": want text or json`},
		{"no id", []string{"status"}, 2, "missing ID"},
		{"checkpoints without id", []string{"checkpoints"}, 2, "missing ID"},
		{"bad checkpoints output", []string{"checkpoints", "job-1", "-o", "csv"}, 2, `-o "csv": want text or json`},
		{"bad checkpoint interval", []string{"submit", spec, "--checkpoint-interval", "10"}, 2,
			`invalid argument "10" for "--checkpoint-interval" flag`},
		{"negative checkpoint interval", []string{"submit", spec, "--checkpoint-interval", "-1s"}, 2,
			"--checkpoint-interval -1s: want a duration > 0, or 0 for the spec's"},
		{"checkpoint interval too short", []string{"submit", spec, "--checkpoint-interval", "5ms"}, 1,
			"floe job submit: checkpoint interval 5ms is below the minimum 10ms"},
		{"no module file", []string{"submit", writeTestJob(t, false)}, 1, `module "ops": open `},
		{"spec rejected locally", []string{"submit", spec, "--set", "nope=1"}, 1, "unknown parameter"},
		{"spec rejected by the scheduler", []string{"submit", spec, "--parallelism", "1000"}, 1, "exceeds maxParallelism 128"},
		{"unknown job", []string{"status", "job-9"}, 1, `floe job status: not found: no job "job-9"`},
		{"cancel unknown job", []string{"cancel", "job-9"}, 1, `not found: no job "job-9"`},
		{"checkpoints of unknown job", []string{"checkpoints", "job-9"}, 1, `floe job checkpoints: not found: no job "job-9"`},
		{"wait for unknown job", []string{"wait", "job-9"}, 1, `not found: no job "job-9"`},
		{"timeout", []string{"wait", "job-1", "--timeout", "30ms", "--poll", "5ms"}, 1,
			"floe job wait: timed out after 30ms; job job-1 is RUNNING"},
		{"rescale without id", []string{"rescale", "--parallelism", "2"}, 2, "missing ID"},
		{"rescale to nothing", []string{"rescale", "job-2"}, 2,
			"give the new parallelism: --parallelism N, --operator uid=N, or both"},
		{"negative parallelism", []string{"rescale", "job-2", "--parallelism", "-1"}, 2,
			"--parallelism -1: want an integer >= 1, or 0 to keep the job's"},
		{"operator without value", []string{"rescale", "job-2", "--operator", "upper"}, 2, `--operator "upper": want uid=N with N >= 1`},
		{"operator at zero", []string{"rescale", "job-2", "--operator", "upper=0"}, 2, `--operator "upper=0": want uid=N`},
		{"operator without uid", []string{"rescale", "job-2", "--operator", "=2"}, 2, `--operator "=2": want uid=N`},
		{"operator twice", []string{"rescale", "job-2", "--operator", "upper=2", "--operator", "upper=3"}, 2,
			`--operator "upper=3": upper is given twice`},
		{"timeout without wait", []string{"rescale", "job-2", "--parallelism", "2", "--timeout", "1m"}, 2,
			"--timeout and --poll need --wait"},
		{"rescale unknown job", []string{"rescale", "job-9", "--parallelism", "2"}, 1,
			`floe job rescale: not found: no job "job-9"`},
		{"rescale and wait for unknown job", []string{"rescale", "job-9", "--parallelism", "2", "--wait"}, 1,
			`floe job rescale: not found: no job "job-9"`},
		{"rescale without checkpoints", []string{"rescale", "job-1", "--parallelism", "4", "--wait"}, 1,
			"floe job rescale: conflict: job job-1 takes no checkpoints; rescaling moves state through one (submit it with --checkpoint-interval)"},
		{"rescale unknown uid", []string{"rescale", "job-2", "--operator", "lower=2"}, 1,
			`floe job rescale: bad request: no source, operator or sink with uid "lower"`},
		{"rescale above maxParallelism", []string{"rescale", "job-2", "--parallelism", "200"}, 1,
			"floe job rescale: bad request: parallelism override: 200 exceeds maxParallelism 128"},
		{"allow non-restored state without a savepoint", []string{"submit", spec, "--allow-non-restored-state"}, 2,
			"floe job submit: --allow-non-restored-state needs --from-savepoint or --from-checkpoint"},
		{"savepoint not a URL", []string{"submit", spec, "--from-savepoint", "/tmp/sp"}, 1,
			`floe job submit: bad request: fromSavepoint "/tmp/sp": want a file:// or s3:// URL`},
		{"savepoint without id", []string{"savepoint", "--dir", "s3://b/sp"}, 2, "missing ID"},
		{"savepoint of two jobs", []string{"savepoint", "job-1", "job-2"}, 2, `unexpected arguments ["job-2"]`},
		{"savepoint unknown job", []string{"savepoint", "job-9"}, 1, `floe job savepoint: not found: no job "job-9"`},
		{"savepoint without checkpoints", []string{"savepoint", "job-1"}, 1,
			"floe job savepoint: conflict: job job-1 takes no checkpoints; submit it with --checkpoint-interval to take savepoints"},
		{"savepoint into a bad dir", []string{"savepoint", "job-2", "--dir", "/tmp/sp"}, 1,
			`floe job savepoint: bad request: savepoint dir "/tmp/sp": want a file:// or s3:// URL`},
		{"stop without id", []string{"stop", "--savepoint"}, 2, "missing ID"},
		{"stop dir without savepoint", []string{"stop", "job-2", "--dir", "s3://b/sp"}, 2, "floe job stop: --dir needs --savepoint"},
		{"stop unknown job", []string{"stop", "job-9", "--savepoint"}, 1, `floe job stop: not found: no job "job-9"`},
		{"cancel unknown job with stop", []string{"stop", "job-9"}, 1, `floe job stop: not found: no job "job-9"`},
		{"stop without checkpoints", []string{"stop", "job-1", "--savepoint"}, 1,
			"floe job stop: conflict: job job-1 takes no checkpoints; submit it with --checkpoint-interval to take savepoints"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"job"}, tt.args...)
			if !slices.Contains(tt.args, "--server") {
				args = append(args, "--server="+c.url)
			}
			r := runFloe(args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, tt.code, tt.stderr)
			}
		})
	}
}

func TestJobUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close()
	r := runFloe("job", "list", "--server", url)
	want := "floe job list: cannot reach the scheduler at " + url + ": is `floe scheduler` running?"
	if r.code != 1 || !strings.HasPrefix(r.stderr, want) {
		t.Errorf("got %+v, want exit 1 and %q", r, want)
	}
}

func TestJobList(t *testing.T) {
	c := startCluster(t)
	runFloe("job", "submit", writeTestJob(t, true), "--server", c.url)
	c.fake.SetState("job-1", api.JobFailed, "boom")
	r := runFloe("job", "list", "--server", c.url)
	want := `ID     NAME  STATE    ATTEMPT  SUBMITTED
job-2  demo  RUNNING  1        2025-01-02T03:04:07Z
job-1  demo  FAILED   1        2025-01-02T03:04:06Z
`
	if r.code != 0 || r.stdout != want {
		t.Errorf("got %+v, want stdout\n%s", r, want)
	}
	r = runFloe("job", "list", "-o", "json", "--server", c.url)
	var out struct{ Jobs []api.JobStatus }
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || len(out.Jobs) != 2 || out.Jobs[1].Message != "boom" {
		t.Errorf("list -o json: %v, %s", err, r.stdout)
	}
}

func TestJobStatus(t *testing.T) {
	c := startCluster(t)
	c.fake.SetState("job-1", api.JobFailed, "task upper[1] trapped")
	r := runFloe("job", "status", "job-1", "--server", c.url)
	want := `ID:           job-1
Name:         demo
State:        FAILED
Message:      task upper[1] trapped
Attempt:      1
Parallelism:  2
Submitted:    2025-01-02T03:04:06Z
Started:      2025-01-02T03:04:06Z
Ended:        2025-01-02T03:04:06Z

VERTEX       PARALLELISM  STATE   TASK MANAGER  RECORDS IN  RECORDS OUT  BACK-PRESSURE
0 gen        2                                  0           0            0%
  subtask 0               FAILED  tm-1          0           0            0%
  subtask 1               FAILED  tm-1          0           0            0%
1 upper      2                                  0           0            0%
  subtask 0               FAILED  tm-1          0           0            0%
  subtask 1               FAILED  tm-1          0           0            0%
2 out        2                                  0           0            0%
  subtask 0               FAILED  tm-1          0           0            0%
  subtask 1               FAILED  tm-1          0           0            0%

History:
  2025-01-02T03:04:06Z  RUNNING
  2025-01-02T03:04:06Z  FAILED: task upper[1] trapped
`
	if r.code != 0 || r.stdout != want {
		t.Errorf("got %+v, want stdout\n%s", r, want)
	}
	r = runFloe("job", "status", "-o", "json", "--server", c.url, "job-1")
	var job api.JobStatus
	if err := json.Unmarshal([]byte(r.stdout), &job); err != nil || job.State != api.JobFailed || len(job.Vertices) != 3 {
		t.Errorf("status -o json: %v, %s", err, r.stdout)
	}
}

func TestJobCheckpoints(t *testing.T) {
	c := startCluster(t)
	if r := runFloe("job", "checkpoints", "job-1", "--server", c.url); r.code != 0 ||
		r.stdout != "ID  STATUS  ATTEMPT  TRIGGERED  DURATION  FULL  INCREMENTAL  MESSAGE\n" {
		t.Errorf("a job without checkpoints: %+v", r)
	}
	t0 := clienttest.Start
	done := t0.Add(1234 * time.Millisecond)
	for _, cp := range []api.CheckpointStatus{
		{ID: 1, Status: api.CheckpointCompleted, Attempt: 1, TriggeredAt: t0, CompletedAt: &done, DurationMillis: 1234,
			FullBytes: 3 << 20, IncrementalBytes: 3 << 20, Path: "file:///ckpt/job-1/chk-1"},
		{ID: 2, Status: api.CheckpointFailed, Attempt: 1, TriggeredAt: t0.Add(10 * time.Second), DurationMillis: 60000,
			Message: "timed out\nafter 1m"},
		{ID: 3, Status: api.CheckpointCompleted, Attempt: 2, TriggeredAt: t0.Add(20 * time.Second), CompletedAt: &done,
			DurationMillis: 85, FullBytes: 3<<20 + 512<<10, IncrementalBytes: 512},
		{ID: 4, Status: api.CheckpointInProgress, Attempt: 2, TriggeredAt: t0.Add(30 * time.Second)},
	} {
		c.fake.AddCheckpoint("job-1", cp)
	}
	r := runFloe("job", "checkpoints", "job-1", "--server", c.url)
	want := `ID  STATUS       ATTEMPT  TRIGGERED             DURATION  FULL     INCREMENTAL  MESSAGE
4   IN_PROGRESS  2        2025-01-02T03:04:35Z  -         -        -            -
3   COMPLETED    2        2025-01-02T03:04:25Z  85ms      3.5 MiB  512 B        -
2   FAILED       1        2025-01-02T03:04:15Z  1m0s      -        -            timed out after 1m
1   COMPLETED    1        2025-01-02T03:04:05Z  1.234s    3.0 MiB  3.0 MiB      -
`
	if r.code != 0 || r.stdout != want {
		t.Errorf("got %+v, want stdout\n%s", r, want)
	}
	r = runFloe("job", "checkpoints", "-o", "json", "--server", c.url, "job-1")
	var out struct{ Checkpoints []api.CheckpointStatus }
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || len(out.Checkpoints) != 4 ||
		out.Checkpoints[3].Path != "file:///ckpt/job-1/chk-1" || !out.Checkpoints[3].CompletedAt.Equal(done) {
		t.Errorf("checkpoints -o json: %v, %s", err, r.stdout)
	}
}

func TestFormatBytes(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{1023, "1023 B"},
		{1024, "1.0 KiB"},
		{1536, "1.5 KiB"},
		{1<<20 - 1, "1.0 MiB"},
		{20 << 20, "20.0 MiB"},
		{5 << 30, "5.0 GiB"},
		{1 << 62, "4.0 EiB"},
	}
	for _, tt := range tests {
		if got := formatBytes(tt.n); got != tt.want {
			t.Errorf("formatBytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

// TestRunCheckpointInterval checks that floe run's --checkpoint-interval
// reaches the submission, and that its help, shared with floe job submit,
// does not promise restarts that the restart strategy decides.
func TestRunCheckpointInterval(t *testing.T) {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	var f runFlags
	f.register(fs)
	if err := fs.Parse([]string{"--checkpoint-interval", "250ms"}); err != nil {
		t.Fatal(err)
	}
	_, sub, err := loadJob(writeTestJob(t, true), &f)
	if err != nil || sub.CheckpointInterval != 250*time.Millisecond {
		t.Errorf("loadJob = %v, %v; want a 250ms checkpoint interval", sub.CheckpointInterval, err)
	}
	r := runFloe("run", "--help")
	if !strings.Contains(r.stdout, "--checkpoint-interval") || !strings.Contains(r.stdout, "restarts the job from the latest checkpoint") {
		t.Errorf("floe run --help does not explain --checkpoint-interval:\n%s", r.stdout)
	}
}

// TestRunFromSavepoint checks that floe run's --from-savepoint and
// --allow-non-restored-state reach the submission.
func TestRunFromSavepoint(t *testing.T) {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	var f runFlags
	f.register(fs)
	if err := fs.Parse([]string{"--from-savepoint", "file:///sp/savepoint-abc123-4", "--allow-non-restored-state"}); err != nil {
		t.Fatal(err)
	}
	_, sub, err := loadJob(writeTestJob(t, true), &f)
	if err != nil || sub.FromSavepoint != "file:///sp/savepoint-abc123-4" || !sub.AllowNonRestoredState {
		t.Errorf("loadJob = %q, %v, %v; want the savepoint, allowing non-restored state", sub.FromSavepoint, sub.AllowNonRestoredState, err)
	}
	r := runFloe("run", "--help")
	if !strings.Contains(r.stdout, "--from-savepoint URL") || !strings.Contains(r.stdout, "--allow-non-restored-state") {
		t.Errorf("floe run --help does not show the savepoint flags:\n%s", r.stdout)
	}
}

func TestJobSavepoint(t *testing.T) {
	tests := []struct {
		name   string
		args   []string // the ID goes before them
		call   clienttest.SavepointCall
		stdout string
	}{
		{"default dir", nil, clienttest.SavepointCall{Job: "job-2"}, clienttest.DefaultSavepointDir + "/savepoint-job-2-1\n"},
		{"dir", []string{"--dir", "s3://floe/sp"}, clienttest.SavepointCall{Job: "job-2", Dir: "s3://floe/sp"},
			"s3://floe/sp/savepoint-job-2-1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startCluster(t)
			id := c.submitCheckpointed(t)
			r := runFloe(append([]string{"job", "savepoint", id, "--server", c.url}, tt.args...)...)
			if r.code != 0 || r.stdout != tt.stdout || r.stderr != "" {
				t.Errorf("got %+v, want exit 0 and stdout %q", r, tt.stdout)
			}
			if calls := c.fake.Savepoints(); len(calls) != 1 || calls[0] != tt.call {
				t.Errorf("the scheduler was asked %+v, want %+v", calls, tt.call)
			}
			if job, _ := c.fake.Job(t.Context(), id); job.State != api.JobRunning {
				t.Errorf("after a savepoint the job is %s", job.State)
			}
		})
	}
}

// TestJobStop stops a job with a savepoint, and without one, which cancels
// it, and then starts a job from the savepoint.
func TestJobStop(t *testing.T) {
	tests := []struct {
		name   string
		args   []string // the ID goes after them
		calls  []clienttest.SavepointCall
		stdout string
		state  string
	}{
		{"savepoint", []string{"--savepoint"}, []clienttest.SavepointCall{{Job: "job-2", Stop: true}},
			clienttest.DefaultSavepointDir + "/savepoint-job-2-1\n", api.JobFinished},
		{"savepoint into dir", []string{"--dir", "file:///sp", "--savepoint"},
			[]clienttest.SavepointCall{{Job: "job-2", Dir: "file:///sp", Stop: true}}, "file:///sp/savepoint-job-2-1\n", api.JobFinished},
		{"no savepoint", nil, nil, "CANCELED\n", api.JobCanceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startCluster(t)
			id := c.submitCheckpointed(t)
			r := runFloe(append(append([]string{"job", "stop", "--server", c.url}, tt.args...), id)...)
			if r.code != 0 || r.stdout != tt.stdout || r.stderr != "" {
				t.Fatalf("got %+v, want exit 0 and stdout %q", r, tt.stdout)
			}
			if calls := c.fake.Savepoints(); !slices.Equal(calls, tt.calls) {
				t.Errorf("the scheduler was asked %+v, want %+v", calls, tt.calls)
			}
			if job, _ := c.fake.Job(t.Context(), id); job.State != tt.state {
				t.Errorf("the job is %s, want %s", job.State, tt.state)
			}
			if tt.calls == nil {
				return
			}
			path := strings.TrimSpace(r.stdout)
			r = runFloe("job", "submit", writeTestJob(t, true), "--from-savepoint", path, "--server", c.url)
			subs := c.fake.Submissions()
			if r.code != 0 || r.stdout != "job-3\n" || subs[2].FromSavepoint != path {
				t.Errorf("submit --from-savepoint: %+v, %+v", r, subs[2])
			}
		})
	}
}

func TestJobCancel(t *testing.T) {
	c := startCluster(t)
	if r := runFloe("job", "cancel", "job-1", "--server", c.url); r.code != 0 || r.stdout != "CANCELED\n" {
		t.Errorf("cancel: %+v", r)
	}
	r := runFloe("job", "cancel", "job-1", "--server", c.url)
	if want := "floe job cancel: conflict: job job-1 has already ended (CANCELED)\n"; r.code != 1 || r.stderr != want {
		t.Errorf("second cancel: %+v, want stderr %q", r, want)
	}
}

func TestJobWait(t *testing.T) {
	tests := []struct {
		name           string
		script         []api.Event
		code           int
		stdout, stderr string
	}{
		{"finished", []api.Event{{State: api.JobDeploying}, {State: api.JobRunning}, {State: api.JobFinished}},
			0, "FINISHED\n", ""},
		{"failed", []api.Event{{State: api.JobRestarting}, {State: api.JobFailed, Message: "restarts exhausted"}},
			1, "FAILED\n", "floe job wait: job job-1 FAILED: restarts exhausted\n"},
		{"canceled", []api.Event{{State: api.JobCanceled, Message: "canceled by a user"}},
			1, "CANCELED\n", "floe job wait: job job-1 CANCELED: canceled by a user\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startCluster(t)
			c.fake.Script("job-1", tt.script...)
			r := runFloe("job", "wait", "job-1", "--poll", "1ms", "--server", c.url)
			if r.code != tt.code || r.stdout != tt.stdout || r.stderr != tt.stderr {
				t.Errorf("got %+v, want exit %d, stdout %q, stderr %q", r, tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}

// TestJobHelp checks that every command's --help exits 0 and describes its
// own flags.
func TestJobHelp(t *testing.T) {
	flags := map[string][]string{
		"submit": {"--set key=value", "--parallelism", "--checkpoint-interval", "--from-savepoint URL", "--allow-non-restored-state",
			"--server URL"},
		"list":        {"-o, --output format", "--server URL"},
		"status":      {"-o, --output format", "--server URL"},
		"checkpoints": {"-o, --output format", "--server URL"},
		"rescale":     {"--parallelism", "--operator uid=N", "--wait", "--timeout", "--poll", "--server URL"},
		"savepoint":   {"--dir URL", "--server URL"},
		"stop":        {"--savepoint", "--dir URL", "--server URL"},
		"cancel":      {"--server URL"},
		"wait":        {"--timeout", "--poll", "--server URL"},
	}
	for cmd, want := range flags {
		for _, args := range [][]string{{"job", cmd, "--help"}, {"help", "job", cmd}} {
			r := runFloe(args...)
			if r.code != 0 || !strings.Contains(r.stdout, "Usage:\n  floe job "+cmd+" ") || r.stderr != "" {
				t.Errorf("%q: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
			}
			for _, w := range want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("%q does not mention %s:\n%s", args, w, r.stdout)
				}
			}
		}
	}
	for _, args := range [][]string{{"job", "--help"}, {"help", "job"}, {"job", "help"}} {
		if r := runFloe(args...); r.code != 0 || !strings.Contains(r.stdout, jobLong) || !strings.Contains(r.stdout, "submit") {
			t.Errorf("%q: %+v", args, r)
		}
	}
	if r := runFloe("--help"); !strings.Contains(r.stdout, "manage the jobs of a cluster") {
		t.Errorf("floe --help does not mention floe job:\n%s", r.stdout)
	}
}

// TestPrintStatusDetails covers what the fake never reports: counts,
// back-pressure, subtask errors and a job that has not started.
func TestPrintStatusDetails(t *testing.T) {
	job := api.JobStatus{ID: "j", Name: "n", State: api.JobRestarting, Attempt: 2, Parallelism: 1,
		SubmittedAt: clienttest.Start, Vertices: []api.VertexStatus{{
			Stage: 0, Name: "src -> map", Parallelism: 1, RecordsIn: 10, RecordsOut: 7, BackPressure: 0.456,
			Subtasks: []api.SubtaskStatus{{State: api.TaskFailed, RecordsIn: 10, RecordsOut: 7, BackPressure: 0.456, Error: "trap: unreachable"}},
		}}}
	var buf bytes.Buffer
	if err := printStatus(&buf, job); err != nil {
		t.Fatal(err)
	}
	want := `ID:           j
Name:         n
State:        RESTARTING
Attempt:      2
Parallelism:  1
Submitted:    2025-01-02T03:04:05Z

VERTEX        PARALLELISM  STATE   TASK MANAGER  RECORDS IN  RECORDS OUT  BACK-PRESSURE
0 src -> map  1                                  10          7            46%
  subtask 0                FAILED  -             10          7            46%

Error of src -> map, subtask 0: trap: unreachable
`
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", &buf, want)
	}
}

func TestJobRescale(t *testing.T) {
	tests := []struct {
		name   string
		args   []string // the ID goes before them
		want   api.RescaleRequest
		stdout string
	}{
		{"parallelism", []string{"--parallelism", "4"}, api.RescaleRequest{Parallelism: 4},
			"rescaling job-2 to parallelism 4\n"},
		{"operators", []string{"--operator", "upper=8", "--operator=out=2"},
			api.RescaleRequest{Operators: map[string]int{"upper": 8, "out": 2}}, "rescaling job-2 to out=2, upper=8\n"},
		{"both", []string{"--operator", "gen=1", "--parallelism=3"},
			api.RescaleRequest{Parallelism: 3, Operators: map[string]int{"gen": 1}}, "rescaling job-2 to parallelism 3, gen=1\n"},
		{"wait", []string{"--parallelism", "4", "--wait", "--poll", "1ms"}, api.RescaleRequest{Parallelism: 4},
			"rescaling job-2 to parallelism 4\nrescaled to 4/4/4: 0s downtime (0s since the request)\n"},
		{"wait with a timeout", []string{"--operator", "upper=8", "--wait", "--timeout", "1m", "--poll", "1ms"},
			api.RescaleRequest{Operators: map[string]int{"upper": 8}},
			"rescaling job-2 to upper=8\nrescaled to 2/8/2: 0s downtime (0s since the request)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startCluster(t)
			id := c.submitCheckpointed(t)
			r := runFloe(append([]string{"job", "rescale", id, "--server", c.url}, tt.args...)...)
			if r.code != 0 || r.stdout != tt.stdout || r.stderr != "" {
				t.Errorf("got %+v, want exit 0 and stdout %q", r, tt.stdout)
			}
			calls := c.fake.Rescales()
			if len(calls) != 1 || calls[0].Job != id || calls[0].Request.Parallelism != tt.want.Parallelism ||
				!maps.Equal(calls[0].Request.Operators, tt.want.Operators) {
				t.Errorf("the scheduler was asked %+v, want %+v", calls, tt.want)
			}
		})
	}
}

// TestJobRescaleWaitFails covers the ways a waited-for rescale does not
// complete. The first scripted step is for the status that rescale reads
// before its request; the handler of the request reads the next.
func TestJobRescaleWaitFails(t *testing.T) {
	running := api.Event{State: api.JobRunning}
	tests := []struct {
		name   string
		script []api.Event
		args   []string
		stderr string
	}{
		{"job fails", []api.Event{running, {State: api.JobFailed, Message: "task manager tm-1 lost"}}, nil,
			"floe job rescale: job job-2 FAILED during the rescale: task manager tm-1 lost\n"},
		{"job canceled", []api.Event{running, running, {State: api.JobCanceled}}, nil,
			"floe job rescale: job job-2 CANCELED during the rescale: -\n"},
		{"checkpoint fails", []api.Event{running, {State: api.JobRunning, Message: "rescale abandoned: checkpoint 1 failed: timed out after 1m0s"}}, nil,
			"floe job rescale: job job-2: rescale abandoned: checkpoint 1 failed: timed out after 1m0s\n"},
		{"plan fails", []api.Event{running, running, {State: api.JobRunning, Message: "rescale failed: no slots"}}, nil,
			"floe job rescale: job job-2: rescale failed: no slots\n"},
		{"timeout", nil, []string{"--timeout", "30ms", "--poll", "1h"},
			"floe job rescale: timed out after 30ms; job job-2 is DEPLOYING (attempt 2 on 4 slots, restoring checkpoint 1)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startCluster(t)
			id := c.submitCheckpointed(t)
			c.fake.Script(id, tt.script...)
			args := append([]string{"job", "rescale", id, "--parallelism", "4", "--wait", "--poll", "1ms", "--server", c.url}, tt.args...)
			r := runFloe(args...)
			if r.code != 1 || r.stdout != "rescaling job-2 to parallelism 4\n" || r.stderr != tt.stderr {
				t.Errorf("got %+v, want exit 1 and stderr %q", r, tt.stderr)
			}
		})
	}
}

// TestRescaleEndTrimmed follows a rescale in a history that the scheduler
// trims at its front (HistoryDropped): since counts every event of the
// job, dropped or not.
func TestRescaleEndTrimmed(t *testing.T) {
	ev := func(state, msg string) api.Event { return api.Event{State: state, Message: msg} }
	old := ev(api.JobRunning, "rescaled to 1/1/1: 2s downtime (3s since the request)")
	done := ev(api.JobRunning, "rescaled to 2/2/2: 1s downtime (1s since the request)")
	tests := []struct {
		name           string
		events         []api.Event
		dropped, since int
		ended          bool
	}{
		// The history was full: each new event pushed an old one out.
		{"trimmed, the old end kept", []api.Event{old, ev(api.JobWaiting, "rescaling"), done}, 3, 4, true},
		{"trimmed, under way", []api.Event{ev(api.JobWaiting, "x"), old, ev(api.JobWaiting, "rescaling")}, 3, 5, false},
		// More events came than the history keeps, since among them.
		{"trimmed past since", []api.Event{ev(api.JobWaiting, "rescaling"), done}, 10, 4, true},
		{"old end not taken for the new", []api.Event{old}, 4, 5, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, ended, err := rescaleEnd(api.JobStatus{ID: "j", History: tt.events, HistoryDropped: tt.dropped}, tt.since)
			if ended != tt.ended || err != nil || ended && msg != done.Message {
				t.Errorf("got %q %v %v, want ended %v", msg, ended, err, tt.ended)
			}
		})
	}
}

func TestRescaleEnd(t *testing.T) {
	ev := func(state, msg string) api.Event { return api.Event{State: state, Message: msg} }
	old := ev(api.JobRunning, "rescaled to 1/1/1: 2s downtime (3s since the request)")
	tests := []struct {
		name   string
		events []api.Event
		msg    string
		ended  bool
		err    string
	}{
		{"under way", []api.Event{old, ev(api.JobRunning, "rescaling: taking checkpoint 3"), ev(api.JobWaiting, "rescaling from 1/1/1 to 2/2/2")},
			"", false, ""},
		{"done", []api.Event{old, ev(api.JobRunning, "rescaling: taking checkpoint 3"), ev(api.JobRunning, "attempt 3 running"),
			ev(api.JobRunning, "rescaled to 2/2/2: 1.2s downtime (1.5s since the request)")},
			"rescaled to 2/2/2: 1.2s downtime (1.5s since the request)", true, ""},
		{"done, then failed", []api.Event{old, ev(api.JobRunning, "rescaled to 2/2/2: 1s downtime (1s since the request)"),
			ev(api.JobFailed, "boom")}, "rescaled to 2/2/2: 1s downtime (1s since the request)", true, ""},
		{"finished", []api.Event{old, ev(api.JobFinished, "every task finished")}, "", true,
			"job j FINISHED during the rescale: every task finished"},
		{"history shorter than before", nil, "", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, ended, err := rescaleEnd(api.JobStatus{ID: "j", History: tt.events}, 1)
			if msg != tt.msg || ended != tt.ended || fmt.Sprint(err) != cmp.Or(tt.err, "<nil>") {
				t.Errorf("got %q %v %v, want %q %v %q", msg, ended, err, tt.msg, tt.ended, tt.err)
			}
		})
	}
}
