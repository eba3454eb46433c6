package minicluster

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/floe-stream/floe/internal/wasmbuild"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/tests/nexmark"
)

// TestNexmarkBidQueries runs the Nexmark queries of issue 18's last batch
// over a source of bids alone (udfs/nexmark: q14 a filter with computed
// columns, q15 and q16 daily figures with distinct counts in a window,
// q18 and q19 the last and the top 10 bids in keyed state, emitted when
// the input ends) at parallelism 2 over 200K events, and compares every
// output line with tests/nexmark's brute force over the same events.
func TestNexmarkBidQueries(t *testing.T) {
	dir := t.TempDir()
	mod := nexmarkModule(t, dir)
	const n = 200_000
	events, err := nexmark.Parse(nexmark.Generate(n, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct {
		name string
		ref  func(*nexmark.Events) []string
		// least is the fewest reference lines for the test to prove
		// something: q15 has one line per day of event time.
		least int
	}{
		{"q14", nexmark.Q14, 10},
		{"q15", nexmark.Q15, 1},
		{"q16", nexmark.Q16, 10},
		{"q18", nexmark.Q18, 10},
		{"q19", nexmark.Q19, 10},
	} {
		t.Run(q.name, func(t *testing.T) {
			want := q.ref(events)
			if len(want) < q.least {
				t.Fatalf("the reference has %d results: the test would prove little", len(want))
			}
			spec, err := os.ReadFile(filepath.Join(root, "udfs", "nexmark", q.name+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out-"+q.name)
			st, _ := runJob(t, Config{DataDir: filepath.Join(dir, "data-"+q.name), TaskManagers: 1, Slots: 8}, api.Submission{
				Spec:    spec,
				Params:  params(nil, "events", strconv.Itoa(n), "output", out),
				Modules: map[string][]byte{"nexmark": mod},
			})
			if st.State != api.JobFinished {
				t.Fatalf("job %s: %s", st.State, st.Message)
			}
			t.Logf("%d result lines, first %q", len(want), want[0])
			checkLines(t, out, want)
		})
	}
}
