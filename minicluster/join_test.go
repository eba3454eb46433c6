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

// joinsSpec runs the two built-in joins over two keyed file streams of
// "key,ts,id" lines, at parallelism 2 (the right source at 1, so that
// each join reads hash edges of two widths): an interval join, a tumbling
// inner window join and a session left outer window join, each into its
// own sink.
const joinsSpec = `
name: joins
parallelism: 2
params: {rate: "0"}
sources:
  - type: file
    uid: left
    path: "${dir}/left.txt"
    rate: "${rate}"
    timestamps: {field: "csv:1", format: unix-ms}
    watermarks: {maxOutOfOrderness: 1s, interval: 10ms}
  - type: file
    uid: right
    parallelism: 1
    path: "${dir}/right.txt"
    rate: "${rate}"
    timestamps: {field: "csv:1", format: unix-ms}
    watermarks: {maxOutOfOrderness: 1s, interval: 10ms}
operators:
  - {type: keyBy, uid: kl, key: "csv:0", input: left}
  - {type: keyBy, uid: kr, key: "csv:0", input: right}
  - {type: intervalJoin, uid: interval, inputs: [kl, kr], between: [-300ms, +500ms], separator: "|"}
  - type: windowJoin
    uid: tumbling
    inputs: [kl, kr]
    window: {type: tumbling, size: 1s}
    separator: "|"
  - type: windowJoin
    uid: session
    inputs: [kl, kr]
    join: leftOuter
    window: {type: session, gap: 60ms}
    separator: "|"
sinks:
  - {type: file, uid: out-interval, input: interval, path: "${dir}/interval"}
  - {type: file, uid: out-tumbling, input: tumbling, path: "${dir}/tumbling"}
  - {type: file, uid: out-session, input: session, path: "${dir}/session"}
`

// joinEvent is one generated line.
type joinEvent struct {
	key  string
	ts   int64
	line string
}

// joinsJob writes n lines per side, each side out of order by up to 400ms
// (less than the watermarks' 1s, so no record is late), and returns the
// submission with what each join must emit, computed here by brute force.
func joinsJob(t *testing.T, dir string, n int) (api.Submission, map[string][]string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(18, 5))
	gen := func(side string) []joinEvent {
		evs := make([]joinEvent, n)
		for i := range evs {
			k := fmt.Sprintf("k%d", rng.IntN(50))
			ts := int64(1_700_000_000_000) + int64(i)*5 + rng.Int64N(400)
			evs[i] = joinEvent{k, ts, fmt.Sprintf("%s,%d,%s%d", k, ts, side, i)}
		}
		return evs
	}
	left, right := gen("L"), gen("R")
	for name, evs := range map[string][]joinEvent{"left.txt": left, "right.txt": right} {
		var sb strings.Builder
		for _, e := range evs {
			sb.WriteString(e.line + "\n")
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string][]string{}
	for _, l := range left {
		for _, r := range right {
			if l.key == r.key && l.ts-300 <= r.ts && r.ts <= l.ts+500 {
				want["interval"] = append(want["interval"], l.line+"|"+r.line)
			}
			if l.key == r.key && l.ts/1000 == r.ts/1000 {
				want["tumbling"] = append(want["tumbling"], l.line+"|"+r.line)
			}
		}
	}
	want["session"] = bruteSessions(left, right, 60)
	for k, w := range want {
		if len(w) == 0 {
			t.Fatalf("the brute force finds no %s pair", k)
		}
	}
	return api.Submission{Spec: []byte(joinsSpec), Params: map[string]string{"dir": dir}}, want
}

// bruteSessions is the session left outer join: per key, both sides' lines
// sorted by time, a new session wherever two are gap or more apart.
func bruteSessions(left, right []joinEvent, gap int64) []string {
	type tagged struct {
		joinEvent
		left bool
	}
	byKey := map[string][]tagged{}
	for _, e := range left {
		byKey[e.key] = append(byKey[e.key], tagged{e, true})
	}
	for _, e := range right {
		byKey[e.key] = append(byKey[e.key], tagged{e, false})
	}
	var out []string
	emit := func(s []tagged) {
		var ls, rs []string
		for _, e := range s {
			if e.left {
				ls = append(ls, e.line)
			} else {
				rs = append(rs, e.line)
			}
		}
		for _, l := range ls {
			if len(rs) == 0 {
				out = append(out, l+"|")
			}
			for _, r := range rs {
				out = append(out, l+"|"+r)
			}
		}
	}
	for _, es := range byKey {
		slices.SortFunc(es, func(a, b tagged) int { return int(a.ts - b.ts) })
		start := 0
		for i := 1; i <= len(es); i++ {
			if i == len(es) || es[i].ts-es[i-1].ts >= gap {
				emit(es[start:i])
				start = i
			}
		}
	}
	return out
}

// TestJoinsMatchBruteForce runs both joins at parallelism 2 with
// checkpoints over out-of-order input and checks each output, line for
// line, against the brute force.
func TestJoinsMatchBruteForce(t *testing.T) {
	dir := t.TempDir()
	sub, want := joinsJob(t, dir, 4000)
	// 4000 lines at 4000/s per subtask: about a second of input, so that
	// checkpoints are taken while the joins hold rows.
	sub.Params["rate"] = "4000"
	sub.CheckpointInterval = 100 * time.Millisecond
	st, _ := runJob(t, Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 2, Slots: 4}, sub)
	if st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	for _, name := range []string{"interval", "tumbling", "session"} {
		t.Run(name, func(t *testing.T) { checkJoin(t, filepath.Join(dir, name), want[name]) })
	}
}

// TestJoinsSurviveALostTaskManagerExactlyOnce stops the task manager of a
// join subtask after two checkpoints: the restored attempt gets the joins'
// buffered rows, windows and timers back from the checkpoint, and every
// pair is committed exactly once.
func TestJoinsSurviveALostTaskManagerExactlyOnce(t *testing.T) {
	dir := t.TempDir()
	sub, want := joinsJob(t, dir, 6000)
	// 6000 lines at 2000/s: about 3 s of input.
	sub.Params["rate"] = "2000"
	sub.Spec = append(sub.Spec, "\nrestartStrategy: {type: fixedDelay, attempts: 3, delay: 200ms}\n"...)
	sub.CheckpointInterval = 200 * time.Millisecond
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 2, Slots: 4,
		HeartbeatTimeout: 2 * time.Second, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Scheduler.Submit(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	loseTaskManagerMidJob(t, c, id, 2) // the interval join's stage
	for _, name := range []string{"interval", "tumbling", "session"} {
		t.Run(name, func(t *testing.T) { checkJoin(t, filepath.Join(dir, name), want[name]) })
	}
}

// TestJoinFunctionRunsInWasm runs both joins with a Wasm join function
// (udfs/pairjoin's swap, which writes "RIGHT<-LEFT", and "LEFT<-none" to
// its side output for an unmatched left row) instead of the built-in
// concatenation.
func TestJoinFunctionRunsInWasm(t *testing.T) {
	dir := t.TempDir()
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	wasm, err := wasmbuild.Go(filepath.Join(root, "udfs", "pairjoin"), dir)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	sub, _ := joinsJob(t, dir, 800)
	spec := strings.Replace(string(sub.Spec), "operators:", "modules: {pair: pairjoin.wasm}\noperators:", 1)
	spec = strings.ReplaceAll(spec, `separator: "|"`, "module: pair\n    function: swap")
	spec = strings.Replace(spec, `between: [-300ms, +500ms], module: pair
    function: swap}`, "between: [-300ms, +500ms], module: pair, function: swap}", 1)
	spec = strings.Replace(spec, "window: {type: session, gap: 60ms}",
		"window: {type: session, gap: 60ms}\n    sideOutputs: {unmatched: {type: file, path: \"${dir}/unmatched\"}}", 1)
	sub.Spec = []byte(spec)
	sub.Modules = map[string][]byte{"pair": mod}
	// The same input as joinsJob's brute force, in the function's format.
	_, want := joinsJob(t, t.TempDir(), 800)
	st, _ := runJob(t, Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 1, Slots: 4}, sub)
	if st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	var unmatched []string
	for _, name := range []string{"interval", "tumbling", "session"} {
		var swapped []string
		for _, w := range want[name] {
			l, r, _ := strings.Cut(w, "|")
			if r == "" {
				unmatched = append(unmatched, l+"<-none")
			} else {
				swapped = append(swapped, r+"<-"+l)
			}
		}
		t.Run(name, func(t *testing.T) { checkJoin(t, filepath.Join(dir, name), swapped) })
	}
	// The function's own side output goes where the join's sideOutputs
	// route it, next to the join's late output.
	slices.Sort(unmatched)
	if len(unmatched) == 0 {
		t.Fatal("the brute force finds no unmatched left row")
	}
	checkLines(t, filepath.Join(dir, "unmatched"), unmatched)
}

// TestJoinsRescaleWhileRunning rescales both joins 2 -> 3 while they run:
// their rows, windows and timers move by key group to the new subtasks,
// and every pair is still committed exactly once.
func TestJoinsRescaleWhileRunning(t *testing.T) {
	dir := t.TempDir()
	sub, want := joinsJob(t, dir, 8000)
	// 8000 lines at 1500/s: about 5 s of input, so that the rescale comes
	// before the sources end even on a busy machine.
	sub.Params["rate"] = "1500"
	sub.CheckpointInterval = 200 * time.Millisecond
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 2, Slots: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Scheduler.Submit(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	// right keeps the parallelism its spec gives it.
	rescaleMidJob(t, c, id, 3, "3/1/3/3/3")
	for _, name := range []string{"interval", "tumbling", "session"} {
		t.Run(name, func(t *testing.T) { checkJoin(t, filepath.Join(dir, name), want[name]) })
	}
}

// lateJoinsSpec is joinsSpec's interval and tumbling joins with their late
// records routed to sinks, over sources of parallelism 1 that read their
// files in order.
const lateJoinsSpec = `
name: late-joins
parallelism: 2
sources:
  - type: file
    uid: left
    parallelism: 1
    path: "${dir}/left.txt"
    rate: "2000"
    timestamps: {field: "csv:1", format: unix-ms}
    watermarks: {maxOutOfOrderness: 1s, interval: 10ms}
  - type: file
    uid: right
    parallelism: 1
    path: "${dir}/right.txt"
    rate: "2000"
    timestamps: {field: "csv:1", format: unix-ms}
    watermarks: {maxOutOfOrderness: 1s, interval: 10ms}
operators:
  - {type: keyBy, uid: kl, key: "csv:0", input: left}
  - {type: keyBy, uid: kr, key: "csv:0", input: right}
  - type: intervalJoin
    uid: interval
    inputs: [kl, kr]
    between: [-300ms, +500ms]
    separator: "|"
    lateOutput: late-i
    sideOutputs: {late-i: {type: file, path: "${dir}/late-interval"}}
  - type: windowJoin
    uid: tumbling
    inputs: [kl, kr]
    window: {type: tumbling, size: 1s}
    separator: "|"
    lateOutput: late-w
    sideOutputs: {late-w: {type: file, path: "${dir}/late-tumbling"}}
sinks:
  - {type: file, uid: out-interval, input: interval, path: "${dir}/interval"}
  - {type: file, uid: out-tumbling, input: tumbling, path: "${dir}/tumbling"}
`

// TestJoinsSendLateRecordsToTheirSideOutputs feeds both joins input in
// which the last lines of each file are some 25 s behind the others, far
// beyond the watermarks' 1 s. Which records are late depends on how the
// two sources' watermarks interleave, so the test reads the late outputs
// and checks the joins against the brute force over every other record:
// a record that is not late must join everything it matches.
func TestJoinsSendLateRecordsToTheirSideOutputs(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 25))
	const n = 4000
	gen := func(side string) []joinEvent {
		evs := make([]joinEvent, n)
		for i := range evs {
			k := fmt.Sprintf("k%d", rng.IntN(50))
			ts := int64(1_700_000_000_000) + int64(i)*5 + rng.Int64N(400)
			if i > n*9/10 && i%10 == 0 {
				ts -= 25_000
			}
			evs[i] = joinEvent{k, ts, fmt.Sprintf("%s,%d,%s%d", k, ts, side, i)}
		}
		return evs
	}
	left, right := gen("L"), gen("R")
	for name, evs := range map[string][]joinEvent{"left.txt": left, "right.txt": right} {
		var sb strings.Builder
		for _, e := range evs {
			sb.WriteString(e.line + "\n")
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sub := api.Submission{Spec: []byte(lateJoinsSpec), Params: map[string]string{"dir": dir}, CheckpointInterval: 100 * time.Millisecond}
	st, _ := runJob(t, Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 2, Slots: 4}, sub)
	if st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	for _, name := range []string{"interval", "tumbling"} {
		t.Run(name, func(t *testing.T) {
			late := map[string]bool{}
			for _, l := range readLines(t, filepath.Join(dir, "late-"+name)) {
				late[l] = true
			}
			if len(late) == 0 {
				t.Fatal("no record was late")
			}
			var want []string
			for _, l := range left {
				for _, r := range right {
					if l.key != r.key || late[l.line] || late[r.line] {
						continue
					}
					if name == "interval" && l.ts-300 <= r.ts && r.ts <= l.ts+500 ||
						name == "tumbling" && l.ts/1000 == r.ts/1000 {
						want = append(want, l.line+"|"+r.line)
					}
				}
			}
			checkJoin(t, filepath.Join(dir, name), want)
		})
	}
}
