package cluster

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
)

// TestPartialRescaleAcrossATaskManagerKill runs a three-stage word count
// (lines -> split -> by-word x2 | count x2 | file sink x1) on two task
// managers of a scheduler with --partial-rescale, rescales only the count
// to 4, and SIGKILLs the task manager of the first subtasks as soon as the
// job status shows the partial rescale deploying its new subtasks (or,
// when the poll misses that moment, just after the rescale): the job falls
// back to a restart from its latest completed checkpoint on the task
// managers left. The
// committed output must hold, for every word, each count 1..n exactly
// once, n being the word's true count.
func TestPartialRescaleAcrossATaskManagerKill(t *testing.T) {
	c := newCluster(t, clusterConfig{taskManagers: 2, slots: 2, schedulerArgs: []string{"--partial-rescale"}})
	in := newInput(t, 400_000, 23)
	out := filepath.Join(t.TempDir(), "out")
	b, err := os.ReadFile(filepath.Join(repoRoot, "udfs", "wordcount", "job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "  uid: out\n", "  uid: out\n  parallelism: 1\n", 1)
	spec := writeSpec(t, "partial-rescale", text+"\nrestartStrategy: {type: fixedDelay, attempts: 10, delay: 500ms}\n")
	// About 47K lines at 4K lines/s: the job runs ~12 s undisturbed.
	id := c.submit(spec, "--set", "input="+in.path, "--set", "output="+out, "--set", "rate=4000",
		"--parallelism", "2", "--checkpoint-interval", "300ms")
	c.waitCheckpointAfter(id, 0)
	job := c.job(id)
	victim := c.taskManager(job.Vertices[0].Subtasks[0].TaskManager)
	if err := c.client.Rescale(context.Background(), id, api.RescaleRequest{Operators: map[string]int{"count": 4}}); err != nil {
		t.Fatal(err)
	}
	var phase string
	err = c.poll(time.Minute, func() (bool, error) {
		job = c.job(id)
		if api.Terminal(job.State) {
			t.Fatalf("job %s while rescaling: %s", job.State, job.Message)
		}
		for _, e := range job.History {
			switch {
			case strings.Contains(e.Message, ": partial,"):
				phase = "while its new subtasks deployed"
			case strings.HasPrefix(e.Message, "rescaled to 2/4/1:"):
				phase = "just after the rescale"
			}
		}
		return phase != "", nil
	})
	if err != nil {
		t.Fatalf("no partial rescale: %v", err)
	}
	t.Logf("SIGKILL %s (%s) %s (job %s, attempt %d)", victim.name, victim.id, phase, job.State, job.Attempt)
	victim.kill()
	c.startTaskManager(2)
	c.wait(id, 4*time.Minute)
	job = c.job(id)
	if job.Attempt < 3 {
		t.Errorf("attempt %d at the end, want at least 3: the partial rescale's, then the restart's", job.Attempt)
	}
	checkEachCountOnce(t, out, in)
}
