package minicluster

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/wasmbuild"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/tests/textgen"
)

// graphSpec is a dataflow graph: three file sources, unioned, split into
// words, keyed by word and counted, with the counts fanned out to two file
// sinks. Source c has parallelism 1, so the union reads it over a
// rebalance edge and the others over forward edges.
const graphSpec = `
name: graph-wordcount
parallelism: 2
params:
  rate: "0"
modules:
  wordcount: wordcount.wasm
sources:
  - {type: file, uid: a, path: "${dir}/a.txt", rate: "${rate}"}
  - {type: file, uid: b, path: "${dir}/b.txt", rate: "${rate}"}
  - {type: file, uid: c, path: "${dir}/c.txt", parallelism: 1}
operators:
  - {type: union, uid: all, inputs: [a, b, c]}
  - {type: flatMap, uid: split, module: wordcount, function: split}
  - {type: keyBy, uid: by-word, key: value}
  - {type: process, uid: count, module: wordcount, function: count}
sinks:
  - {type: file, uid: out1, path: "${dir}/out1"}
  - {type: file, uid: out2, path: "${dir}/out2"}
`

// keyedUnionSpec splits each source in a stage of its own and keys each
// stream by its own keyBy before the union: the counter reads two hash
// edges, each keyed at the end of its sender's stage, and the union of
// the third, unsplit source is split and keyed on the way.
const keyedUnionSpec = `
name: keyed-union
parallelism: 2
modules:
  wordcount: wordcount.wasm
sources:
  - {type: file, uid: a, path: "${dir}/a.txt"}
  - {type: file, uid: b, path: "${dir}/b.txt", parallelism: 3}
  - {type: file, uid: c, path: "${dir}/c.txt", parallelism: 1}
operators:
  - {type: flatMap, uid: split-a, module: wordcount, function: split, input: a}
  - {type: keyBy, uid: by-word-a, key: value}
  - {type: flatMap, uid: split-bc, module: wordcount, function: split, inputs: [bc]}
  - {type: union, uid: bc, inputs: [b, c]}
  - {type: keyBy, uid: by-word-bc, key: value, input: split-bc}
  - {type: union, uid: all, inputs: [by-word-a, by-word-bc]}
  - {type: process, uid: count, module: wordcount, function: count}
sinks:
  - {type: file, uid: out1, path: "${dir}/out1"}
  - {type: file, uid: out2, path: "${dir}/out2", parallelism: 1}
`

// graphJob writes the three inputs, a words each (c ends long before the
// others), and returns the submission of graphSpec over them with the
// true count of every word of all three.
func graphJob(t *testing.T, dir string, words int) (api.Submission, map[string]int64) {
	t.Helper()
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	wasm, err := wasmbuild.Go(filepath.Join(root, "udfs", "wordcount"), dir)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{}
	for i, in := range []struct {
		name  string
		words int
	}{{"a", words}, {"b", words * 3 / 4}, {"c", words / 10}} {
		var text bytes.Buffer
		if err := textgen.Write(&text, in.words, uint64(11+i)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, in.name+".txt"), text.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		for w, n := range textgen.Count(text.Bytes()) {
			want[w] += n
		}
	}
	sub := api.Submission{
		Spec:    []byte(graphSpec),
		Params:  map[string]string{"dir": dir},
		Modules: map[string][]byte{"wordcount": mod},
	}
	return sub, want
}

// checkBothSinks checks that each sink's committed output holds every
// count of every word exactly once.
func checkBothSinks(t *testing.T, dir string, want map[string]int64) {
	t.Helper()
	for _, out := range []string{"out1", "out2"} {
		t.Run(out, func(t *testing.T) {
			checkExactlyOnce(t, filepath.Join(dir, out), want)
			if hidden, _ := filepath.Glob(filepath.Join(dir, out, ".part-*")); len(hidden) > 0 {
				t.Errorf("uncommitted files left: %v", hidden)
			}
		})
	}
}

func TestGraphUnionAndFanOutCountEveryWordOnce(t *testing.T) {
	dir := t.TempDir()
	sub, want := graphJob(t, dir, 100_000)
	sub.CheckpointInterval = 100 * time.Millisecond
	st, _ := runJob(t, Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 1, Slots: 2}, sub)
	if st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	var names []string
	for _, v := range st.Vertices {
		names = append(names, fmt.Sprintf("%s x%d", v.Name, v.Parallelism))
	}
	if got, wantNames := strings.Join(names, "; "), "a x2; b x2; c x1; split -> by-word x2; count x2; out1 x2; out2 x2"; got != wantNames {
		t.Errorf("stages %q, want %q", got, wantNames)
	}
	if got, want := fmt.Sprint(st.Vertices[3].Inputs), "[{0 forward} {1 forward} {2 rebalance}]"; got != want {
		t.Errorf("the union's reader reads %s, want %s", got, want)
	}
	checkBothSinks(t, dir, want)
}

func TestGraphKeyedUnionCountsEveryWordOnce(t *testing.T) {
	dir := t.TempDir()
	sub, want := graphJob(t, dir, 50_000)
	sub.Spec = []byte(keyedUnionSpec)
	sub.CheckpointInterval = 100 * time.Millisecond
	st, _ := runJob(t, Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 2, Slots: 2}, sub)
	if st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	var names []string
	for _, v := range st.Vertices {
		names = append(names, fmt.Sprintf("%s x%d %v", v.Name, v.Parallelism, v.Inputs))
	}
	wantNames := "a -> split-a -> by-word-a x2 []; b x3 []; c x1 []; split-bc -> by-word-bc x2 [{1 rebalance} {2 rebalance}]; " +
		"count x2 [{0 hash} {3 hash}]; out1 x2 [{4 forward}]; out2 x1 [{4 rebalance}]"
	if got := strings.Join(names, "; "); got != wantNames {
		t.Errorf("stages %q\nwant   %q", got, wantNames)
	}
	checkBothSinks(t, dir, want)
}

func TestGraphSurvivesALostTaskManagerExactlyOnce(t *testing.T) {
	dir := t.TempDir()
	sub, want := graphJob(t, dir, 120_000)
	// a and b have ~14K and ~10K lines at 4K lines/s each: the job runs
	// about 3 s; c, unthrottled, ends at once, and checkpoints go on
	// without it.
	sub.Params["rate"] = "4000"
	sub.Spec = append(sub.Spec, "\nrestartStrategy: {type: fixedDelay, attempts: 3, delay: 200ms}\n"...)
	sub.CheckpointInterval = 200 * time.Millisecond
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 2, Slots: 2,
		HeartbeatTimeout: 2 * time.Second, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Scheduler.Submit(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	loseTaskManagerMidJob(t, c, id, 3)
	checkBothSinks(t, dir, want)
}

// TestGraphRescaleWhileRunningCountsEveryWordOnce rescales the graph job
// 2 -> 3 while it runs: the counter's state moves by key group between
// subtasks that read three upstream stages, and both sinks still hold
// every count exactly once.
func TestGraphRescaleWhileRunningCountsEveryWordOnce(t *testing.T) {
	dir := t.TempDir()
	sub, want := graphJob(t, dir, 120_000)
	// a has ~14K lines at 2K lines/s: about 7 s of input, so that the
	// rescale comes before the sources end even on a busy machine.
	sub.Params["rate"] = "2000"
	sub.CheckpointInterval = 200 * time.Millisecond
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 2, Slots: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Scheduler.Submit(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return countStatuses(t, c, id)[api.CheckpointCompleted] >= 1 })
	if err := c.Scheduler.Rescale(context.Background(), id, api.RescaleRequest{Parallelism: 3}); err != nil {
		t.Fatal(err)
	}
	// c keeps the parallelism its spec gives it.
	t.Log(rescaledTo(t, c, id, "3/3/1/3/3/3/3", want))
	var st api.JobStatus
	waitFor(t, func() bool {
		st, _ = c.Scheduler.Job(context.Background(), id)
		return api.Terminal(st.State)
	})
	if st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	checkBothSinks(t, dir, want)
}
