package minicluster

import (
	"bytes"
	"context"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/wasmbuild"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/tests/textgen"
)

// endedBranchSpec is a graph whose short branch ends long before its long
// one: the short source is unioned with the long one and counted into out,
// and also counted on its own into out-short. When short has read its
// file, short and split-short finish, and count-short -> out-short holds
// its last output for the job's final commit (it is ending) while long
// goes on for seconds.
const endedBranchSpec = `
name: ended-branch
parallelism: 2
params:
  rate: "0"
  short-rate: "0"
modules:
  wordcount: wordcount.wasm
sources:
  - {type: file, uid: short, path: "${dir}/short.txt", rate: "${short-rate}", parallelism: 1}
  - {type: file, uid: long, path: "${dir}/long.txt", rate: "${rate}"}
operators:
  - {type: union, uid: all, inputs: [short, long]}
  - {type: flatMap, uid: split, module: wordcount, function: split}
  - {type: keyBy, uid: by-word, key: value}
  - {type: process, uid: count, module: wordcount, function: count}
  - {type: flatMap, uid: split-short, module: wordcount, function: split, input: short}
  - {type: keyBy, uid: by-word-short, key: value}
  - {type: process, uid: count-short, module: wordcount, function: count}
sinks:
  - {type: file, uid: out, path: "${dir}/out", input: count}
  - {type: file, uid: out-short, path: "${dir}/out-short", input: count-short}
restartStrategy: {type: fixedDelay, attempts: 3, delay: 200ms}
`

// TestCheckpointsGoOnAfterABranchEnds runs endedBranchSpec: once the short
// branch has ended, new checkpoints still complete and record it as
// finished; a task manager is then lost, the job restores a checkpoint
// taken after the short branch ended, and both sinks hold every count
// exactly once: the short source was not read again, and the short
// branch's last output, held by its ending sink, was neither lost nor
// written twice.
func TestCheckpointsGoOnAfterABranchEnds(t *testing.T) {
	j := startEndedBranch(t)
	c, id := j.c, j.id
	ended := j.awaitShortEnded()

	// Two more checkpoints complete; the newest records the short branch
	// as finished, with the ending sink's last output.
	var latest api.CheckpointStatus
	waitFor(t, func() bool {
		latest = latestCompleted(t, c, id)
		return latest.ID >= ended+2
	})
	md := readMetadata(t, latest.Path)
	finished := map[string]int{}
	for _, s := range md.Subtasks {
		if s.Finished {
			finished[md.Stages[s.Stage].Name]++
		}
		if name := md.Stages[s.Stage].Name; name == "count-short -> out-short" && (!s.Finished || s.Sink == nil || len(s.Keyed) > 0) {
			t.Errorf("checkpoint %d: ending sink subtask %d recorded as %+v, want finished with its sink state and no keyed state", md.ID, s.Subtask, s)
		}
	}
	if want := map[string]int{"short": 1, "split-short -> by-word-short": 2, "count-short -> out-short": 2}; !maps.Equal(finished, want) {
		t.Errorf("checkpoint %d records as finished %v, want %v", md.ID, finished, want)
	}

	// Lose a task manager: the job must restore a checkpoint taken after
	// the short branch ended.
	loseTaskManagerMidJob(t, c, id, 0)
	st, err := c.Scheduler.Job(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var restored []int64
	for _, e := range st.History {
		if m := restoringRE.FindStringSubmatch(e.Message); m != nil {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			restored = append(restored, n)
		}
	}
	t.Logf("the short branch ended after checkpoint %d; checkpoint %d recorded it finished; restored %v", ended, md.ID, restored)
	if len(restored) == 0 || restored[0] <= ended {
		t.Errorf("restored checkpoints %v, want a first one after %d, taken once the short branch had ended", restored, ended)
	}
	j.checkSinks()
}

// TestStopWithSavepointAfterABranchEnded stops endedBranchSpec with a
// savepoint once its short branch has ended, and resumes it: the savepoint
// records the short branch as finished with its sink's last output, the
// resumed job does not run it again, and both sinks hold every count
// exactly once.
func TestStopWithSavepointAfterABranchEnded(t *testing.T) {
	j := startEndedBranch(t)
	c, ctx := j.c, context.Background()
	j.awaitShortEnded()
	trig, err := c.Scheduler.Stop(ctx, j.id, "")
	if err != nil {
		t.Fatal(err)
	}
	trig = awaitSavepoint(t, c, j.id, trig)
	if st := finish(t, c, j.id); st.Attempt != 1 {
		t.Fatalf("the job ended in attempt %d: %s", st.Attempt, st.Message)
	}
	md := readMetadata(t, trig.Path+"/_metadata")
	for _, s := range md.Subtasks {
		name := md.Stages[s.Stage].Name
		if short := name == "short" || strings.HasSuffix(name, "-short"); short != s.Finished {
			t.Errorf("savepoint records subtask %d of %s finished: %t", s.Subtask, name, s.Finished)
		}
	}

	resume := j.sub
	resume.Params = maps.Clone(j.sub.Params)
	resume.Params["rate"], resume.FromSavepoint = "0", trig.Path
	next, err := c.Scheduler.Submit(ctx, resume)
	if err != nil {
		t.Fatal(err)
	}
	st := finish(t, c, next)
	for _, v := range st.Vertices {
		if v.Name == "short" && v.RecordsOut != 0 {
			t.Errorf("the resumed job read %d lines of the short source again", v.RecordsOut)
		}
	}
	j.checkSinks()
}

// TestRescaleAfterABranchEnded rescales endedBranchSpec 2 -> 3 once its
// short branch has ended: the rescale's checkpoint records the branch
// finished, the rescaled job does not run it again, the ended sink's last
// output reaches a new subtask that commits it, and both sinks hold every
// count exactly once.
func TestRescaleAfterABranchEnded(t *testing.T) {
	j := startEndedBranch(t)
	c, ctx := j.c, context.Background()
	j.awaitShortEnded()
	if err := c.Scheduler.Rescale(ctx, j.id, api.RescaleRequest{Parallelism: 3}); err != nil {
		t.Fatal(err)
	}
	rescaled := ""
	st := finish(t, c, j.id)
	for _, e := range st.History {
		if strings.HasPrefix(e.Message, "rescaled to ") {
			rescaled = e.Message
		}
	}
	// short keeps the parallelism its spec gives it.
	if !strings.HasPrefix(rescaled, "rescaled to 1/3/3/3/3/3:") {
		t.Errorf("rescale: %q, want to 1/3/3/3/3/3; history %+v", rescaled, st.History)
	}
	for _, v := range st.Vertices {
		if v.Name == "short" && v.RecordsOut != 0 {
			t.Errorf("the rescaled job read %d lines of the short source again", v.RecordsOut)
		}
	}
	j.checkSinks()
}

// endedBranchJob is endedBranchSpec running on a cluster of two task
// managers, with what each sink must hold.
type endedBranchJob struct {
	t                  *testing.T
	c                  *Cluster
	id, dir            string
	sub                api.Submission
	wantShort, wantAll map[string]int64
}

// startEndedBranch writes the inputs, starts a cluster and submits
// endedBranchSpec. The cluster closes when t ends.
func startEndedBranch(t *testing.T) *endedBranchJob {
	t.Helper()
	dir := t.TempDir()
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
	sub := api.Submission{Spec: []byte(endedBranchSpec), Params: map[string]string{"dir": dir}, Modules: map[string][]byte{"wordcount": mod}}
	texts := map[string][]byte{}
	for name, words := range map[string]int{"short": 5_000, "long": 60_000} {
		var text bytes.Buffer
		if err := textgen.Write(&text, words, uint64(len(name))); err != nil {
			t.Fatal(err)
		}
		texts[name] = text.Bytes()
		if err := os.WriteFile(filepath.Join(dir, name+".txt"), text.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	j := &endedBranchJob{t: t, dir: dir, wantShort: textgen.Count(texts["short"]),
		wantAll: textgen.Count(append(slices.Clone(texts["short"]), texts["long"]...))}
	// A source's rate is shared by its subtasks. long has ~7K lines at 400
	// lines/s: about 17 s of input; short has ~600 lines at 60 lines/s,
	// about 10 s, so that it ends after the first checkpoints even when a
	// busy machine is slow to start the job's tasks.
	sub.Params["rate"], sub.Params["short-rate"] = "400", "60"
	sub.CheckpointInterval = 200 * time.Millisecond
	j.sub = sub
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if j.c, err = Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 2, Slots: 2,
		HeartbeatTimeout: 2 * time.Second, Logger: log}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.c.Close() })
	if j.id, err = j.c.Scheduler.Submit(context.Background(), sub); err != nil {
		t.Fatal(err)
	}
	return j
}

// awaitShortEnded waits for the short branch to end, its sink's subtasks
// ending, in the job's first attempt, and returns the newest checkpoint
// completed by then (0 if none).
func (j *endedBranchJob) awaitShortEnded() int64 {
	t := j.t
	t.Helper()
	var ended int64
	waitFor(t, func() bool {
		st, err := j.c.Scheduler.Job(context.Background(), j.id)
		if err != nil {
			t.Fatal(err)
		}
		if api.Terminal(st.State) || st.Attempt > 1 {
			t.Fatalf("job %s in attempt %d before the short branch ended: %s", st.State, st.Attempt, st.Message)
		}
		for _, v := range st.Vertices {
			if v.Name != "count-short -> out-short" {
				continue
			}
			for _, s := range v.Subtasks {
				if s.State != api.TaskEnding {
					return false
				}
			}
			ended = latestCompleted(t, j.c, j.id).ID
			return true
		}
		t.Fatalf("no vertex count-short -> out-short in %+v", st.Vertices)
		return false
	})
	return ended
}

// checkSinks checks that both sinks hold every count exactly once, and
// nothing uncommitted.
func (j *endedBranchJob) checkSinks() {
	t := j.t
	t.Helper()
	t.Run("out", func(t *testing.T) { checkExactlyOnce(t, filepath.Join(j.dir, "out"), j.wantAll) })
	t.Run("out-short", func(t *testing.T) { checkExactlyOnce(t, filepath.Join(j.dir, "out-short"), j.wantShort) })
	for _, out := range []string{"out", "out-short"} {
		if hidden, _ := filepath.Glob(filepath.Join(j.dir, out, ".part-*")); len(hidden) > 0 {
			t.Errorf("uncommitted files left: %v", hidden)
		}
	}
}

var restoringRE = regexp.MustCompile(`restoring checkpoint (\d+)`)

// latestCompleted returns the newest completed checkpoint of job id, or
// the zero status.
func latestCompleted(t *testing.T, c *Cluster, id string) api.CheckpointStatus {
	t.Helper()
	cps, err := c.Scheduler.Checkpoints(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var latest api.CheckpointStatus
	for _, cp := range cps {
		if cp.Status == api.CheckpointCompleted && cp.ID > latest.ID {
			latest = cp
		}
	}
	return latest
}
