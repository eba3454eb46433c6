package sqloracle

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/sqlc"
	"github.com/floe-stream/floe/minicluster"
	"github.com/floe-stream/floe/scheduler/api"
)

// A materialized view of the test: its Floe query, DuckDB's query of its
// final table and of every key the input holds, its columns, and how many
// of them are its key.
type view struct {
	name, floe, duckdb, keys, columns string
	nkeys                             int
}

var views = []view{
	{name: "per_channel", nkeys: 1,
		floe:    "CREATE MATERIALIZED VIEW per_channel AS SELECT channel, COUNT(*) AS n, SUM(price) AS total, MAX(price) AS hi, AVG(price) AS mean FROM bids WHERE channel IS NOT NULL GROUP BY channel;",
		duckdb:  "SELECT channel, COUNT(*), SUM(price), MAX(price), AVG(price) FROM bids WHERE channel IS NOT NULL GROUP BY channel",
		keys:    "SELECT DISTINCT channel FROM bids WHERE channel IS NOT NULL",
		columns: "channel VARCHAR, n BIGINT, total BIGINT, hi BIGINT, mean DOUBLE"},
	{name: "busy", nkeys: 2,
		floe:    "CREATE MATERIALIZED VIEW busy AS SELECT auction, channel, COUNT(*) AS n, MIN(price) AS lo FROM bids WHERE channel IS NOT NULL GROUP BY auction, channel HAVING COUNT(*) > 35;",
		duckdb:  "SELECT auction, channel, COUNT(*), MIN(price) FROM bids WHERE channel IS NOT NULL GROUP BY auction, channel HAVING COUNT(*) > 35",
		keys:    "SELECT DISTINCT auction, channel FROM bids WHERE channel IS NOT NULL",
		columns: "auction BIGINT, channel VARCHAR, n BIGINT, lo BIGINT"},
}

// TestViewsMatchDuckDB runs two materialized views over the bids at
// parallelism 2 and looks every key of the input up in them once the job
// has finished (its state stays queryable): the rows found must be
// DuckDB's final table, and a key that HAVING leaves out must not be found.
func TestViewsMatchDuckDB(t *testing.T) {
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
	var qs []query
	for _, v := range views {
		qs = append(qs, query{name: v.name, duckdb: v.duckdb}, query{name: v.name + "-keys", duckdb: v.keys})
	}
	want := runDuckDB(t, node, bids, qs)
	cluster := startCluster(t, dir)
	id := runViews(t, cluster, bids, views, "", nil)
	for _, v := range views {
		t.Run(v.name, func(t *testing.T) {
			rows, ok := want.get(v.name)
			keys, ok2 := want.get(v.name + "-keys")
			if !ok || !ok2 {
				t.Fatalf("DuckDB failed: %s %s", want.errors[v.name], want.errors[v.name+"-keys"])
			}
			got := lookupView(t, cluster, id, v, keys)
			t.Logf("%d keys looked up, %d found, DuckDB's table has %d rows", len(keys), len(got), len(rows))
			types := sinkTypes(t, v.columns)
			compareRows(t, normalize(t, got, types), normalize(t, rows, types))
		})
	}
}

// runViews runs views over bids to their end, at rate rows a second ("" for
// unlimited), calling during every 20 ms while the job runs, and returns
// the job's id.
func runViews(t *testing.T, c *minicluster.Cluster, bids string, views []view, rate string, during func(id string)) string {
	cols := make([]string, len(bidsColumns))
	for i, c := range bidsColumns {
		cols[i] = c[0] + " " + c[1]
	}
	opts := ""
	if rate != "" {
		opts = ", rate = '" + rate + "'"
	}
	src := fmt.Sprintf("SET parallelism = 2;\nCREATE TABLE bids (%s) WITH (connector = 'file', path = '%s', watermark = 'ts - 1s'%s);\n",
		strings.Join(cols, ", "), bids, opts)
	for _, v := range views {
		src += v.floe + "\n"
	}
	job, err := sqlc.Compile(src, sqlc.Options{Name: "views"})
	if err != nil {
		t.Fatalf("compiling:\n%v", err)
	}
	ctx := context.Background()
	id, err := c.Scheduler.Submit(ctx, api.Submission{Spec: job.Spec})
	if err != nil {
		t.Fatalf("submitting: %v\n%s", err, job.Spec)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		st, err := c.Scheduler.Job(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if api.Terminal(st.State) {
			if st.State != api.JobFinished {
				t.Fatalf("job %s: %s", strings.ToLower(st.State), st.Message)
			}
			return id
		}
		if time.Now().After(deadline) {
			t.Fatalf("job still %s after 2 minutes", st.State)
		}
		if st.State == api.JobRunning && during != nil {
			during(id)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestViewAnswersDuringTheRun reads a view while its job runs, paced to
// 1500 rows a second: every answer is a row the view passes through on its
// way to DuckDB's final table (each channel's count never falls and never
// passes the final one), some answers come before the end, and once the
// job has finished the view is DuckDB's table.
func TestViewAnswersDuringTheRun(t *testing.T) {
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
	v := views[0]
	want := runDuckDB(t, node, bids, []query{{name: v.name, duckdb: v.duckdb}, {name: "keys", duckdb: v.keys}})
	rows, ok := want.get(v.name)
	keys, ok2 := want.get("keys")
	if !ok || !ok2 {
		t.Fatalf("DuckDB failed: %v", want.errors)
	}
	final := map[string]int64{}
	for _, r := range rows {
		n, _ := strconv.ParseInt(*r[1], 10, 64)
		final[*r[0]] = n
	}
	cluster := startCluster(t, dir)
	last := map[string]int64{}
	answered := 0
	id := runViews(t, cluster, bids, []view{v}, "1500", func(id string) {
		var texts [][]byte
		for _, k := range keys {
			texts = append(texts, []byte(*k[0]))
		}
		vals, err := cluster.Scheduler.QueryState(context.Background(), id, v.name, texts)
		if err != nil {
			return // NB: the tasks may still be deploying
		}
		for i, sv := range vals {
			if !sv.Found {
				continue
			}
			var row struct{ N int64 }
			if err := json.Unmarshal(sv.Value.(json.RawMessage), &row); err != nil {
				t.Fatalf("key %s: %v", texts[i], err)
			}
			k := string(texts[i])
			if row.N < last[k] || row.N > final[k] {
				t.Errorf("key %s: n = %d after %d, final %d", k, row.N, last[k], final[k])
			}
			last[k] = row.N
			if row.N < final[k] {
				answered++
			}
		}
	})
	t.Logf("%d answers before a key's final row", answered)
	if answered == 0 {
		t.Error("no lookup answered during the run: the job ran too fast to test it")
	}
	got := lookupView(t, cluster, id, v, keys)
	types := sinkTypes(t, v.columns)
	compareRows(t, normalize(t, got, types), normalize(t, rows, types))
}

// lookupView looks every key up in view v, by the text of its GROUP BY
// values, and returns the rows found, in the view's column order.
func lookupView(t *testing.T, c *minicluster.Cluster, id string, v view, keys [][]*string) [][]*string {
	var texts [][]byte
	for _, k := range keys {
		texts = append(texts, []byte(strings.Join(show(k), ",")))
	}
	vals, err := c.Scheduler.QueryState(context.Background(), id, v.name, texts)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, col := range strings.Split(v.columns, ",") {
		names = append(names, strings.Fields(col)[0])
	}
	var rows [][]*string
	for i, sv := range vals {
		if !sv.Found {
			continue
		}
		raw, _ := sv.Value.(json.RawMessage)
		var obj map[string]any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&obj); err != nil || sv.Type != "json" {
			t.Fatalf("key %q: a %s value %q, want a JSON object (%v)", texts[i], sv.Type, raw, err)
		}
		row := make([]*string, len(names))
		for j, n := range names {
			if s, ok := jsonText(obj[n]); ok {
				row[j] = &s
			}
		}
		if got := strings.Join(show(row[:v.nkeys]), ","); got != string(texts[i]) {
			t.Errorf("key %q answers the row of %q", texts[i], got)
		}
		rows = append(rows, row)
	}
	return rows
}

// jsonText returns a JSON value as the text DuckDB gives it; false for null.
func jsonText(x any) (string, bool) {
	switch v := x.(type) {
	case nil:
		return "", false
	case json.Number:
		return v.String(), true
	case string:
		return v, true
	}
	return fmt.Sprint(x), true
}

// TestViewSurvivesFailuresAndRescales runs the view busy checkpointed
// (recovery_test.go): once it loses the task manager of the view's first
// subtask, once it is rescaled 2 -> 4 while it runs. Restored or moved by
// key group, the view's state must answer DuckDB's final table at the end.
func TestViewSurvivesFailuresAndRescales(t *testing.T) {
	v := views[1]
	for _, how := range []string{"lost task manager", "rescale"} {
		t.Run(how, func(t *testing.T) {
			j := startCheckpointed(t, query{name: v.name, sink: v.columns, floe: v.floe, duckdb: v.duckdb})
			st := j.waitCheckpoints(t, 2)
			var err error
			if how == "rescale" {
				err = j.c.Scheduler.Rescale(context.Background(), j.id, api.RescaleRequest{Parallelism: 4})
			} else {
				// Vertex 1 is the view's stage: [group -> select].
				victim := st.Vertices[1].Subtasks[0].TaskManager
				j.c.StopTaskManager(map[string]int{"tm-1": 0, "tm-2": 1}[victim])
			}
			if err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the job to end", func() bool {
				st, err = j.c.Scheduler.Job(context.Background(), j.id)
				return err == nil && api.Terminal(st.State)
			})
			event := map[string]string{"rescale": "rescaled to ", "lost task manager": "restoring checkpoint"}[how]
			if st.State != api.JobFinished || !historyHas(st, event) {
				t.Fatalf("job %s, history %+v", st.State, st.History)
			}
			var keys [][]*string
			for _, r := range j.want {
				keys = append(keys, r[:v.nkeys])
			}
			got := lookupView(t, j.c, j.id, v, keys)
			types := sinkTypes(t, v.columns)
			compareRows(t, normalize(t, got, types), normalize(t, j.want, types))
		})
	}
}
