package cluster

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/tests/nexmark"
)

// TestWinningBidsAcrossTaskManagerKill runs Nexmark q9 (auctions and bids
// from two sources, joined in a coProcess keyed by auction id with keyed
// state, pending early bids and event-time timers at each expiry) with
// checkpoints, SIGKILLs the task manager of a join subtask once a
// checkpoint has completed, and starts a fresh one. Every auction's
// winning bid is one line, so an output equal to the brute force's means
// each was committed exactly once: none lost, none repeated.
func TestWinningBidsAcrossTaskManagerKill(t *testing.T) {
	const events = 200_000
	ev, err := nexmark.Parse(nexmark.Generate(events, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	want := nexmark.Q9(ev)
	if len(want) < 1000 {
		t.Fatalf("q9 has only %d results over %d events: the test would prove little", len(want), events)
	}
	b, err := os.ReadFile(filepath.Join(repoRoot, "udfs", "nexmark", "q9.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	spec := writeSpec(t, "q9", string(b))
	c := newCluster(t, clusterConfig{taskManagers: 2, slots: 3})
	out := filepath.Join(t.TempDir(), "out")
	// 200K events at 20K/s, each source walking all of them: about 10 s
	// undisturbed.
	id := c.submit(spec, "--set", "events=200000", "--set", "rate=20000", "--set", "output="+out,
		"--checkpoint-interval", "500ms")
	c.waitCheckpointAfter(id, 0)
	time.Sleep(time.Second)
	job := c.job(id)
	last := job.Vertices[len(job.Vertices)-1]
	if !strings.Contains(last.Name, "winning-bids") {
		t.Fatalf("the last vertex is %q, want the join", last.Name)
	}
	victim := last.Subtasks[0].TaskManager
	p := c.taskManager(victim)
	t.Logf("SIGKILL %s (%s) with the job %s, attempt %d", p.name, victim, job.State, job.Attempt)
	p.kill()
	c.startTaskManager(3)
	c.wait(id, 3*time.Minute)
	if end := c.job(id); end.Attempt < 2 {
		t.Errorf("attempt %d at the end: the kill did not fail the job", end.Attempt)
	}
	var got []string
	files, _ := filepath.Glob(filepath.Join(out, "part-*"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l != "" {
				got = append(got, l)
			}
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("%d result lines, want %d; first difference: %s", len(got), len(want), firstDiff(got, want))
	}
}

// firstDiff describes the first sorted line where got and want differ.
func firstDiff(got, want []string) string {
	for i := 0; i < len(got) || i < len(want); i++ {
		g, w := "(none)", "(none)"
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return "line " + strings.TrimSpace(g) + " where the brute force has " + w
		}
	}
	return "none"
}
