package minicluster

import (
	"bytes"
	"context"
	"errors"
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

// orderJoinSpec joins orders "id,amount" and payments "id,paid", each keyed
// by id, in a coProcess running udfs/orderjoin: onOrder for orders,
// onPayment for payments, sharing each id's state and timers. Payments
// come from one subtask, so the join reads a hash edge from each source of
// another width.
const orderJoinSpec = `
name: orderjoin
parallelism: 2
params:
  rate: "0"
modules:
  join: orderjoin.wasm
sources:
  - {type: file, uid: orders, path: "${dir}/orders.txt", rate: "${rate}"}
  - {type: file, uid: payments, path: "${dir}/payments.txt", rate: "${rate}", parallelism: 1}
operators:
  - {type: keyBy, uid: order-id, key: "csv:0", input: orders}
  - {type: keyBy, uid: payment-id, key: "csv:0", input: payments}
  - type: coProcess
    uid: join
    inputs: [order-id, payment-id]
    module: join
    functions: [onOrder, onPayment]
sink: {type: file, uid: out, path: "${dir}/out"}
`

// orderJoinJob writes n ids' orders and payments, each file in its own
// shuffled order, and returns the submission of orderJoinSpec over them
// with the full outer join computed here: "id,amount,paid" for an id with
// both, "id,amount,-" or "id,-,paid" for an id with one.
func orderJoinJob(t *testing.T, dir string, n int) (api.Submission, []string) {
	t.Helper()
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	wasm, err := wasmbuild.Go(filepath.Join(root, "udfs", "orderjoin"), dir)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 18))
	amounts, paid := map[int]string{}, map[int]string{}
	var orders, payments []string
	for id := range n {
		if id%7 != 3 {
			amounts[id] = fmt.Sprint(rng.IntN(100_000))
			orders = append(orders, fmt.Sprintf("o%d,%s", id, amounts[id]))
		}
		if id%3 != 0 {
			paid[id] = fmt.Sprintf("p%d", rng.IntN(1000))
			payments = append(payments, fmt.Sprintf("o%d,%s", id, paid[id]))
		}
	}
	for _, lines := range [][]string{orders, payments} {
		rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	}
	write := func(name string, lines []string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("orders.txt", orders)
	write("payments.txt", payments)
	var want []string
	for id := range n {
		a, hasA := amounts[id]
		p, hasP := paid[id]
		if !hasA && !hasP {
			continue
		}
		if !hasA {
			a = "-"
		}
		if !hasP {
			p = "-"
		}
		want = append(want, fmt.Sprintf("o%d,%s,%s", id, a, p))
	}
	slices.Sort(want)
	sub := api.Submission{
		Spec:    []byte(orderJoinSpec),
		Params:  map[string]string{"dir": dir},
		Modules: map[string][]byte{"join": mod},
	}
	return sub, want
}

// checkJoin checks that the committed output holds every line of want
// exactly once and nothing else.
func checkJoin(t *testing.T, out string, want []string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(out, "part-*"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.Fields(string(b))...)
	}
	slices.Sort(got)
	counts := map[string]int{}
	for _, l := range got {
		counts[l]++
	}
	bad := 0
	for _, w := range want {
		if n := counts[w]; n != 1 && bad < 10 {
			t.Errorf("%q appears %d times, want once", w, n)
			bad++
		}
		delete(counts, w)
	}
	for l, n := range counts {
		if bad < 10 {
			t.Errorf("%q appears %d times, want never", l, n)
			bad++
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d lines, want %d", len(got), len(want))
	}
	if hidden, _ := filepath.Glob(filepath.Join(out, ".part-*")); len(hidden) > 0 {
		t.Errorf("uncommitted files left: %v", hidden)
	}
}

func TestCoProcessJoinsEveryOrderAndPaymentOnce(t *testing.T) {
	dir := t.TempDir()
	sub, want := orderJoinJob(t, dir, 30_000)
	sub.CheckpointInterval = 100 * time.Millisecond
	st, _ := runJob(t, Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 2, Slots: 2}, sub)
	if st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	var names []string
	for _, v := range st.Vertices {
		names = append(names, fmt.Sprintf("%s x%d %v", v.Name, v.Parallelism, v.Inputs))
	}
	wantNames := "orders -> order-id x2 []; payments -> payment-id x1 []; join -> out x2 [{0 hash} {1 hash}]"
	if got := strings.Join(names, "; "); got != wantNames {
		t.Errorf("stages %q\nwant   %q", got, wantNames)
	}
	checkJoin(t, filepath.Join(dir, "out"), want)
}

// TestCoProcessSurvivesALostTaskManagerExactlyOnce stops the task manager
// of a join subtask after two checkpoints: the restored attempt gets both
// functions' state and the pending timers back, and every joined line is
// committed exactly once.
func TestCoProcessSurvivesALostTaskManagerExactlyOnce(t *testing.T) {
	dir := t.TempDir()
	sub, want := orderJoinJob(t, dir, 40_000)
	// ~34K orders over two subtasks and ~27K payments over one, at 8K
	// lines/s per source: about 3 s of input.
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

// TestCoProcessRescaleWhileRunningJoinsEveryIdOnce rescales the join 2 -> 3
// while it runs: both functions' state and the pending timers move by key
// group to subtasks that read two upstream stages, and every joined line is
// still committed exactly once.
func TestCoProcessRescaleWhileRunningJoinsEveryIdOnce(t *testing.T) {
	dir := t.TempDir()
	sub, want := orderJoinJob(t, dir, 40_000)
	// ~34K orders at 5K lines/s: about 7 s of input, so that the rescale
	// comes before the sources end even on a busy machine.
	sub.Params["rate"] = "5000"
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
	// payments keeps the parallelism its spec gives it.
	rescaleMidJob(t, c, id, 3, "3/1/3")
	checkJoin(t, filepath.Join(dir, "out"), want)
}

// TestCoProcessMisspeltSecondFunctionRefusedAtSubmit checks that submit
// checks a coProcess's second function against the module's table, with
// its own line, before any task runs.
func TestCoProcessMisspeltSecondFunctionRefusedAtSubmit(t *testing.T) {
	dir := t.TempDir()
	sub, _ := orderJoinJob(t, dir, 10)
	sub.Spec = bytes.Replace(sub.Spec, []byte("functions: [onOrder, onPayment]"), []byte("functions:\n      - onOrder\n      - onPaymnet"), 1)
	line := 1 + bytes.Count(sub.Spec[:bytes.Index(sub.Spec, []byte("onPaymnet"))], []byte("\n"))
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "data"), Slots: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Scheduler.Submit(context.Background(), sub)
	if !errors.Is(err, api.ErrBadRequest) {
		t.Fatalf("Submit = %q, %v; want a bad request", id, err)
	}
	want := fmt.Sprintf(`line %d: operators[2].functions[1]: module "join" has no function "onPaymnet"; did you mean "onPayment"?`, line)
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
}
