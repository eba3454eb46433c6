package minicluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/tests/textgen"
)

// TestPartialRescaleKeepsTheOtherStagesRunning rescales only the count of
// a three-stage word count (lines -> split -> by-word x2 | count x2 | file
// sink x1) to 4 while it runs, with partial rescales on, on two task
// managers (the suspend barrier crosses the network). The source and
// sink stages keep their tasks: their subtasks stay in attempt 1, the job
// spends no restart, and the sink's records-in counter, which a new task
// would start from 0, ends at the number of words (one count update per
// word), as does the source stage's records out. The committed output
// holds each count 1..n exactly once per word.
func TestPartialRescaleKeepsTheOtherStagesRunning(t *testing.T) {
	dir := t.TempDir()
	var text bytes.Buffer
	if err := textgen.Write(&text, 150_000, 7); err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(dir, "input.txt")
	if err := os.WriteFile(input, text.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	want := textgen.Count(text.Bytes())
	var words int64
	for _, n := range want {
		words += n
	}
	out := filepath.Join(dir, "out")
	sub := wordcount(t, dir, input, out, "", 2)
	sub.Spec = bytes.Replace(sub.Spec, []byte("  uid: out\n"), []byte("  uid: out\n  parallelism: 1\n"), 1)
	// ~17K lines at 2.5K lines/s: about 7 s of input.
	sub.Params["rate"] = "2500"
	sub.CheckpointInterval = 200 * time.Millisecond
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 2, Slots: 2, PartialRescale: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Scheduler.Submit(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return countStatuses(t, c, id)[api.CheckpointCompleted] >= 1 })
	if st, _ := c.Scheduler.Job(context.Background(), id); parallelismsOf(st) != "2/2/1" {
		t.Fatalf("the job runs at %s, want 2/2/1", parallelismsOf(st))
	}
	if err := c.Scheduler.Rescale(context.Background(), id, api.RescaleRequest{Operators: map[string]int{"count": 4}}); err != nil {
		t.Fatal(err)
	}
	t.Log(rescaledTo(t, c, id, "2/4/1", want))
	st, _ := c.Scheduler.Job(context.Background(), id)
	partial := false
	for _, e := range st.History {
		partial = partial || strings.Contains(e.Message, "from checkpoint") && strings.Contains(e.Message, ": partial,")
	}
	if !partial {
		t.Errorf("no partial rescale in the history: %+v", st.History)
	}
	for si, wantAttempt := range []int{1, 2, 1} {
		for _, s := range st.Vertices[si].Subtasks {
			if s.Attempt != wantAttempt {
				t.Errorf("stage %d subtask %d runs in attempt %d, want %d", si, s.Subtask, s.Attempt, wantAttempt)
			}
		}
	}
	waitFor(t, func() bool {
		st, _ = c.Scheduler.Job(context.Background(), id)
		return api.Terminal(st.State)
	})
	if st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	for _, e := range st.History {
		if e.State == api.JobRestarting || e.State == api.JobWaiting && e.Time.After(st.History[0].Time) && strings.Contains(e.Message, "rescal") {
			t.Errorf("the rescale stopped the job: %s %s", e.State, e.Message)
		}
	}
	if got := st.Vertices[0].RecordsOut; got != words {
		t.Errorf("the source stage sent %d words, want %d", got, words)
	}
	if got := st.Vertices[2].RecordsIn; got != words {
		t.Errorf("the sink read %d count updates, want %d (one per word)", got, words)
	}
	checkExactlyOnce(t, out, want)
}

// parallelismsOf renders a job's stages' parallelism, e.g. "2/4/1".
func parallelismsOf(st api.JobStatus) string {
	var s []string
	for _, v := range st.Vertices {
		s = append(s, fmt.Sprint(v.Parallelism))
	}
	return strings.Join(s, "/")
}

// TestPartialRescaleKeepsStateQueryable queries every word's count of a
// followed word count (lines -> split x2 | count x2 | out x1) through two
// partial rescales: the sink alone to 3, which keeps the count's tasks
// running, then the count to 4, which redeploys them from the suspend
// checkpoint. After each, and after more text is appended, the counts
// answered are the test's own counts of the text, for every word.
func TestPartialRescaleKeepsStateQueryable(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "input.txt")
	var all bytes.Buffer
	if err := textgen.Write(&all, 20_000, 21); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(input, all.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := wordcount(t, dir, input, filepath.Join(dir, "out"), "", 2)
	sub.Spec = bytes.Replace(sub.Spec, []byte("  uid: out\n"), []byte("  uid: out\n  parallelism: 1\n"), 1)
	sub.Params["follow"] = "true"
	sub.CheckpointInterval = 200 * time.Millisecond
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 2, Slots: 2, PartialRescale: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Scheduler.Submit(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	appendText := func(words int, seed uint64) {
		t.Helper()
		var more bytes.Buffer
		if err := textgen.Write(&more, words, seed); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(input, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.Write(more.Bytes()); err != nil {
			t.Fatal(err)
		}
		all.Write(more.Bytes())
	}
	queryAll(t, c, id, textgen.Count(all.Bytes()))

	for _, step := range []struct {
		op       string
		par      int
		pars     string
		attempts []int // of each stage's subtasks after the rescale
	}{
		{"out", 3, "2/2/3", []int{1, 1, 2}},
		{"count", 4, "2/4/3", []int{1, 3, 2}},
	} {
		if err := c.Scheduler.Rescale(context.Background(), id, api.RescaleRequest{Operators: map[string]int{step.op: step.par}}); err != nil {
			t.Fatal(err)
		}
		want := textgen.Count(all.Bytes())
		t.Log(rescaledTo(t, c, id, step.pars, want))
		st, _ := c.Scheduler.Job(context.Background(), id)
		for si, wantAttempt := range step.attempts {
			for _, s := range st.Vertices[si].Subtasks {
				if s.Attempt != wantAttempt {
					t.Fatalf("after rescaling %s: stage %d subtask %d runs in attempt %d, want %d (not a partial rescale?)",
						step.op, si, s.Subtask, s.Attempt, wantAttempt)
				}
			}
		}
		queryAll(t, c, id, want)
		appendText(10_000, uint64(step.par))
		queryAll(t, c, id, textgen.Count(all.Bytes()))
	}
}

// queryAll waits until querying job id's "counts" for every word of want
// answers want's counts. An answer above a word's count fails at once.
func queryAll(t *testing.T, c *Cluster, id string, want map[string]int64) {
	t.Helper()
	words := make([][]byte, 0, len(want)+1)
	for w := range want {
		words = append(words, []byte(w))
	}
	words = append(words, []byte("no-such-word"))
	var diff string
	deadline := time.Now().Add(2 * time.Minute)
	for {
		got, err := c.Scheduler.QueryState(context.Background(), id, "counts", words)
		switch {
		case errors.Is(err, api.ErrUnavailable):
			diff = err.Error()
		case err != nil:
			t.Fatalf("query: %v", err)
		default:
			diff = ""
			for i, w := range words {
				n, _ := got[i].Value.(int64)
				if n > want[string(w)] || got[i].Found && want[string(w)] == 0 {
					t.Fatalf("%q = %d (found %v), above its %d occurrences", w, n, got[i].Found, want[string(w)])
				}
				if n != want[string(w)] && diff == "" {
					diff = fmt.Sprintf("%q = %d, want %d", w, n, want[string(w)])
				}
			}
			if diff == "" {
				return
			}
		}
		if time.Now().After(deadline) {
			st, _ := c.Scheduler.Job(context.Background(), id)
			t.Fatalf("queried counts not the text's within 2 minutes: %s\njob %s: %s; history: %+v", diff, st.State, st.Message, st.History)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
