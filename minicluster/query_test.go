package minicluster

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/tests/textgen"
)

// TestQueryableStateFollowsAnUnboundedJob appends text to a followed file
// and checks that queried counts reach the test's own counts, through two
// task managers, then that unknown states and keys are told apart.
func TestQueryableStateFollowsAnUnboundedJob(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "input.txt")
	var all bytes.Buffer
	if err := textgen.Write(&all, 20_000, 3); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(input, all.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := wordcount(t, dir, input, filepath.Join(dir, "out"), "", 2)
	sub.Params["follow"] = "true"
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 2, Slots: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Scheduler.Submit(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	words := [][]byte{[]byte("the"), []byte("floe"), []byte("w17"), []byte("w4999"), []byte("checkpoint")}
	expect := func() {
		t.Helper()
		want := textgen.Count(all.Bytes())
		var got []api.StateValue
		waitFor(t, func() bool {
			got, err = c.Scheduler.QueryState(context.Background(), id, "counts", words)
			if err != nil {
				return false
			}
			for i, w := range words {
				n, _ := got[i].Value.(int64)
				if got[i].Found != (want[string(w)] > 0) || n != want[string(w)] {
					return false
				}
			}
			return true
		})
	}
	expect()
	more := bytes.Buffer{}
	if err := textgen.Write(&more, 30_000, 4); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(input, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(more.Bytes())
	f.Close()
	all.Write(more.Bytes())
	expect()

	missing, err := c.Scheduler.QueryState(context.Background(), id, "counts", [][]byte{[]byte("no-such-word")})
	if err != nil || missing[0].Found {
		t.Errorf("absent key: %+v, %v", missing, err)
	}
	if _, err := c.Scheduler.QueryState(context.Background(), id, "nope", words); !errors.Is(err, api.ErrNotFound) {
		t.Errorf("unknown state: %v", err)
	}
	if _, err := c.Scheduler.QueryState(context.Background(), "nojob", "counts", words); !errors.Is(err, api.ErrNotFound) {
		t.Errorf("unknown job: %v", err)
	}
	if err := c.Scheduler.Cancel(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		_, err := c.Scheduler.QueryState(context.Background(), id, "counts", words)
		return errors.Is(err, api.ErrConflict)
	})
}

// TestQueriesAcrossALostTaskManager queries counts while a checkpointed job
// loses a task manager and restores: every answer is either a count the
// word really reached or a retryable "moving" error, never an error of
// another kind; once the job has finished, its kept state answers the
// exact counts.
func TestQueriesAcrossALostTaskManager(t *testing.T) {
	dir := t.TempDir()
	var text bytes.Buffer
	if err := textgen.Write(&text, 150_000, 12); err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(dir, "input.txt")
	os.WriteFile(input, text.Bytes(), 0o644)
	want := textgen.Count(text.Bytes())
	sub := wordcount(t, dir, input, filepath.Join(dir, "out"), "\nrestartStrategy: {type: fixedDelay, attempts: 3, delay: 300ms}\n", 2)
	sub.Params["rate"] = "5000"
	sub.CheckpointInterval = 200 * time.Millisecond
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 2, Slots: 2, HeartbeatTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Scheduler.Submit(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	words := [][]byte{[]byte("the"), []byte("of"), []byte("w1"), []byte("stream")}
	ask := func() (moving bool) {
		vals, err := c.Scheduler.QueryState(context.Background(), id, "counts", words)
		switch {
		case errors.Is(err, api.ErrUnavailable):
			return true
		case err != nil:
			t.Fatalf("query: %v", err)
		}
		for i, v := range vals {
			if n, _ := v.Value.(int64); n > want[string(words[i])] {
				t.Fatalf("word %q: answered %d, more than its %d occurrences", words[i], n, want[string(words[i])])
			}
		}
		return false
	}
	waitFor(t, func() bool { return countStatuses(t, c, id)[api.CheckpointCompleted] >= 2 && !ask() })
	st, _ := c.Scheduler.Job(context.Background(), id)
	c.StopTaskManager(map[string]int{"tm-1": 0, "tm-2": 1}[st.Vertices[1].Subtasks[0].TaskManager])
	sawMoving := false
	waitFor(t, func() bool {
		sawMoving = ask() || sawMoving
		st, _ = c.Scheduler.Job(context.Background(), id)
		return api.Terminal(st.State)
	})
	if st.State != api.JobFinished || st.Attempt < 2 {
		t.Fatalf("job %s after %d attempts: %s", st.State, st.Attempt, st.Message)
	}
	if !sawMoving {
		t.Log("no query landed while the state was moving")
	}
	vals, err := c.Scheduler.QueryState(context.Background(), id, "counts", words)
	if err != nil {
		t.Fatalf("querying the finished job: %v", err)
	}
	for i, v := range vals {
		if n, _ := v.Value.(int64); n != want[string(words[i])] {
			t.Errorf("finished job: %q = %d, want %d", words[i], n, want[string(words[i])])
		}
	}
}
