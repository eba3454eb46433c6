package sqloracle

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/internal/sqlc"
	"github.com/floe-stream/floe/minicluster"
	"github.com/floe-stream/floe/scheduler/api"
)

// checkpointedJob is a checkpointed SQL job with a tumbling window running
// on a mini-cluster of two task managers, and what DuckDB says it writes.
type checkpointedJob struct {
	c        *minicluster.Cluster
	id, out  string
	want     [][]*string
	sinkCols string
	key      []int // an updating query's key columns
}

// The windowed query of the checkpointed tests, and DuckDB's.
var windowedQuery = query{
	name: "checkpointed",
	sink: "auction BIGINT, ws BIGINT, n BIGINT, total BIGINT, bidders BIGINT",
	floe: "INSERT INTO out SELECT auction, window_start, COUNT(*), SUM(price), COUNT(DISTINCT bidder) " +
		"FROM bids GROUP BY auction, TUMBLE(ts, INTERVAL '5' SECOND);",
	duckdb: "SELECT auction, ts // 5000 * 5000 AS ws, COUNT(*), SUM(price), COUNT(DISTINCT bidder) " +
		"FROM bids GROUP BY auction, ws",
}

// startCheckpointed starts the job of query q: 3000 rows at 1000 rows/s,
// so it runs about 3 s, checkpointing every 200 ms.
func startCheckpointed(t *testing.T, q query) *checkpointedJob {
	if _, err := os.Stat(filepath.Join("node_modules", "@duckdb", "node-api")); err != nil {
		t.Skip("DuckDB, the oracle, is not installed: run `npm ci --prefix tests/sqloracle` (Node 20 and the npm registry)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on the PATH: the oracle runs DuckDB under Node")
	}
	dir := t.TempDir()
	bids := filepath.Join(dir, "bids.csv")
	if err := writeBids(bids, 3000); err != nil {
		t.Fatal(err)
	}
	want, ok := runDuckDB(t, node, bids, []query{q}).get(q.name)
	if !ok {
		t.Fatal("DuckDB failed")
	}
	var fns *sqlFunctions
	if q.wasm {
		if fns, err = buildFunctions(dir); err != nil {
			t.Fatal(err)
		}
		q.floe = fns.decls() + q.floe
	}
	out := filepath.Join(dir, "out")
	src := fmt.Sprintf(`SET parallelism = 2;
SET checkpoint_interval = '200ms';
CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, ts BIGINT)
  WITH (connector = 'file', path = '%s', rate = '1000', watermark = 'ts - 1s');
CREATE TABLE out (%s) WITH (connector = 'file', path = '%s');
%s
`, bids, q.sink, out, q.floe)
	job, err := sqlc.Compile(src, sqlc.Options{Name: "checkpointed"})
	if err != nil {
		t.Fatal(err)
	}
	engine, err := udf.NewEngine(context.Background(), udf.Config{CacheDir: filepath.Join(dir, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.Close(context.Background()) })
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	c, err := minicluster.Start(context.Background(), minicluster.Config{DataDir: filepath.Join(dir, "cluster"),
		TaskManagers: 2, Slots: 2, HeartbeatTimeout: 2 * time.Second, Engine: engine, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	sub := api.Submission{Spec: job.Spec}
	if fns != nil {
		sub.Modules = fns.modules(job.Spec)
	}
	id, err := c.Scheduler.Submit(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	return &checkpointedJob{c: c, id: id, out: out, want: want, sinkCols: q.sink, key: q.key}
}

// waitCheckpoints waits for n completed checkpoints of the running job.
func (j *checkpointedJob) waitCheckpoints(t *testing.T, n int) api.JobStatus {
	ctx := context.Background()
	waitFor(t, fmt.Sprintf("%d completed checkpoints", n), func() bool {
		cps, err := j.c.Scheduler.Checkpoints(ctx, j.id)
		done := 0
		for _, cp := range cps {
			if cp.Status == api.CheckpointCompleted {
				done++
			}
		}
		return err == nil && done >= n
	})
	st, err := j.c.Scheduler.Job(ctx, j.id)
	if err != nil {
		t.Fatal(err)
	}
	if api.Terminal(st.State) {
		t.Fatalf("the job ended (%s) too soon for the test", st.State)
	}
	return st
}

// finish waits for the job to end, checks it finished, and compares what
// its sink committed with DuckDB's rows.
func (j *checkpointedJob) finish(t *testing.T) api.JobStatus {
	var st api.JobStatus
	var err error
	waitFor(t, "the job to end", func() bool {
		st, err = j.c.Scheduler.Job(context.Background(), j.id)
		return err == nil && api.Terminal(st.State)
	})
	if st.State != api.JobFinished {
		t.Fatalf("job %s after %d attempts: %s", st.State, st.Attempt, st.Message)
	}
	types := sinkTypes(t, j.sinkCols)
	got := readParts(t, j.out)
	if j.key != nil {
		got, _ = finalTable(t, got, j.key)
	}
	compareRows(t, normalize(t, got, types), normalize(t, j.want, types))
	return st
}

func historyHas(st api.JobStatus, s string) bool {
	for _, e := range st.History {
		if strings.Contains(e.Message, s) {
			return true
		}
	}
	return false
}

// loseTaskManager stops the task manager that runs subtask 0 of vertex
// v once two checkpoints have completed, lets the job finish, and checks
// it restored a checkpoint to do so.
func (j *checkpointedJob) loseTaskManager(t *testing.T, v func(api.JobStatus) int) api.JobStatus {
	t.Helper()
	st := j.waitCheckpoints(t, 2)
	victim := st.Vertices[v(st)].Subtasks[0].TaskManager
	j.c.StopTaskManager(map[string]int{"tm-1": 0, "tm-2": 1}[victim])
	st = j.finish(t)
	if st.Attempt < 2 || !historyHas(st, "restoring checkpoint") {
		t.Errorf("attempt %d, no restore in the history: %+v", st.Attempt, st.History)
	}
	return st
}

// rescaleTo4 rescales the job 2 -> 4 once a checkpoint has completed,
// lets it finish, and checks it was rescaled and vertex v (what names)
// ran 4 subtasks.
func (j *checkpointedJob) rescaleTo4(t *testing.T, v func(api.JobStatus) int, what string) api.JobStatus {
	t.Helper()
	j.waitCheckpoints(t, 1)
	if err := j.c.Scheduler.Rescale(context.Background(), j.id, api.RescaleRequest{Parallelism: 4}); err != nil {
		t.Fatal(err)
	}
	st := j.finish(t)
	if !historyHas(st, "rescaled to ") {
		t.Errorf("no rescale in the history: %+v", st.History)
	}
	if n := len(st.Vertices[v(st)].Subtasks); n != 4 {
		t.Errorf("the %s runs %d subtasks, want 4", what, n)
	}
	return st
}

// vertex1 is the first stage after a keyBy: [window or group -> select ->
// out] in the single-table queries.
func vertex1(api.JobStatus) int { return 1 }

// TestWindowedSQLSurvivesALostTaskManager stops the task manager that runs
// the window's first subtask after two completed checkpoints: the job must
// finish from a checkpoint with exactly DuckDB's rows, no window lost and
// none written twice.
func TestWindowedSQLSurvivesALostTaskManager(t *testing.T) {
	startCheckpointed(t, windowedQuery).loseTaskManager(t, vertex1)
}

// TestWindowedSQLRescales rescales the job 2 -> 4 while it runs: the window
// state moves by key group and the output is still exactly DuckDB's.
func TestWindowedSQLRescales(t *testing.T) {
	startCheckpointed(t, windowedQuery).rescaleTo4(t, vertex1, "window")
}

// TestUpdatingSQLSurvivesALostTaskManager loses the task manager that runs
// the first subtask of a GROUP BY without a window: restored from a
// checkpoint, the groups' accumulators go on, and the committed changelog
// leaves exactly DuckDB's table.
func TestUpdatingSQLSurvivesALostTaskManager(t *testing.T) {
	j := startCheckpointed(t, query{
		name:   "updating",
		sink:   "auction BIGINT, n BIGINT, total BIGINT, bidders BIGINT",
		floe:   "INSERT INTO out SELECT auction, COUNT(*), SUM(price), COUNT(DISTINCT bidder) FROM bids GROUP BY auction;",
		duckdb: "SELECT auction, COUNT(*), SUM(price), COUNT(DISTINCT bidder) FROM bids GROUP BY auction",
		key:    []int{0},
	})
	st := j.waitCheckpoints(t, 2)
	// Vertex 1 is the group's stage: [group -> select -> out].
	victim := st.Vertices[1].Subtasks[0].TaskManager
	j.c.StopTaskManager(map[string]int{"tm-1": 0, "tm-2": 1}[victim])
	st = j.finish(t)
	if st.Attempt < 2 || !historyHas(st, "restoring checkpoint") {
		t.Errorf("attempt %d, no restore in the history: %+v", st.Attempt, st.History)
	}
}

// waitFor polls cond until it holds, failing the test after 2 minutes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 2 minutes for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
