package minicluster

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/wasmbuild"
	"github.com/floe-stream/floe/scheduler/api"
)

// skewedCount is a keyed count of a file read at a modest rate in which
// the key "hot" has every other line and the rest spread over 997 keys.
// The count stage starts at (and cannot go under) 2, since at 1 there is no
// other subtask to compare the busiest with. The busiest subtask holds
// about 3/4 of the records, the hot share of which is about 1/2, so skew
// limits the stage once its busy share is over 1.5 × the target, 0.0075.
// On a loaded 2-core machine the busiest count subtask read 0.015–0.13
// busy at this rate (per-batch costs dominate such light loads:
// docs/autoscaling.md), at least twice that.
const skewedCount = `name: skewed-count
parallelism: 2
maxParallelism: 16
modules: {kc: keyedcount.wasm}
source: {type: file, uid: in, path: "${input}", rate: %d}
operators:
  - {type: keyBy, uid: by-key, key: "csv:0"}
  - {type: process, uid: count, module: kc, function: count}
sink: {type: file, uid: out, path: "${output}"}
checkpoints: {interval: 2s}
autoscaler: {enabled: true, targetUtilization: %g, stabilization: 3s, cooldown: 2s, interval: 1s,
             minParallelism: 2, maxParallelism: 4, maxScaleUpFactor: 2}
`

const (
	skewRate   = 10_000
	skewLines  = 20 * skewRate // 20 s at the rate
	skewTarget = 0.005
)

// writeSkewedInput writes the input and returns each key's count.
func writeSkewedInput(t *testing.T, path string) map[string]int64 {
	t.Helper()
	var b strings.Builder
	want := map[string]int64{}
	for i := range skewLines {
		key := "hot"
		if i%2 == 1 {
			key = fmt.Sprintf("k%03d", i/2%997)
		}
		want[key]++
		fmt.Fprintf(&b, "%s,%d\n", key, i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return want
}

// TestAutoscalerReportsSkewAndScalesOnlyForTheRest runs the skewed count
// with the autoscaler on: its decisions must find the count stage's hot
// share near 1/2, say skew limits it, never lower it while skewed, and
// choose no more than the splittable half of the load needs — less than a
// skew-blind FLIP-271 rule would. The output must be exactly once.
func TestAutoscalerReportsSkewAndScalesOnlyForTheRest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for about 45 s")
	}
	dir := t.TempDir()
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	wasm, err := wasmbuild.Go(filepath.Join(root, "udfs", "keyedcount"), dir)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	in, out := filepath.Join(dir, "in.csv"), filepath.Join(dir, "out")
	want := writeSkewedInput(t, in)
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 2, Slots: 2,
		HeartbeatTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Scheduler.Submit(context.Background(), api.Submission{Spec: []byte(fmt.Sprintf(skewedCount, skewRate, skewTarget)),
		Params: map[string]string{"input": in, "output": out}, Modules: map[string][]byte{"kc": mod}})
	if err != nil {
		t.Fatal(err)
	}
	decisions := collectDecisions(t, c, id)
	var skewed int
	for _, d := range decisions {
		for _, v := range d.Vertices {
			// NB: only the count stage is checked. The source stage reads
			// one file, so one of its subtasks has every record and it too
			// reads as skewed; and a file source's wait for its rate counts
			// as busy (only the generator reports it as throttled), so it
			// reads 0.999 busy and is raised to the maximum for nothing.
			if v.Skewed && strings.Contains(v.Name, "count") {
				skewed++
				checkSkewedVertex(t, d, v)
			}
		}
	}
	if skewed == 0 {
		t.Errorf("no decision found the count stage skewed in %d decisions: %+v", len(decisions), decisions)
	}
	checkExactlyOnce(t, out, want)
}

// collectDecisions polls the job's autoscaler until the job ends and
// returns every distinct decision seen (the latest no-change decision is
// replaced by the next, so polling keeps them).
func collectDecisions(t *testing.T, c *Cluster, id string) []api.AutoscalerDecision {
	t.Helper()
	seen := map[time.Time]api.AutoscalerDecision{}
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		if as, err := c.Scheduler.Autoscaler(context.Background(), id); err == nil {
			for _, d := range as.Decisions {
				seen[d.At] = d
			}
		}
		st, err := c.Scheduler.Job(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if api.Terminal(st.State) {
			if st.State != api.JobFinished {
				t.Fatalf("job %s: %s", st.State, st.Message)
			}
			var out []api.AutoscalerDecision
			for _, d := range seen {
				out = append(out, d)
			}
			return out
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatal("the job did not end within 3 minutes")
	return nil
}

// checkSkewedVertex checks one stage of a decision that skew limited.
func checkSkewedVertex(t *testing.T, d api.AutoscalerDecision, v api.AutoscalerVertex) {
	t.Helper()
	if !strings.Contains(d.Reason, fmt.Sprintf("skew limits vertex %d", v.Stage)) {
		t.Errorf("stage %d skewed but the reason does not say so: %q", v.Stage, d.Reason)
	}
	if v.HotShare < 0.3 || v.HotShare > 0.7 {
		t.Errorf("stage %d: hot share %.2f, want about 0.5 (one key has half the records)", v.Stage, v.HotShare)
	}
	if v.New < v.Current {
		t.Errorf("stage %d lowered from %d to %d while skewed: fewer subtasks only load the hot one more", v.Stage, v.Current, v.New)
	}
	capacity := v.TrueRate * skewTarget
	rest := int(math.Ceil(v.Required*(1-v.HotShare)/capacity - 1e-9))
	blind := int(math.Ceil(v.Required/capacity - 1e-9))
	if v.Computed > max(v.Current, rest) {
		t.Errorf("stage %d computed %d, more than the splittable rest needs (%d) or the current %d: %+v", v.Stage, v.Computed, rest, v.Current, v)
	}
	if blind > v.Current+1 && v.Computed >= blind {
		t.Errorf("stage %d computed %d, as much as a skew-blind rule (%d): %+v", v.Stage, v.Computed, blind, v)
	}
	t.Logf("stage %d: %d -> computed %d, new %d; hot %.2f, busy %.3f; the rest needs %d, skew-blind %d", v.Stage, v.Current, v.Computed, v.New,
		v.HotShare, v.Busy, rest, blind)
}
