package minicluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/generator"
	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/internal/wasmbuild"
	"github.com/floe-stream/floe/scheduler/api"
)

// autoscaledCount is a keyed count of a random generator's records under
// a rate schedule low → high → low, with the autoscaler on. What is
// tested is the wiring (heartbeats in, rescales out, exactly once
// throughout), so the steps are far apart and the target sits between
// them. At one subtask, the computed parallelism is about the busiest
// subtask's busy share over the target. Over several runs on a loaded
// 2-core machine the count subtask was 0.12–0.5 busy in the high step
// (the generator reaching 150K–200K/s) and 0.01–0.05 in the low ones,
// where per-batch costs dominate: a target of 0.08 asks for at least 2 in
// the high step and 1 in the low ones, with a margin of 1.5 each side.
const autoscaledCount = `name: autoscaled-count
maxParallelism: 16
modules: {kc: keyedcount.wasm}
source:
  type: generator
  uid: gen
  kind: random
  keys: 64
  size: 16
  count: %d
  rate: [{for: 4s, rate: 50}, {for: 6s, rate: 200000}, {for: 20s, rate: 50}]
operators:
  - {type: keyBy, uid: by-key, key: "csv:0"}
  - {type: process, uid: count, module: kc, function: count}
sink: {type: file, uid: out, path: "${output}"}
checkpoints: {interval: 2s}
autoscaler: {enabled: true, targetUtilization: 0.08, stabilization: 3s, cooldown: 2s, interval: 1s, maxParallelism: 4}
`

// scheduleRecords is the records of the schedule above: 4 s at 50, 6 s
// at 200000, 20 s at 50.
const scheduleRecords = 4*50 + 6*200000 + 20*50

// TestAutoscalerFollowsARateSchedule runs the keyed count on a cluster of
// 4 slots: the autoscaler must raise the count stage's parallelism during
// the high step and lower it again after, and the committed output must
// hold each key's counts 1..n exactly once across the rescales.
func TestAutoscalerFollowsARateSchedule(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for about 40 s")
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
	out := filepath.Join(dir, "out")
	sub := api.Submission{Spec: []byte(fmt.Sprintf(autoscaledCount, scheduleRecords)), Params: map[string]string{"output": out},
		Modules: map[string][]byte{"kc": mod}}
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 2, Slots: 2,
		HeartbeatTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Scheduler.Submit(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	logged := make(chan struct{})
	go func() { // NB: a log of the decisions, for a failure's diagnosis
		defer close(logged)
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Second):
			}
			if as, err := c.Scheduler.Autoscaler(context.Background(), id); err == nil && len(as.Decisions) > 0 {
				d := as.Decisions[0]
				line := d.Reason
				for _, v := range d.Vertices {
					line += fmt.Sprintf(" | %d: %d->%d req %.0f true %.0f busy %.2f", v.Stage, v.Current, v.New, v.Required, v.TrueRate, v.Busy)
				}
				t.Log(line)
			}
		}
	}()
	st := awaitEnd(t, c, id)
	close(stop)
	<-logged
	if st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	counts := countStageParallelisms(st)
	t.Logf("the count stage ran at %v", counts)
	peak := 0
	for _, p := range counts {
		peak = max(peak, p)
	}
	if peak < 2 || counts[len(counts)-1] >= peak {
		t.Errorf("the count stage ran at %v: want it raised during the high step and lowered after", counts)
	}
	// Two steps, so at most two changes of direction (up, then down).
	if n := directionChanges(counts); n > 2 {
		t.Errorf("the count stage ran at %v: %d changes of direction, want at most 2", counts, n)
	}
	as, err := c.Scheduler.Autoscaler(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if as.Rescales < 2 {
		t.Errorf("%d rescales by the autoscaler, want at least 2: %+v", as.Rescales, as.Decisions)
	}
	checkExactlyOnce(t, out, generatorKeys(t, scheduleRecords))
}

// directionChanges counts the changes of direction of a sequence, from
// the flat start on: 1 2 4 2 1 has one.
func directionChanges(pars []int) int {
	n, dir := 0, 0
	for i := 1; i < len(pars); i++ {
		d := pars[i] - pars[i-1]
		if d == 0 {
			continue
		}
		if d > 0 != (dir > 0) && dir != 0 {
			n++
		}
		dir = d
	}
	return n
}

// rescaledRe matches the history's report of a finished rescale.
var rescaledRe = regexp.MustCompile(`^rescaled to ([0-9/]+):`)

// countStageParallelisms returns the count stage's parallelism at the
// start and after every rescale, from the job's history.
func countStageParallelisms(st api.JobStatus) []int {
	pars := []int{1}
	for _, e := range st.History {
		m := rescaledRe.FindStringSubmatch(e.Message)
		if m == nil {
			continue
		}
		stages := strings.Split(m[1], "/")
		n, _ := strconv.Atoi(stages[len(stages)-1])
		pars = append(pars, n)
	}
	return pars
}

// generatorKeys counts the records per key that the job's generator
// emits in all: its one split at parallelism 1, which keeps its stream
// wherever it is restored.
func generatorKeys(t *testing.T, count int64) map[string]int64 {
	t.Helper()
	src, err := generator.NewSource(generator.Config{Count: count, Kind: generator.KindRandom, Keys: 64, Size: 16},
		connector.SplitInfo{Subtask: 0, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{}
	var b record.Batch
	for {
		b.Reset()
		err := src.Next(context.Background(), &b, 1024)
		for i := range b.Len() {
			key, _, _ := strings.Cut(string(b.Records[i].Value), ",")
			want[key]++
		}
		if errors.Is(err, io.EOF) {
			return want
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
