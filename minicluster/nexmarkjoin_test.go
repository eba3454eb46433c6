package minicluster

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/wasmbuild"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/tests/nexmark"
)

// TestNexmarkJoinQueries runs the Nexmark queries that read persons,
// auctions and bids as separate sources (udfs/nexmark: q3, q4, q6, q9 and
// q20 join two of them in a coProcess, q13 joins bids with a bounded side
// input file written here; q0, q11, q17, q21 and q22 read bids alone) at
// parallelism 2 over 200K events (q4 reads its averages every second, not
// every 10 s, for more lines), and compares every output line with
// tests/nexmark's brute force over the same events.
func TestNexmarkJoinQueries(t *testing.T) {
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
	q4 := func(e *nexmark.Events) []string { return nexmark.Q4Every(e, 1000) }
	// q13's side input: two keys in three of 0 to 9999, each with a value.
	side := map[int64]string{}
	var sideLines []byte
	for k := range int64(nexmark.Q13Keys) {
		if k%3 != 0 {
			side[k] = fmt.Sprintf("v%d", k*7)
			sideLines = fmt.Appendf(sideLines, "%d,%s\n", k, side[k])
		}
	}
	sidePath := filepath.Join(dir, "side.txt")
	if err := os.WriteFile(sidePath, sideLines, 0o644); err != nil {
		t.Fatal(err)
	}
	q13 := func(e *nexmark.Events) []string { return nexmark.Q13(e, side) }
	for _, q := range []struct {
		name   string
		ref    func(*nexmark.Events) []string
		events *nexmark.Events
		n      int
		params map[string]string
	}{
		{"q0", nexmark.Q0, events, n, nil},
		{"q3", nexmark.Q3, events, n, nil},
		{"q4", q4, events, n, map[string]string{"window_ms": "1000"}},
		{"q6", nexmark.Q6, events, n, nil},
		{"q9", nexmark.Q9, events, n, nil},
		{"q11", nexmark.Q11, events, n, nil},
		{"q13", q13, events, n, map[string]string{"side": sidePath}},
		{"q17", nexmark.Q17, events, n, nil},
		{"q21", nexmark.Q21, events, n, nil},
		{"q22", nexmark.Q22, events, n, nil},
		{"q20", nexmark.Q20, events, n, nil},
	} {
		t.Run(q.name, func(t *testing.T) {
			want := q.ref(q.events)
			if len(want) < 10 {
				t.Fatalf("the reference has %d results: the test would prove little", len(want))
			}
			spec, err := os.ReadFile(filepath.Join(root, "udfs", "nexmark", q.name+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out-"+q.name)
			start := time.Now()
			st, _ := runJob(t, Config{DataDir: filepath.Join(dir, "data-"+q.name), TaskManagers: 1, Slots: 8}, api.Submission{
				Spec:    spec,
				Params:  params(q.params, "events", strconv.Itoa(q.n), "output", out),
				Modules: map[string][]byte{"nexmark": mod},
			})
			if st.State != api.JobFinished {
				t.Fatalf("job %s: %s", st.State, st.Message)
			}
			t.Logf("%d events in %v, %d result lines", q.n, time.Since(start).Round(time.Millisecond), len(want))
			checkLines(t, out, want)
		})
	}
}

// params returns p with the name-value pairs kv added.
func params(p map[string]string, kv ...string) map[string]string {
	out := maps.Clone(p)
	if out == nil {
		out = map[string]string{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}
