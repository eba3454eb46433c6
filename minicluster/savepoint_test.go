package minicluster

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
	"github.com/floe-stream/floe/tests/textgen"
)

// finish waits for a job to end and fails unless it finished.
func finish(t *testing.T, c *Cluster, id string) api.JobStatus {
	t.Helper()
	var st api.JobStatus
	waitFor(t, func() bool {
		st, _ = c.Scheduler.Job(context.Background(), id)
		return api.Terminal(st.State)
	})
	if st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	return st
}

// awaitSavepoint polls a savepoint trigger until it ends, and fails
// unless it COMPLETED.
func awaitSavepoint(t *testing.T, c *Cluster, id string, trig api.SavepointTrigger) api.SavepointTrigger {
	t.Helper()
	if trig.Status != api.SavepointInProgress || trig.Trigger == "" {
		t.Fatalf("trigger %+v, want one IN_PROGRESS", trig)
	}
	waitFor(t, func() bool {
		var err error
		trig, err = c.Scheduler.SavepointStatus(context.Background(), id, trig.Trigger)
		if err != nil {
			t.Fatal(err)
		}
		return trig.Status != api.SavepointInProgress
	})
	if trig.Status != api.SavepointCompleted || trig.Path == "" {
		t.Fatalf("savepoint %+v", trig)
	}
	return trig
}

// TestSavepointRestoresAtOtherParallelisms stops a word count at
// parallelism 3 with a savepoint, resumes it at 5 into the same output
// (every count exactly once), and again at 1, whose final state answers
// the exact counts.
func TestSavepointRestoresAtOtherParallelisms(t *testing.T) {
	dir := t.TempDir()
	var text bytes.Buffer
	if err := textgen.Write(&text, 100_000, 41); err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(dir, "input.txt")
	os.WriteFile(input, text.Bytes(), 0o644)
	want := textgen.Count(text.Bytes())
	out := filepath.Join(dir, "out")
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 2, Slots: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sub := wordcount(t, dir, input, out, "", 3)
	sub.Params["rate"] = "3000"
	sub.CheckpointInterval = 200 * time.Millisecond
	id, err := c.Scheduler.Submit(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return countStatuses(t, c, id)[api.CheckpointCompleted] >= 2 })
	trig, err := c.Scheduler.Stop(context.Background(), id, "file://"+filepath.Join(dir, "savepoints"))
	if err != nil {
		t.Fatal(err)
	}
	sp := awaitSavepoint(t, c, id, trig)
	if st, _ := c.Scheduler.Job(context.Background(), id); st.State != api.JobFinished || !strings.Contains(st.Message, sp.Path) {
		t.Fatalf("after stop: %s: %s", st.State, st.Message)
	}
	// The savepoint stands alone: the job's checkpoints can go.
	os.RemoveAll(filepath.Join(dir, "cluster", "scheduler", "checkpoints"))

	resume := wordcount(t, dir, input, out, "", 5)
	resume.Params["rate"] = "0"
	resume.FromSavepoint = sp.Path
	id5, err := c.Scheduler.Submit(context.Background(), resume)
	if err != nil {
		t.Fatal(err)
	}
	finish(t, c, id5)
	checkExactlyOnce(t, out, want)

	one := wordcount(t, dir, input, filepath.Join(dir, "out1"), "", 1)
	one.FromSavepoint = sp.Path
	id1, err := c.Scheduler.Submit(context.Background(), one)
	if err != nil {
		t.Fatal(err)
	}
	finish(t, c, id1)
	words := [][]byte{[]byte("the"), []byte("w42"), []byte("floe"), []byte("savepoint")}
	vals, err := c.Scheduler.QueryState(context.Background(), id1, "counts", words)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vals {
		if n, _ := v.Value.(int64); n != want[string(words[i])] {
			t.Errorf("resumed at 1: %q = %d, want %d", words[i], n, want[string(words[i])])
		}
	}
}

func TestBadSavepointsAreRefused(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "input.txt")
	os.WriteFile(input, []byte("a b\n"), 0o644)
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster"), Slots: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sub := wordcount(t, dir, input, filepath.Join(dir, "out"), "", 1)
	sub.Params["follow"] = "true"
	sub.CheckpointInterval = 100 * time.Millisecond
	id, err := c.Scheduler.Submit(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return countStatuses(t, c, id)[api.CheckpointCompleted] >= 1 })
	trig, err := c.Scheduler.Savepoint(context.Background(), id, "file://"+filepath.Join(dir, "sp"))
	if err != nil {
		t.Fatal(err)
	}
	sp := awaitSavepoint(t, c, id, trig)
	if _, err := c.Scheduler.SavepointStatus(context.Background(), id, "nope"); !errors.Is(err, api.ErrNotFound) {
		t.Errorf("an unknown trigger: %v", err)
	}
	corrupt := filepath.Join(dir, "corrupt")
	os.MkdirAll(corrupt, 0o755)
	os.WriteFile(filepath.Join(corrupt, "_metadata"), []byte("{not json"), 0o644)
	other := wordcount(t, dir, input, filepath.Join(dir, "out2"), "", 1)
	other.Spec = bytes.ReplaceAll(other.Spec, []byte("uid: count"), []byte("uid: tally"))
	for _, tc := range []struct {
		name  string
		sub   api.Submission
		from  string
		allow bool
		ok    bool
	}{
		{"missing", sub, "file://" + filepath.Join(dir, "nope"), false, false},
		{"corrupt", sub, "file://" + corrupt, false, false},
		{"another job's state", other, sp.Path, false, false},
		{"allowed to drop it", other, sp.Path, true, true},
		{"parallelism above maxParallelism", func() api.Submission { s := sub; s.Parallelism = 129; return s }(), sp.Path, false, false},
	} {
		s := tc.sub
		s.FromSavepoint, s.AllowNonRestoredState = tc.from, tc.allow
		_, err := c.Scheduler.Submit(context.Background(), s)
		if tc.ok != (err == nil) || (err != nil && !errors.Is(err, api.ErrBadRequest)) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if _, err := c.Scheduler.Savepoint(context.Background(), "nojob", ""); !errors.Is(err, api.ErrNotFound) {
		t.Errorf("savepoint of an unknown job: %v", err)
	}
}

// TestResumeFromRetainedCheckpoint cancels a word count and resumes it,
// into the same output, from its latest completed checkpoint, as floe job
// submit --from-checkpoint does: every count comes out exactly once.
func TestResumeFromRetainedCheckpoint(t *testing.T) {
	dir := t.TempDir()
	var text bytes.Buffer
	if err := textgen.Write(&text, 50_000, 43); err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(dir, "input.txt")
	os.WriteFile(input, text.Bytes(), 0o644)
	out := filepath.Join(dir, "out")
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 1, Slots: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sub := wordcount(t, dir, input, out, "", 2)
	sub.Params["rate"] = "3000"
	sub.CheckpointInterval = 200 * time.Millisecond
	id, err := c.Scheduler.Submit(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return countStatuses(t, c, id)[api.CheckpointCompleted] >= 2 })
	if err := c.Scheduler.Cancel(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		st, _ := c.Scheduler.Job(context.Background(), id)
		return api.Terminal(st.State)
	})
	cps, err := c.Scheduler.Checkpoints(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	from, err := client.LatestCheckpointDir(id, cps)
	if err != nil {
		t.Fatal(err)
	}
	resume := wordcount(t, dir, input, out, "", 2)
	resume.Params["rate"] = "0"
	resume.FromSavepoint = from
	next, err := c.Scheduler.Submit(context.Background(), resume)
	if err != nil {
		t.Fatal(err)
	}
	finish(t, c, next)
	checkExactlyOnce(t, out, textgen.Count(text.Bytes()))
}
