package minicluster

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
)

// TestIdleSourceDoesNotHoldBackWatermarks follows a file of bids with two
// source subtasks: only subtask 0 reads a followed file, so subtask 1 never
// sends a record or a watermark. With an idle timeout, q7's windows fire
// as subtask 0's watermark passes them; without one, none fires while the
// job runs.
func TestIdleSourceDoesNotHoldBackWatermarks(t *testing.T) {
	dir := t.TempDir()
	mod := nexmarkModule(t, dir)
	input, queries := bidsAndQueries(t, dir, 60_000)
	q7 := queries[1]
	// The bids' last timestamp bounds the windows that can fire: those
	// whose end - 1 is below the watermark, last - 1.
	data, err := os.ReadFile(input)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	last, _ := strconv.ParseInt(lines[len(lines)-1][strings.LastIndexByte(lines[len(lines)-1], ',')+1:], 10, 64)
	var want []string
	for _, l := range q7.want {
		end, _ := strconv.ParseInt(l[:strings.IndexByte(l, ',')], 10, 64)
		if end-1 <= last-1 {
			want = append(want, l)
		}
	}
	if len(want) < 2 {
		t.Fatalf("only %d windows can fire: the test would prove little", len(want))
	}
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 1, Slots: 6})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	run := func(idle string) (string, string) {
		spec := strings.Replace(nexmarkOverFile(q7.operators), "  parallelism: 1\n", "  parallelism: 2\n  follow: true\n", 1)
		if idle != "" {
			spec = strings.Replace(spec, "interval: 1ms}", "interval: 1ms, idleTimeout: "+idle+"}", 1)
		}
		out := filepath.Join(dir, "out-idle"+idle)
		id, err := c.Scheduler.Submit(context.Background(), api.Submission{
			Spec: []byte(spec), Params: map[string]string{"input": input, "output": out},
			Modules: map[string][]byte{"nexmark": mod},
			// The file sink commits what it wrote at each checkpoint.
			CheckpointInterval: 100 * time.Millisecond,
		})
		if err != nil {
			t.Fatal(err)
		}
		return id, out
	}
	id, out := run("300ms")
	waitFor(t, func() bool { return len(readLines(t, out)) >= len(want) })
	if got := readLines(t, out); !slices.Equal(got, want) {
		t.Errorf("with an idle timeout: %s", firstDifference(got, want))
	}
	c.Scheduler.Cancel(context.Background(), id)

	// Without the timeout: the records are all read (the source's subtask
	// 0 reports them), yet no window fires.
	id, out = run("")
	waitFor(t, func() bool {
		st, _ := c.Scheduler.Job(context.Background(), id)
		return st.Vertices[0].RecordsOut >= int64(len(lines))
	})
	before := countStatuses(t, c, id)[api.CheckpointCompleted]
	waitFor(t, func() bool { return countStatuses(t, c, id)[api.CheckpointCompleted] >= before+3 })
	if got := readLines(t, out); len(got) != 0 {
		t.Errorf("without an idle timeout %d windows fired: %v", len(got), got)
	}
	c.Scheduler.Cancel(context.Background(), id)
}
