package minicluster

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/wasmbuild"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/tests/nexmark"
)

// TestNexmarkQueries runs the Nexmark examples (udfs/nexmark/*.yaml) over
// the nexmark source and compares every output line with tests/nexmark's
// brute-force results over the same generated events: q5 and q7 over 1M
// events, the others over fewer.
func TestNexmarkQueries(t *testing.T) {
	dir := t.TempDir()
	mod := nexmarkModule(t, dir)
	const most = 1_000_000
	events, err := nexmark.Parse(nexmark.Generate(most, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	small, err := nexmark.Parse(nexmark.Generate(200_000, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct {
		name   string
		events int
		want   []string
	}{
		{"q1", 200_000, nexmark.Q1(small)},
		{"q2", 200_000, nexmark.Q2(small)},
		{"q5", most, nexmark.Q5(events)},
		{"q7", most, nexmark.Q7(events)},
		{"q8", 200_000, nexmark.Q8(small)},
	} {
		t.Run(q.name, func(t *testing.T) {
			if len(q.want) == 0 {
				t.Fatal("the reference has no results: the test would prove nothing")
			}
			root, err := wasmbuild.RepoRoot()
			if err != nil {
				t.Fatal(err)
			}
			spec, err := os.ReadFile(filepath.Join(root, "udfs", "nexmark", q.name+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out-"+q.name)
			start := time.Now()
			st, _ := runJob(t, Config{DataDir: filepath.Join(dir, "data-"+q.name), TaskManagers: 1, Slots: 8}, api.Submission{
				Spec:    spec,
				Params:  map[string]string{"events": strconv.Itoa(q.events), "output": out},
				Modules: map[string][]byte{"nexmark": mod},
			})
			if st.State != api.JobFinished {
				t.Fatalf("job %s: %s", st.State, st.Message)
			}
			t.Logf("%d events in %v, %d result lines", q.events, time.Since(start).Round(time.Millisecond), len(q.want))
			want := slices.Clone(q.want)
			slices.Sort(want)
			checkLines(t, out, want)
		})
	}
}
