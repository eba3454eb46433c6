package cluster

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
)

// sqlWindowScript is a windowed SQL aggregate: per auction and 2-second
// tumbling window, the bids and their total. Its bounded file source is
// read at 1500 rows/s, so the job runs for several seconds.
const sqlWindowScript = `SET parallelism = 2;
SET checkpoint_interval = '300ms';

CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, ts BIGINT)
  WITH (connector = 'file', path = '${input}', watermark = 'ts - 1s', rate = '1500');

CREATE TABLE totals (auction BIGINT, window_start BIGINT, n BIGINT, total BIGINT)
  WITH (connector = 'file', path = '${output}');

INSERT INTO totals
SELECT auction, TUMBLE_START(ts, INTERVAL '2' SECOND), COUNT(*), SUM(price)
FROM bids
GROUP BY auction, TUMBLE(ts, INTERVAL '2' SECOND);
`

// sqlBids writes n bids in event-time order (10 ms apart, so no row is
// ever late) and returns what the query must write, computed here: one
// "auction,window_start,n,total" line per auction and window.
func sqlBids(t *testing.T, path string, n int) map[string]bool {
	t.Helper()
	type win struct{ auction, start int64 }
	sums := map[win][2]int64{}
	var b strings.Builder
	for i := range n {
		auction, bidder, price, ts := int64(i*7%13), int64(i%101), int64(100+i*31%900), int64(1_000_000+i*10)
		fmt.Fprintf(&b, "%d,%d,%d,%d\n", auction, bidder, price, ts)
		w := win{auction, ts - ts%2000}
		s := sums[w]
		sums[w] = [2]int64{s[0] + 1, s[1] + price}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for w, s := range sums {
		want[fmt.Sprintf("%d,%d,%d,%d", w.auction, w.start, s[0], s[1])] = true
	}
	return want
}

// checkSQLTotals reads the part files in dir: every line the query must
// write, each exactly once, and nothing else.
func checkSQLTotals(t *testing.T, dir string, want map[string]bool) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "part-*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("part files in %s: %v (%v)", dir, files, err)
	}
	seen := map[string]int{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			seen[sc.Text()]++
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	bad := 0
	for _, l := range slices.Sorted(maps.Keys(seen)) {
		if n := seen[l]; (n != 1 || !want[l]) && bad < 10 {
			t.Errorf("line %q written %d times, expected: %v", l, n, want[l])
			bad++
		}
	}
	for l := range want {
		if seen[l] == 0 && bad < 20 {
			t.Errorf("line %q missing", l)
			bad++
		}
	}
	if len(seen) != len(want) {
		t.Errorf("%d distinct lines, want %d", len(seen), len(want))
	}
}

// TestSQLWindowSurvivesSIGKILLAndRescale submits a windowed SQL aggregate
// (floe job submit compiles the script) to a cluster of real processes,
// SIGKILLs the task manager running the window's first subtask once two
// checkpoints have completed, then rescales the job 2 -> 3 once it runs
// again: every window's row is written exactly once, as computed here.
func TestSQLWindowSurvivesSIGKILLAndRescale(t *testing.T) {
	c := newCluster(t, clusterConfig{taskManagers: 2, slots: 2})
	dir := t.TempDir()
	input, output := filepath.Join(dir, "bids.csv"), filepath.Join(dir, "totals")
	want := sqlBids(t, input, 12_000)
	script := filepath.Join(dir, "totals.sql")
	if err := os.WriteFile(script, []byte(sqlWindowScript), 0o644); err != nil {
		t.Fatal(err)
	}
	id := c.submit(script, "--set", "input="+input, "--set", "output="+output)

	c.waitCheckpointAfter(id, 1)
	job := c.job(id)
	// Vertex 1 is the window's stage.
	victim := c.taskManager(job.Vertices[1].Subtasks[0].TaskManager)
	t.Logf("SIGKILL %s, attempt %d", victim.name, job.Attempt)
	victim.kill()
	c.startTaskManager(2)

	c.waitJob(id, 2*time.Minute, "a restart", func(j api.JobStatus) bool { return j.Attempt >= 2 && j.State == api.JobRunning })
	c.waitCheckpointAfter(id, c.latestCheckpoint(id))
	r := c.floe(2*time.Minute, "job", "rescale", id, "--parallelism", "3", "--wait", "--timeout", "90s")
	if r.code != 0 {
		t.Fatalf("rescale to 3: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	c.wait(id, 3*time.Minute)
	job = c.job(id)
	if job.Parallelism != 3 || job.Attempt < 3 {
		t.Errorf("parallelism %d, attempt %d at the end; want 3 after a restart and a rescale", job.Parallelism, job.Attempt)
	}
	checkSQLTotals(t, output, want)
	t.Logf("%d windows' rows, exactly once: %s", len(want), strconv.Quote(job.Message))
}
