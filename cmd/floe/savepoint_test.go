package main

import (
	"strings"
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client/clienttest"
)

// TestJobSavepointDetach checks that --detach prints the trigger at once,
// with the job still running, and that savepoint-status then reports it.
func TestJobSavepointDetach(t *testing.T) {
	for _, cmd := range [][]string{{"savepoint"}, {"stop", "--savepoint"}} {
		t.Run(cmd[0], func(t *testing.T) {
			c := startCluster(t)
			id := c.submitCheckpointed(t)
			r := runFloe(append(append([]string{"job"}, cmd...), id, "--detach", "--server", c.url)...)
			if r.code != 0 || r.stdout != "trigger-1\n" || r.stderr != "" {
				t.Fatalf("got %+v, want the trigger id", r)
			}
			if job, _ := c.fake.Job(t.Context(), id); job.State != api.JobRunning {
				t.Errorf("after --detach the job is %s", job.State)
			}
			r = runFloe("job", "savepoint-status", id, "trigger-1", "--server", c.url)
			want := "trigger:     trigger-1\nstatus:      COMPLETED\ncheckpoint:  1\n"
			if cmd[0] == "stop" {
				want += "stops job:   yes\n"
			}
			want += "path:        " + clienttest.DefaultSavepointDir + "/savepoint-job-2-1\n"
			if r.code != 0 || r.stdout != want {
				t.Errorf("savepoint-status: %+v, want stdout %q", r, want)
			}
			r = runFloe("job", "savepoint-status", id, "trigger-1", "-o", "json", "--server", c.url)
			if r.code != 0 || !strings.Contains(r.stdout, `"status": "COMPLETED"`) {
				t.Errorf("savepoint-status -o json: %+v", r)
			}
		})
	}
}

// TestJobSavepointFailed checks that a savepoint that fails while the CLI
// waits for it fails the command with the reason.
func TestJobSavepointFailed(t *testing.T) {
	c := startCluster(t)
	id := c.submitCheckpointed(t)
	c.fake.ScriptSavepoints(id, api.SavepointTrigger{Status: api.SavepointFailed, ID: 3, Failure: "checkpoint 3 failed: declined"})
	r := runFloe("job", "savepoint", id, "--server", c.url)
	want := "floe job savepoint: conflict: savepoint trigger-1 of job job-2 failed: checkpoint 3 failed: declined\n"
	if r.code != 1 || r.stdout != "" || r.stderr != want {
		t.Errorf("got %+v, want exit 1 and stderr %q", r, want)
	}
}

// TestJobSavepointStatusErrors checks an unknown trigger and the usage.
func TestJobSavepointStatusErrors(t *testing.T) {
	c := startCluster(t)
	r := runFloe("job", "savepoint-status", "job-1", "nope", "--server", c.url)
	if r.code != 1 || !strings.Contains(r.stderr, `has no savepoint trigger "nope"`) {
		t.Errorf("unknown trigger: %+v", r)
	}
	if r := runFloe("job", "savepoint-status", "job-1", "--server", c.url); r.code != 2 {
		t.Errorf("without a trigger: %+v, want exit 2", r)
	}
	if r := runFloe("job", "stop", "job-1", "--detach", "--server", c.url); r.code != 2 || !strings.Contains(r.stderr, "--detach needs --savepoint") {
		t.Errorf("stop --detach without --savepoint: %+v", r)
	}
}

// TestFromCheckpoint checks floe job checkpoints --latest-path and floe
// job submit --from-checkpoint: both name the newest completed checkpoint.
func TestFromCheckpoint(t *testing.T) {
	c := startCluster(t)
	for _, cp := range []api.CheckpointStatus{
		{ID: 3, Status: api.CheckpointCompleted, Path: "file:///ck/job-1/chk-3/_metadata"},
		{ID: 4, Status: api.CheckpointCompleted, Path: "file:///ck/job-1/chk-4/_metadata"},
		{ID: 5, Status: api.CheckpointFailed},
		{ID: 6, Status: api.CheckpointInProgress},
	} {
		c.fake.AddCheckpoint("job-1", cp)
	}
	const want = "file:///ck/job-1/chk-4"
	r := runFloe("job", "checkpoints", "job-1", "--latest-path", "--server", c.url)
	if r.code != 0 || r.stdout != want+"\n" {
		t.Errorf("--latest-path: %+v, want %s", r, want)
	}
	r = runFloe("job", "submit", writeTestJob(t, true), "--from-checkpoint", "job-1", "--allow-non-restored-state", "--server", c.url)
	subs := c.fake.Submissions()
	if s := subs[len(subs)-1]; r.code != 0 || s.FromSavepoint != want || !s.AllowNonRestoredState {
		t.Errorf("submit --from-checkpoint: %+v, submission from %q", r, s.FromSavepoint)
	}
	c2 := c.submitCheckpointed(t) // no checkpoint yet
	r = runFloe("job", "submit", writeTestJob(t, true), "--from-checkpoint", c2, "--server", c.url)
	if r.code != 1 || !strings.Contains(r.stderr, "--from-checkpoint: not found: job "+c2+" has no completed checkpoint") {
		t.Errorf("from a job without checkpoints: %+v", r)
	}
	r = runFloe("job", "submit", writeTestJob(t, true), "--from-checkpoint", "job-1", "--from-savepoint", want, "--server", c.url)
	if r.code != 2 || !strings.Contains(r.stderr, "exclude each other") {
		t.Errorf("both: %+v", r)
	}
}
