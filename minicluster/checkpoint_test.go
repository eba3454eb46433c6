package minicluster

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/tests/textgen"
)

// allCounts reads the committed "word,count" lines and returns, per word,
// every count seen.
func allCounts(t *testing.T, dir string) map[string][]int64 {
	t.Helper()
	got, _, err := textgen.ReadCounts(dir)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// checkExactlyOnce checks that for every word the committed output holds
// each count 1..n exactly once, n being the word's true count.
func checkExactlyOnce(t *testing.T, out string, want map[string]int64) {
	t.Helper()
	got := allCounts(t, out)
	bad := 0
	for w, n := range want {
		seen := make([]int, n+1)
		for _, c := range got[w] {
			if c < 1 || c > n {
				seen[0]++
				continue
			}
			seen[c]++
		}
		for c := int64(1); c <= n; c++ {
			if seen[c] != 1 && bad < 10 {
				t.Errorf("word %q: count %d appears %d times (true count %d)", w, c, seen[c], n)
				bad++
			}
		}
		if seen[0] > 0 && bad < 10 {
			t.Errorf("word %q: %d counts outside 1..%d", w, seen[0], n)
			bad++
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d words in the output, want %d", len(got), len(want))
	}
}

func TestCheckpointedWordCountSurvivesALostTaskManager(t *testing.T) {
	dir := t.TempDir()
	var text bytes.Buffer
	if err := textgen.Write(&text, 200_000, 9); err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(dir, "input.txt")
	if err := os.WriteFile(input, text.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	want := textgen.Count(text.Bytes())
	out := filepath.Join(dir, "out")
	// ~23K lines at 8K lines/s: the job runs about 3 s.
	sub := wordcount(t, dir, input, out, "\nrestartStrategy: {type: fixedDelay, attempts: 3, delay: 200ms}\n", 2)
	sub.Params["rate"] = "8000"
	sub.CheckpointInterval = 200 * time.Millisecond
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 2, Slots: 2,
		HeartbeatTimeout: 2 * time.Second, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Scheduler.Submit(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	// Lose a task manager that runs part of the job, after two completed
	// checkpoints.
	loseTaskManagerMidJob(t, c, id, 1)
	checkExactlyOnce(t, out, want)
	hidden, _ := filepath.Glob(filepath.Join(out, ".part-*"))
	if len(hidden) > 0 {
		t.Errorf("uncommitted files left: %v", hidden)
	}
}

// loseTaskManagerMidJob waits for two completed checkpoints of job id,
// stops the task manager that runs subtask 0 of vertex, and waits for the
// job to end. It fails the test unless the job finished in a later attempt
// that restored a checkpoint.
func loseTaskManagerMidJob(t *testing.T, c *Cluster, id string, vertex int) {
	t.Helper()
	waitFor(t, func() bool { return countStatuses(t, c, id)[api.CheckpointCompleted] >= 2 })
	st, _ := c.Scheduler.Job(context.Background(), id)
	victim := st.Vertices[vertex].Subtasks[0].TaskManager
	c.StopTaskManager(map[string]int{"tm-1": 0, "tm-2": 1}[victim])
	waitFor(t, func() bool {
		st, _ = c.Scheduler.Job(context.Background(), id)
		return api.Terminal(st.State)
	})
	if st.State != api.JobFinished || st.Attempt < 2 {
		t.Fatalf("job %s after %d attempts: %s", st.State, st.Attempt, st.Message)
	}
	restored := false
	for _, e := range st.History {
		restored = restored || strings.Contains(e.Message, "restoring checkpoint")
	}
	if !restored {
		t.Errorf("no restore in the history: %+v", st.History)
	}
}

// rescaleMidJob waits for a completed checkpoint of job id, rescales it to
// parallelism and waits for the job to end. It fails the test unless the
// job finished, and has the history say "rescaled to " + to (the stages'
// new parallelisms, such as "3/1/3": a stage whose spec sets its own keeps
// it).
func rescaleMidJob(t *testing.T, c *Cluster, id string, parallelism int, to string) {
	t.Helper()
	waitFor(t, func() bool { return countStatuses(t, c, id)[api.CheckpointCompleted] >= 1 })
	if err := c.Scheduler.Rescale(context.Background(), id, api.RescaleRequest{Parallelism: parallelism}); err != nil {
		t.Fatal(err)
	}
	var st api.JobStatus
	waitFor(t, func() bool {
		st, _ = c.Scheduler.Job(context.Background(), id)
		return api.Terminal(st.State)
	})
	if st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	for _, e := range st.History {
		if strings.HasPrefix(e.Message, "rescaled to "+to+":") {
			return
		}
	}
	t.Errorf("no rescale to %s in the history: %+v", to, st.History)
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(fmt.Errorf("condition not met within 2 minutes"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
