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
	"github.com/floe-stream/floe/tests/textgen"
)

// rescaledTo waits until the job's history reports a finished rescale to
// the given stage parallelisms and returns that message. Meanwhile it
// queries counts: each answer is a count the word really reached, or
// "moving" while the state changes hands.
func rescaledTo(t *testing.T, c *Cluster, id, pars string, want map[string]int64) string {
	t.Helper()
	var msg string
	words := [][]byte{[]byte("the"), []byte("w7"), []byte("stream")}
	waitFor(t, func() bool {
		vals, err := c.Scheduler.QueryState(context.Background(), id, "counts", words)
		if err != nil && !errors.Is(err, api.ErrUnavailable) {
			t.Fatalf("query during the rescale: %v", err)
		}
		for i, v := range vals {
			if n, _ := v.Value.(int64); n > want[string(words[i])] {
				t.Fatalf("query during the rescale: %q = %d, above its %d occurrences", words[i], n, want[string(words[i])])
			}
		}
		st, _ := c.Scheduler.Job(context.Background(), id)
		if api.Terminal(st.State) {
			t.Fatalf("job %s while rescaling to %s: %s", st.State, pars, st.Message)
		}
		for _, e := range st.History {
			if strings.HasPrefix(e.Message, "rescaled to "+pars+":") {
				msg = e.Message
				return true
			}
		}
		return false
	})
	return msg
}

// TestRescaleWhileRunningCountsEveryWordOnce rescales a checkpointed word
// count 2 -> 4 -> 1 while it runs; the committed output holds each count
// 1..n exactly once per word.
func TestRescaleWhileRunningCountsEveryWordOnce(t *testing.T) {
	dir := t.TempDir()
	var text bytes.Buffer
	if err := textgen.Write(&text, 250_000, 31); err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(dir, "input.txt")
	os.WriteFile(input, text.Bytes(), 0o644)
	out := filepath.Join(dir, "out")
	// ~29K lines at 2.5K lines/s: about 12 s of input.
	sub := wordcount(t, dir, input, out, "", 2)
	sub.Params["rate"] = "2500"
	sub.CheckpointInterval = 200 * time.Millisecond
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 2, Slots: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Scheduler.Submit(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return countStatuses(t, c, id)[api.CheckpointCompleted] >= 1 })
	if err := c.Scheduler.Rescale(context.Background(), id, api.RescaleRequest{Parallelism: 4}); err != nil {
		t.Fatal(err)
	}
	t.Log(rescaledTo(t, c, id, "4/4", textgen.Count(text.Bytes())))
	st, _ := c.Scheduler.Job(context.Background(), id)
	if len(st.Vertices[1].Subtasks) != 4 {
		t.Fatalf("after rescaling to 4: %d subtasks", len(st.Vertices[1].Subtasks))
	}
	// One more checkpoint at parallelism 4 before going down to 1.
	before := countStatuses(t, c, id)[api.CheckpointCompleted]
	waitFor(t, func() bool {
		if st, _ := c.Scheduler.Job(context.Background(), id); api.Terminal(st.State) {
			t.Fatalf("job %s before the second rescale: %s", st.State, st.Message)
		}
		return countStatuses(t, c, id)[api.CheckpointCompleted] > before
	})
	if err := c.Scheduler.Rescale(context.Background(), id, api.RescaleRequest{Parallelism: 1}); err != nil {
		t.Fatal(err)
	}
	t.Log(rescaledTo(t, c, id, "1/1", textgen.Count(text.Bytes())))
	waitFor(t, func() bool {
		st, _ = c.Scheduler.Job(context.Background(), id)
		return api.Terminal(st.State)
	})
	if st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	checkExactlyOnce(t, out, textgen.Count(text.Bytes()))
}

func TestRescaleRefusesWhatItCannotDo(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "input.txt")
	os.WriteFile(input, []byte("a b c\n"), 0o644)
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster"), Slots: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	plain := wordcount(t, dir, input, filepath.Join(dir, "out"), "", 1)
	plain.Params["follow"] = "true"
	id, err := c.Scheduler.Submit(context.Background(), plain)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { st, _ := c.Scheduler.Job(context.Background(), id); return st.State == api.JobRunning })
	for _, tc := range []struct {
		id   string
		req  api.RescaleRequest
		want error
	}{
		{"nojob", api.RescaleRequest{Parallelism: 2}, api.ErrNotFound},
		{id, api.RescaleRequest{Parallelism: 2}, api.ErrConflict}, // no checkpoints
	} {
		if err := c.Scheduler.Rescale(context.Background(), tc.id, tc.req); !errors.Is(err, tc.want) {
			t.Errorf("Rescale(%s, %+v) = %v, want %v", tc.id, tc.req, err, tc.want)
		}
	}
	ck := wordcount(t, dir, input, filepath.Join(dir, "out2"), "", 1)
	ck.Params["follow"] = "true"
	ck.CheckpointInterval = time.Second
	id2, err := c.Scheduler.Submit(context.Background(), ck)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { st, _ := c.Scheduler.Job(context.Background(), id2); return st.State == api.JobRunning })
	for _, req := range []api.RescaleRequest{{Parallelism: 129}, {Operators: map[string]int{"nope": 2}}, {}} {
		if err := c.Scheduler.Rescale(context.Background(), id2, req); !errors.Is(err, api.ErrBadRequest) {
			t.Errorf("Rescale(%+v) = %v, want a bad request", req, err)
		}
	}
	// A job that is not running cannot be rescaled; the refusals above left
	// it running.
	if st, _ := c.Scheduler.Job(context.Background(), id2); st.State != api.JobRunning {
		t.Fatalf("job %s after refused rescales: %s", st.State, st.Message)
	}
	if err := c.Scheduler.Cancel(context.Background(), id2); err != nil {
		t.Fatal(err)
	}
	if err := c.Scheduler.Rescale(context.Background(), id2, api.RescaleRequest{Parallelism: 2}); !errors.Is(err, api.ErrConflict) {
		t.Errorf("rescaling a canceled job: %v", err)
	}
}
