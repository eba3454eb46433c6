package sqloracle

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/floe-stream/floe/host/connector/builtin"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/internal/sqlc"
	"github.com/floe-stream/floe/minicluster"
	"github.com/floe-stream/floe/scheduler/api"
)

// The table every query reads.
var bidsColumns = [][2]string{{"auction", "BIGINT"}, {"bidder", "BIGINT"}, {"price", "BIGINT"}, {"channel", "VARCHAR"}, {"ts", "BIGINT"}}

// writeBids writes n rows of bids: ts grows by 37 ms a row with up to
// 500 ms of disorder, under the 1 s the table's watermark allows, so no
// row is late; about one price and one channel in 20 is NULL (empty).
func writeBids(path string, n int) error {
	r := rand.New(rand.NewPCG(19, 2026))
	channels := []string{"apple", "google", "facebook", "baidu"}
	var b bytes.Buffer
	const start = 1_700_000_000_000 // a multiple of every window size used
	for i := range n {
		price, channel := strconv.Itoa(1+r.IntN(1000)), channels[r.IntN(len(channels))]
		if r.IntN(20) == 0 {
			price = ""
		}
		if r.IntN(20) == 0 {
			channel = ""
		}
		fmt.Fprintf(&b, "%d,%d,%s,%s,%d\n", 1+r.IntN(20), 1+r.IntN(50), price, channel, start+int64(i)*37+r.Int64N(500))
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// A query of the corpus.
type query struct {
	name, sink, floe, duckdb string
	// key lists the 0-based sink columns that identify a row of an
	// updating query, whose output is a changelog; nil for the others.
	key []int
	// wasm makes the checkpointed tests declare udfs/sqlfns's functions
	// (recovery_test.go; the corpus always does).
	wasm bool
}

// readCorpus reads testdata/corpus.sql.
func readCorpus(t *testing.T) []query {
	data, err := os.ReadFile(filepath.Join("testdata", "corpus.sql"))
	if err != nil {
		t.Fatal(err)
	}
	var qs []query
	var cur *query
	inDuck := false
	for line := range strings.Lines(string(data)) {
		switch {
		case strings.HasPrefix(line, "-- name:"):
			qs = append(qs, query{name: strings.TrimSpace(strings.TrimPrefix(line, "-- name:"))})
			cur, inDuck = &qs[len(qs)-1], false
		case cur == nil:
		case strings.HasPrefix(line, "-- sink:"):
			cur.sink = strings.TrimSpace(strings.TrimPrefix(line, "-- sink:"))
		case strings.HasPrefix(line, "-- duckdb:"):
			inDuck = true
		case strings.HasPrefix(line, "-- key:"):
			for _, f := range strings.Split(strings.TrimSpace(strings.TrimPrefix(line, "-- key:")), ",") {
				n, err := strconv.Atoi(strings.TrimSpace(f))
				if err != nil || n < 1 {
					t.Fatalf("corpus query %s: -- key: wants 1-based column numbers, got %q", cur.name, line)
				}
				cur.key = append(cur.key, n-1)
			}
		case strings.HasPrefix(line, "--"):
		case inDuck:
			cur.duckdb += line
		default:
			cur.floe += line
		}
	}
	for i := range qs {
		q := &qs[i]
		// NB: SET statements, one a line, may come before the query.
		body := strings.TrimSpace(q.floe)
		for strings.HasPrefix(body, "SET ") {
			_, body, _ = strings.Cut(body, "\n")
			body = strings.TrimSpace(body)
		}
		if q.sink == "" || !strings.HasPrefix(body, "INSERT INTO out ") {
			t.Fatalf("corpus query %s: want -- sink: and INSERT INTO out SELECT ...", q.name)
		}
		if q.duckdb == "" {
			q.duckdb = strings.TrimPrefix(body, "INSERT INTO out ")
		}
	}
	return qs
}

func TestQueriesMatchDuckDB(t *testing.T) {
	if _, err := os.Stat(filepath.Join("node_modules", "@duckdb", "node-api")); err != nil {
		t.Skip("DuckDB, the oracle, is not installed: run `npm ci --prefix tests/sqloracle` (Node 20 and the npm registry)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on the PATH: the oracle runs DuckDB under Node")
	}
	qs := readCorpus(t)
	if len(qs) < 60 {
		t.Fatalf("the corpus has %d queries; keep at least 60 (issue 19)", len(qs))
	}
	dir := t.TempDir()
	bids := filepath.Join(dir, "bids.csv")
	if err := writeBids(bids, 3000); err != nil {
		t.Fatal(err)
	}
	want := runDuckDB(t, node, bids, qs)
	fns, err := buildFunctions(dir)
	if err != nil {
		t.Fatal(err)
	}
	cluster := startCluster(t, dir)
	for _, q := range qs {
		t.Run(q.name, func(t *testing.T) {
			rows, ok := want.get(q.name)
			if !ok {
				t.Fatalf("DuckDB failed: %s", want.errors[q.name])
			}
			types := sinkTypes(t, q.sink)
			got := runFloe(t, cluster, dir, bids, fns, q)
			if q.key != nil {
				var deletes int
				got, deletes = finalTable(t, got, q.key)
				t.Logf("the changelog holds %d deletes", deletes)
				if strings.HasSuffix(q.name, "-deletes") && deletes == 0 {
					t.Error("the changelog holds no delete: the query does not test them")
				}
			}
			t.Logf("floe %d rows, duckdb %d rows", len(got), len(rows))
			compareRows(t, normalize(t, got, types), normalize(t, rows, types))
		})
	}
}

func runDuckDB(t *testing.T, node, bids string, qs []query) duckResultsMap {
	type table struct {
		Name    string      `json:"name"`
		Path    string      `json:"path"`
		Columns [][2]string `json:"columns"`
	}
	type q struct {
		Name string `json:"name"`
		SQL  string `json:"sql"`
	}
	in := struct {
		Tables  []table `json:"tables"`
		Queries []q     `json:"queries"`
	}{Tables: []table{{"bids", bids, bidsColumns}, {"asks", asksFile(t, bids), asksColumns}, {"ticks", ticksFile(t, bids), ticksColumns}}}
	for _, x := range qs {
		in.Queries = append(in.Queries, q{x.name, x.duckdb})
	}
	body, _ := json.Marshal(in)
	cmd := exec.Command(node, "duckdb.mjs")
	cmd.Stdin = bytes.NewReader(body)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("duckdb.mjs: %v\n%s", err, stderr.String())
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(out, &raw); err != nil {
		t.Fatalf("duckdb.mjs printed %q: %v", out, err)
	}
	res := duckResultsMap{rowsOf: map[string][][]*string{}, errors: map[string]string{}}
	for name, m := range raw {
		var rows [][]*string
		if err := json.Unmarshal(m, &rows); err != nil {
			var e struct{ Error string }
			json.Unmarshal(m, &e)
			res.errors[name] = e.Error
			continue
		}
		res.rowsOf[name] = rows
	}
	return res
}

// duckResultsMap is DuckDB's answer: the rows of each query that ran, the
// error of each that did not.
type duckResultsMap struct {
	rowsOf map[string][][]*string
	errors map[string]string
}

func (d duckResultsMap) get(name string) ([][]*string, bool) {
	r, ok := d.rowsOf[name]
	return r, ok
}

func startCluster(t *testing.T, dir string) *minicluster.Cluster {
	return startClusterBatch(t, dir, 0)
}

// startClusterBatch starts a cluster whose tasks move at most batch
// records a batch (0: the task default).
func startClusterBatch(t *testing.T, dir string, batch int) *minicluster.Cluster {
	engine, err := udf.NewEngine(context.Background(), udf.Config{CacheDir: filepath.Join(dir, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.Close(context.Background()) })
	c, err := minicluster.Start(context.Background(), minicluster.Config{DataDir: filepath.Join(dir, "data"), Slots: 4, Engine: engine, BatchSize: batch})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	return c
}

// runFloe compiles q with the tables declared, runs it to its end at
// parallelism 2 and returns the rows its sink wrote.
func runFloe(t *testing.T, c *minicluster.Cluster, dir, bids string, fns *sqlFunctions, q query) [][]*string {
	out := filepath.Join(dir, "out-"+q.name)
	cols := make([]string, len(bidsColumns))
	for i, c := range bidsColumns {
		cols[i] = c[0] + " " + c[1]
	}
	q.floe = asksDDL(t, bids) + ticksDDL(t, bids) + q.floe // NB: joins read asks too (asks_test.go), time queries ticks (ticks_test.go)

	src := fmt.Sprintf("SET parallelism = 2;\n"+
		"CREATE TABLE bids (%s) WITH (connector = 'file', path = '%s', watermark = 'ts - 1s');\n"+
		"CREATE TABLE out (%s) WITH (connector = 'file', path = '%s');\n%s%s",
		strings.Join(cols, ", "), bids, q.sink, out, fns.decls(), q.floe)
	job, err := sqlc.Compile(src, sqlc.Options{Name: q.name})
	if err != nil {
		t.Fatalf("compiling:\n%v", err)
	}
	ctx := context.Background()
	id, err := c.Scheduler.Submit(ctx, api.Submission{Spec: job.Spec, Modules: fns.modules(job.Spec)})
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
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job still %s after 2 minutes", st.State)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return readParts(t, out)
}

// finalTable applies a changelog (rows of op, then the sink's columns),
// in order, to an empty table keyed by the columns key, and returns the
// rows left. Each key's changes come from one subtask, in order, and so
// lie in one part file in order. A retracting join's changelog (insert
// and delete) is a multiset of whole rows instead: an insert adds a copy,
// a delete removes one, and must find one.
func finalTable(t *testing.T, changes [][]*string, key []int) (rows [][]*string, deletes int) {
	table := map[string][]*string{}
	copies := map[string]int{}
	retracting := slices.ContainsFunc(changes, func(c []*string) bool { return len(c) > 0 && c[0] != nil && *c[0] == "insert" })
	for _, c := range changes {
		if retracting && len(c) > 0 && c[0] != nil && *c[0] == "insert" {
			copies[strings.Join(show(c[1:]), "\x00")]++
			table[strings.Join(show(c[1:]), "\x00")] = c[1:]
			continue
		}
		if full := strings.Join(show(c[1:]), "\x00"); retracting && len(c) > 0 && c[0] != nil && *c[0] == "delete" {
			if copies[full] == 0 {
				t.Fatalf("a delete of a row not inserted: %v", show(c))
			}
			copies[full]--
			deletes++
			continue
		}
		if len(c) == 0 || c[0] == nil {
			t.Fatalf("a changelog row without an op: %v", show(c))
		}
		row := c[1:]
		var k []string
		for _, i := range key {
			k = append(k, strings.Join(show(row[i:i+1]), ""))
		}
		id := strings.Join(k, "\x00")
		switch *c[0] {
		case "upsert":
			table[id] = row
		case "delete":
			delete(table, id)
			deletes++
		default:
			t.Fatalf("a changelog row with op %q: %v", *c[0], show(c))
		}
	}
	for id, r := range table {
		n := 1
		if retracting {
			n = copies[id]
		}
		for range n {
			rows = append(rows, r)
		}
	}
	return rows, deletes
}

// readParts reads every part file of a file sink as CSV, with Go's own CSV
// reader rather than Floe's: an unquoted empty field is NULL.
func readParts(t *testing.T, dir string) [][]*string {
	parts, err := filepath.Glob(filepath.Join(dir, "part-*"))
	if err != nil || len(parts) == 0 {
		t.Fatalf("no part files in %s (%v)", dir, err)
	}
	var rows [][]*string
	for _, p := range parts {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(string(data)) {
			r := csv.NewReader(strings.NewReader(line))
			fields, err := r.Read()
			if err == io.EOF {
				continue
			}
			if err != nil {
				t.Fatalf("%s: %q: %v", p, line, err)
			}
			row := make([]*string, len(fields))
			for i, f := range fields {
				if f != "" || strings.Contains(line, `""`) {
					row[i] = &fields[i]
				}
			}
			rows = append(rows, row)
		}
	}
	return rows
}

func sinkTypes(t *testing.T, sink string) []string {
	var types []string
	for _, col := range strings.Split(sink, ",") {
		f := strings.Fields(col)
		if len(f) != 2 {
			t.Fatalf("sink column %q: want NAME TYPE", col)
		}
		types = append(types, strings.ToUpper(f[1]))
	}
	return types
}

// normalize writes each row as one string, each value in a canonical form
// of its column's type: DOUBLEs to 12 significant digits, since the two
// engines may add in different orders.
func normalize(t *testing.T, rows [][]*string, types []string) []string {
	out := make([]string, len(rows))
	for i, row := range rows {
		if len(row) != len(types) {
			t.Fatalf("row %d has %d values, the sink %d: %v", i, len(row), len(types), show(row))
		}
		vals := make([]string, len(row))
		for j, v := range row {
			switch {
			case v == nil:
				vals[j] = "NULL"
			case types[j] == "DOUBLE":
				f, err := strconv.ParseFloat(*v, 64)
				if err != nil {
					t.Fatalf("row %d value %d: %q is not a DOUBLE", i, j, *v)
				}
				if f == 0 {
					f = 0 // NB: -0 and 0 are one value
				}
				vals[j] = strconv.FormatFloat(f, 'g', 12, 64)
				if math.IsNaN(f) {
					vals[j] = "NaN"
				}
			case types[j] == "TIMESTAMP":
				// NB: DuckDB leaves out a zero fraction, Floe writes
				// milliseconds always.
				ts, err := time.Parse("2006-01-02 15:04:05", *v)
				if err != nil {
					t.Fatalf("row %d value %d: %q is not a TIMESTAMP", i, j, *v)
				}
				vals[j] = ts.Format(time.RFC3339Nano)
			default:
				vals[j] = strconv.Quote(*v)
			}
		}
		out[i] = strings.Join(vals, ", ")
	}
	slices.Sort(out)
	return out
}

func show(row []*string) []string {
	s := make([]string, len(row))
	for i, v := range row {
		if v == nil {
			s[i] = "NULL"
		} else {
			s[i] = *v
		}
	}
	return s
}

// compareRows reports the rows one side has more of than the other.
func compareRows(t *testing.T, got, want []string) {
	t.Helper()
	if len(want) == 0 {
		t.Fatal("DuckDB returned no rows: the query tests nothing")
	}
	count := map[string]int{}
	for _, r := range want {
		count[r]++
	}
	for _, r := range got {
		count[r]--
	}
	var missing, extra []string
	for r, n := range count {
		for ; n > 0; n-- {
			missing = append(missing, r)
		}
		for ; n < 0; n++ {
			extra = append(extra, r)
		}
	}
	if len(missing)+len(extra) == 0 {
		return
	}
	slices.Sort(missing)
	slices.Sort(extra)
	t.Errorf("Floe wrote %d rows, DuckDB returned %d; %d rows missing from Floe's, %d extra", len(got), len(want), len(missing), len(extra))
	for i, r := range missing {
		if i == 10 {
			t.Errorf("  ... %d more missing", len(missing)-10)
			break
		}
		t.Errorf("  missing: %s", r)
	}
	for i, r := range extra {
		if i == 10 {
			t.Errorf("  ... %d more extra", len(extra)-10)
			break
		}
		t.Errorf("  extra:   %s", r)
	}
}
