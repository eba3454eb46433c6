package minicluster

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/wasmbuild"
	"github.com/floe-stream/floe/scheduler/api"
)

// rulesJob writes n events and the rules they name, and returns the
// submission of udfs/rules/job.yaml over them with the verdicts computed
// here: for event "user,seq,rule,amount", "seq,user,rule,amount,V" with V
// alert when the amount is over the rule's first limit, ok when not, and
// norule for a rule that the rules file never defines. Each rule is
// defined twice, the second time with another limit, which must not count.
func rulesJob(t *testing.T, dir string, n int) (api.Submission, []string) {
	t.Helper()
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	wasm, err := wasmbuild.Go(filepath.Join(root, "udfs", "rules"), dir)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := os.ReadFile(filepath.Join(root, "udfs", "rules", "job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 18))
	limits := map[string]int{}
	var rules []string
	for r := range 40 {
		name := fmt.Sprintf("r%d", r)
		limits[name] = rng.IntN(1000)
		rules = append(rules, fmt.Sprintf("%s,%d", name, limits[name]))
	}
	for r := range 40 {
		rules = append(rules, fmt.Sprintf("r%d,%d", r, rng.IntN(1000)))
	}
	var events, want []string
	for seq := range n {
		user := fmt.Sprintf("u%d", rng.IntN(500))
		rule := fmt.Sprintf("r%d", rng.IntN(42)) // r40 and r41 are never defined
		amount := rng.IntN(1000)
		events = append(events, fmt.Sprintf("%s,%d,%s,%d", user, seq, rule, amount))
		verdict := "norule"
		if limit, ok := limits[rule]; ok {
			verdict = "ok"
			if amount > limit {
				verdict = "alert"
			}
		}
		want = append(want, fmt.Sprintf("%d,%s,%s,%d,%s", seq, user, rule, amount, verdict))
	}
	write := func(name string, lines []string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("events.txt", events)
	write("rules.txt", rules)
	slices.Sort(want)
	return api.Submission{
		Spec: spec,
		Params: map[string]string{"events": filepath.Join(dir, "events.txt"), "rules": filepath.Join(dir, "rules.txt"),
			"output": filepath.Join(dir, "out")},
		Modules: map[string][]byte{"rules": mod},
	}, want
}

func TestBroadcastRulesDecideEveryEventOnce(t *testing.T) {
	dir := t.TempDir()
	sub, want := rulesJob(t, dir, 20_000)
	sub.CheckpointInterval = 100 * time.Millisecond
	st, _ := runJob(t, Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 2, Slots: 2}, sub)
	if st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	var names []string
	for _, v := range st.Vertices {
		names = append(names, fmt.Sprintf("%s x%d %v", v.Name, v.Parallelism, v.Inputs))
	}
	wantNames := "events -> by-user x2 []; rules x1 []; apply -> out x2 [{0 hash} {1 broadcast}]"
	if got := strings.Join(names, "; "); got != wantNames {
		t.Errorf("stages %q\nwant   %q", got, wantNames)
	}
	checkJoin(t, filepath.Join(dir, "out"), want)
}

// TestBroadcastStateSurvivesALostTaskManagerExactlyOnce stops the task
// manager of an apply subtask after two checkpoints, by which time the
// rules (read at full speed) have all arrived and the rules source has
// ended: the restored attempt reads no rule again, so every event after
// the restore is decided by the broadcast state the checkpoint restored.
func TestBroadcastStateSurvivesALostTaskManagerExactlyOnce(t *testing.T) {
	dir := t.TempDir()
	sub, want := rulesJob(t, dir, 30_000)
	// 30K events over two subtasks at 8K lines/s each: about 2 s of input.
	sub.Params["rate"] = "8000"
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
	loseTaskManagerMidJob(t, c, id, 2)
	checkJoin(t, filepath.Join(dir, "out"), want)
}

// TestBroadcastStateRescaledWhileRunningReachesEverySubtask rescales apply
// 2 -> 3 while it runs: the new third subtask never saw a rule, and decides
// its users' events only by the broadcast state it restored.
func TestBroadcastStateRescaledWhileRunningReachesEverySubtask(t *testing.T) {
	dir := t.TempDir()
	sub, want := rulesJob(t, dir, 40_000)
	// 40K events at 4K lines/s per subtask: about 5 s of input, so that
	// the rescale comes before the events end even on a busy machine.
	sub.Params["rate"] = "4000"
	sub.CheckpointInterval = 200 * time.Millisecond
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 2, Slots: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Scheduler.Submit(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	// rules keeps the parallelism its spec gives it.
	rescaleMidJob(t, c, id, 3, "3/1/3")
	checkJoin(t, filepath.Join(dir, "out"), want)
}
