package minicluster

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/wasmbuild"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/tests/nexmark"
)

// TestWinningBidsRescaleWhileRunning rescales Nexmark q9 from 2 to 3
// subtasks while it runs: the open auctions, their best bids, the early
// bids and the timers of the join move by key group to subtasks that read
// two sources, and the sources' splits move too. Every auction's winner is
// one line, so an output equal to the brute force's is exactly once.
func TestWinningBidsRescaleWhileRunning(t *testing.T) {
	dir := t.TempDir()
	mod := nexmarkModule(t, dir)
	const n = 200_000
	ev, err := nexmark.Parse(nexmark.Generate(n, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	want := nexmark.Q9(ev)
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	spec, err := os.ReadFile(filepath.Join(root, "udfs", "nexmark", "q9.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	// 200K events at 20K/s: about 10 s, so that the rescale comes before
	// the sources end even on a busy machine.
	sub := api.Submission{
		Spec:               spec,
		Params:             map[string]string{"events": "200000", "rate": "20000", "output": out},
		Modules:            map[string][]byte{"nexmark": mod},
		CheckpointInterval: 200 * time.Millisecond,
	}
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 2, Slots: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Scheduler.Submit(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	rescaleMidJob(t, c, id, 3, "3/3/3")
	checkLines(t, out, want)
}
