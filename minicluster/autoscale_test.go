package minicluster

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
// the rate schedule 20000 → 200000 → 20000 records/s, with the autoscaler
// on. The target utilization sits between the two steps; see
// TestAutoscalerFollowsARateSchedule for how it was chosen.
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
  rate: [{for: 7s, rate: 20000}, {for: 6s, rate: 200000}, {for: 14s, rate: 20000}]
operators:
  - {type: keyBy, uid: by-key, key: "csv:0"}
  - {type: process, uid: count, module: kc, function: count}
sink: {type: file, uid: out, path: "${output}"}
checkpoints: {interval: 2s}
autoscaler: {enabled: true, targetUtilization: %g, stabilization: 3s, cooldown: 5s, interval: 1s, maxParallelism: 4}
`

// scheduleRecords is the records of the schedule above: 7 s at 20000,
// 6 s at 200000, 14 s at 20000.
const scheduleRecords = 7*20000 + 6*200000 + 14*20000

// scheduleTarget is the test's target utilization. At one subtask the
// computed parallelism is ceil(required / (true rate × target)), the
// required rate being the generator's paced rate (20000 or 200000) and the
// true rate the count subtask's records per busy second. Over runs on a
// 2-core machine at a load average of 20–28 (other tests and benchmarks
// beside it) the count subtask's true rate at 20000/s was 175K–680K, and
// 97K–98K in windows right after a rescale; in the first decision to see
// the high step (its window still mostly at the low one) it was
// 500K–840K, and 240K–740K at 2–4 subtasks in the high step. 0.2 asks for
// 1 at 20000 while the true rate is above 100K, and for at least 2 at
// 200000 while it is below 1M; the two decisions after the first to see
// the high step have more of it in their window. Back at 20000 after the
// high step, the count subtasks' own true rates are diluted by per-batch
// cost (27K–115K at 4 subtasks): the autoscaler then takes the true rate of
// the busiest window so far (autoscale.capacityRate). The first window
// of an attempt (after the deploy or a rescale) read 0.19–0.21 busy at
// 20000/s in four of the runs, where later ones mostly read 0.02–0.06:
// a cooldown of 5 s
// against a stabilization of 3 s keeps the first 2 s of each attempt out
// of every decision's window.
const scheduleTarget = 0.2

// highRate tells the steps apart in the decisions' recorded input rate.
const highRate = 100000

// TestAutoscalerFollowsARateSchedule runs the keyed count on a cluster of
// 4 slots (issue 20): the autoscaler must leave the count stage at 1 in
// the first low step, raise it within 3 decisions of the first decision
// that sees the high step, lower it after the step back down, change
// direction no more than once per step, and the committed output must
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
	sub := api.Submission{Spec: []byte(fmt.Sprintf(autoscaledCount, scheduleRecords, scheduleTarget)),
		Params: map[string]string{"output": out}, Modules: map[string][]byte{"kc": mod}}
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
	polled := make(chan []api.AutoscalerDecision, 1)
	go func() { polled <- pollDecisions(c, id, stop) }()
	st := func() api.JobStatus {
		defer close(stop) // NB: also when awaitEnd fails the test
		return awaitEnd(t, c, id)
	}()
	ds := <-polled
	for _, d := range ds {
		t.Log(decisionLine(d))
	}
	if st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	t.Logf("the count stage ran at %v", countStageParallelisms(st))
	checkExactlyOnce(t, out, generatorKeys(t, scheduleRecords))
	if pace := lowStepPace(ds); pace < minPace {
		// NB: on a machine this overloaded the count stage's busy share at
		// 20000/s is not that of a light load, and the autoscaler rightly
		// keeps more subtasks: the test's premise does not hold.
		t.Skipf("the generator read %.0f%% of its 20000/s in the low steps (median over the decisions): the machine cannot run the schedule, so the scaling is not judged", 100*pace)
	}
	checkSchedule(t, ds)
}

// minPace is the share of its paced rate the generator must read in the
// low steps for the machine to be fit to judge the scaling: a healthy run
// reads all of it, a machine at a load average of 30 on 2 cores read a
// half or less.
const minPace = 0.8

// lowStepPace is the median, over the decisions that computed something
// at the low rate, of the source's observed rate over its input rate; 1
// if there is none.
func lowStepPace(ds []api.AutoscalerDecision) float64 {
	var paces []float64
	for _, d := range ds {
		if len(d.Vertices) > 0 && d.Vertices[0].InputRate > 0 && d.Vertices[0].InputRate < highRate {
			paces = append(paces, d.Vertices[0].Observed/d.Vertices[0].InputRate)
		}
	}
	if len(paces) == 0 {
		return 1
	}
	slices.Sort(paces)
	return paces[len(paces)/2]
}

// pollDecisions gathers every decision of the job's autoscaler until stop,
// oldest first. The status keeps the decisions that changed something (at
// most 50) and only the latest of those that did not, so it is polled
// well within the decision interval (1 s) and the decisions are told apart
// by their time.
func pollDecisions(c *Cluster, id string, stop <-chan struct{}) []api.AutoscalerDecision {
	seen := map[time.Time]api.AutoscalerDecision{}
	for {
		if as, err := c.Scheduler.Autoscaler(context.Background(), id); err == nil {
			for _, d := range as.Decisions {
				if old, ok := seen[d.At]; !ok || d.Journaled && !old.Journaled {
					seen[d.At] = d
				}
			}
		}
		select {
		case <-stop:
			ds := make([]api.AutoscalerDecision, 0, len(seen))
			for _, d := range seen {
				ds = append(ds, d)
			}
			slices.SortFunc(ds, func(a, b api.AutoscalerDecision) int { return a.At.Compare(b.At) })
			return ds
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// decisionLine is a decision in one line, for a failure's diagnosis.
func decisionLine(d api.AutoscalerDecision) string {
	line := d.At.Format("15:04:05.000") + " " + d.Reason
	for _, v := range d.Vertices {
		line += fmt.Sprintf(" | %d: %d->%d (%d) in %.0f req %.0f obs %.0f true %.0f busy %.3f", v.Stage, v.Current, v.New,
			v.Computed, v.InputRate, v.Required, v.Observed, v.TrueRate, v.Busy)
	}
	return line
}

// checkSchedule checks the decisions against issue 20's requirements. The
// steps are marked by the decisions themselves: the high step starts at
// the first decision whose source reports an input rate of at least
// highRate, the low one after it at the first whose source reports less.
// A decision's move of the count stage (the last) is taken from its
// current and new parallelism, and only if it was applied.
func checkSchedule(t *testing.T, ds []api.AutoscalerDecision) {
	t.Helper()
	high, low := -1, -1
	for i, d := range ds {
		if len(d.Vertices) == 0 {
			continue
		}
		fast := d.Vertices[0].InputRate >= highRate
		switch {
		case high < 0 && fast:
			high = i
		case high >= 0 && low < 0 && !fast:
			low = i
		}
	}
	if high < 0 || low < 0 {
		t.Fatalf("the decisions saw the high step at %d and the low one after it at %d (-1: never)", high, low)
	}
	// moves are the applied moves of the count stage: +1 up, -1 down, by
	// decision.
	moves := make([]int, len(ds))
	for i, d := range ds {
		if len(d.Vertices) == 0 || strings.Contains(d.Reason, "not applied") {
			continue
		}
		v := d.Vertices[len(d.Vertices)-1]
		moves[i] = cmp.Compare(v.New, v.Current)
	}
	if i := slices.IndexFunc(moves[:high], func(m int) bool { return m != 0 }); i >= 0 {
		t.Errorf("decision %d moved the count stage before the high step (decision %d): want 1 at 20000 rec/s", i, high)
	}
	up := slices.Index(moves[high:], 1)
	if up < 0 || up >= 3 {
		t.Errorf("the count stage was raised %d decisions after the first that saw the high step (-1: never), want within 3", up)
	}
	if slices.Index(moves[low:], -1) < 0 {
		t.Errorf("the count stage was not lowered after the step back down (decision %d)", low)
	}
	// Each step allows one change of direction: the high step's up (after
	// the flat start), maybe a down within it, the low step's down.
	for _, step := range []struct {
		name     string
		from, to int
	}{{"high", high, low}, {"low", low, len(ds)}} {
		if n := directionChanges(moves[:step.to], step.from); n > 1 {
			t.Errorf("the count stage changed direction %d times in the %s step, want at most 1", n, step.name)
		}
	}
}

// directionChanges counts the changes of direction among moves (+1, -1,
// 0 for none) at from or after it, each compared with the move before it
// (which may lie before from): 0 0 1 1 -1 has one, from any from up to 4.
func directionChanges(moves []int, from int) int {
	n, dir := 0, 0
	for i, m := range moves {
		if m == 0 {
			continue
		}
		if dir != 0 && m != dir && i >= from {
			n++
		}
		dir = m
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
