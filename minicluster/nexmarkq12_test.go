package minicluster

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/floe-stream/floe/internal/wasmbuild"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/tests/nexmark"
)

// TestNexmarkQ12 runs udfs/nexmark/q12.yaml, bids per bidder in
// processing-time tumbling windows, paced so that the run spans several
// windows of 1 s, at parallelism 2. Processing time decides which window a
// bid lands in, so the check is on content, not timing: each bidder's
// counts sum to its bids in the brute force (every bid counted once,
// the windows still open at the end of the input included), and every
// window is aligned to its size.
func TestNexmarkQ12(t *testing.T) {
	dir := t.TempDir()
	mod := nexmarkModule(t, dir)
	const n = 40_000
	events, err := nexmark.Parse(nexmark.Generate(n, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	spec, err := os.ReadFile(filepath.Join(root, "udfs", "nexmark", "q12.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	st, _ := runJob(t, Config{DataDir: filepath.Join(dir, "data"), TaskManagers: 1, Slots: 8}, api.Submission{
		Spec:    spec,
		Params:  map[string]string{"events": "40000", "rate": "20000", "window": "1s", "output": out},
		Modules: map[string][]byte{"nexmark": mod},
	})
	if st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	windows, err := nexmark.CheckQ12(readLines(t, out), nexmark.Q12Totals(events), 1000)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bids of %d bidders in %d windows", len(events.Bids), len(nexmark.Q12Totals(events)), windows)
}
