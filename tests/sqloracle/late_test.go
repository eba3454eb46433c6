package sqloracle

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/sqlc"
	"github.com/floe-stream/floe/scheduler/api"
)

// Late rows: bids where one row in 40 (after the first 400) is 60 s behind
// its neighbours, far behind the watermark's 1 s, the others disordered by
// under 500 ms. Each window, join and regular join must drop exactly the
// late rows (docs/event-time.md: a record at or behind the watermark is
// late; its windows have fired), so Floe over all the rows must equal
// DuckDB over the rows the test itself finds on time, replaying the
// watermark rule.
const (
	lateRows    = 1200
	lateBehind  = 60_000 // ms a late row is behind its neighbours
	lateMargin  = 50_000 // ms behind the newest row seen beyond which a row is late
	lateRate    = 200    // rows a second: the watermark trails the newest row by under lateMargin
	watermarkMs = 1000
	lateBatch   = 32 // records a source reads at most per batch
)

var lateQueries = []query{
	{name: "late-tumble", sink: "auction BIGINT, ws BIGINT, n BIGINT, total BIGINT",
		floe:   "INSERT INTO out SELECT auction, TUMBLE_START(ts, INTERVAL '5' SECOND), COUNT(*), SUM(price) FROM bids GROUP BY auction, TUMBLE(ts, INTERVAL '5' SECOND);",
		duckdb: "SELECT auction, ts // 5000 * 5000 AS ws, COUNT(*), SUM(price) FROM bids GROUP BY auction, ws"},
	{name: "late-hop", sink: "channel VARCHAR, ws BIGINT, n BIGINT, hi BIGINT",
		floe:   "INSERT INTO out SELECT channel, HOP_START(ts, INTERVAL '2' SECOND, INTERVAL '10' SECOND), COUNT(*), MAX(price) FROM bids GROUP BY channel, HOP(ts, INTERVAL '2' SECOND, INTERVAL '10' SECOND);",
		duckdb: "SELECT channel, ts // 2000 * 2000 - k * 2000 AS ws, COUNT(*), MAX(price) FROM bids, range(0, 5) r(k) GROUP BY channel, ws"},
	{name: "late-interval-join", sink: "auction BIGINT, b1 BIGINT, b2 BIGINT, d BIGINT",
		floe: "INSERT INTO out SELECT a.auction, a.bidder, b.bidder, b.ts - a.ts FROM bids a JOIN bids b " +
			"ON a.auction = b.auction AND b.ts BETWEEN a.ts AND a.ts + INTERVAL '1' SECOND WHERE a.bidder <> b.bidder;",
		duckdb: "SELECT a.auction, a.bidder, b.bidder, b.ts - a.ts FROM bids a JOIN bids b " +
			"ON a.auction = b.auction AND b.ts BETWEEN a.ts AND a.ts + 1000 WHERE a.bidder <> b.bidder"},
	{name: "late-window-left-join", sink: "auction BIGINT, ws BIGINT, b1 BIGINT, b2 BIGINT",
		floe: "INSERT INTO out SELECT a.auction, window_start, a.bidder, b.bidder FROM bids a LEFT JOIN bids b " +
			"ON b.auction = a.auction + 1 AND TUMBLE(a.ts, INTERVAL '2' SECOND) = TUMBLE(b.ts, INTERVAL '2' SECOND);",
		duckdb: "SELECT a.auction, a.ts // 2000 * 2000, a.bidder, b.bidder FROM bids a LEFT JOIN bids b " +
			"ON b.auction = a.auction + 1 AND a.ts // 2000 = b.ts // 2000"},
	{name: "late-regular-left-join", sink: "auction BIGINT, b1 BIGINT, b2 BIGINT", key: []int{0},
		floe:   "SET state_ttl = '500ms';\nINSERT INTO out SELECT a.auction, a.bidder, b.bidder FROM bids a LEFT JOIN bids b ON b.auction = a.auction + 1;",
		duckdb: "SELECT a.auction, a.bidder, b.bidder FROM bids a LEFT JOIN bids b ON b.auction = a.auction + 1 AND abs(b.ts - a.ts) <= 500"},
}

// writeLateBids writes the bids with late rows to path and those on time
// to onTime.
func writeLateBids(t *testing.T, path, onTime string) (late int) {
	r := rand.New(rand.NewPCG(29, 2026))
	var all, kept bytes.Buffer
	const start = 1_700_000_000_000
	newest := int64(0)
	for i := range lateRows {
		ts := start + int64(i)*37 + r.Int64N(500)
		if i >= 400 && i%40 == 0 {
			ts = start + int64(i)*37 - lateBehind
		}
		line := fmt.Sprintf("%d,%d,%d,%s,%d\n", 1+r.IntN(20), 1+r.IntN(50), 1+r.IntN(1000), []string{"apple", "google", "baidu"}[r.IntN(3)], ts)
		all.WriteString(line)
		// NB: the watermark rule, replayed: a source's watermark is the
		// newest time read minus the delay minus 1 ms, and it is sent
		// between batches, at most once per watermark interval (200 ms);
		// a row within the delay of the newest is never late, and one
		// lateMargin behind is, once a watermark has gone out since. Every
		// late row is behind the first row, and the first is at row 400:
		// with batches of at most lateBatch rows and lateRate's pace, the
		// source takes over 1.5 s to read the rows before it, in more
		// than 12 batches, so a watermark past every late row has gone
		// out before it, on both of a join's inputs (sent in that order,
		// into the join's one queue), however the source is scheduled (a
		// stall only makes that longer): which rows are late is decided by
		// the file alone.
		switch behind := newest - ts; {
		case behind < watermarkMs:
			kept.WriteString(line)
		case behind > lateMargin:
			if ts >= start-watermarkMs-1 { // NB: row 0 is at start or later
				t.Fatalf("late row %d at %d is not behind every watermark after the first row", i, ts)
			}
			late++
		default:
			t.Fatalf("row %d is %d ms behind: neither surely on time nor surely late", i, behind)
		}
		newest = max(newest, ts)
	}
	if err := os.WriteFile(path, all.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(onTime, kept.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return late
}

// TestLateRowsAreDropped runs windows, joins and a regular outer join over
// bids with late rows at parallelism 1 (one reader, so one watermark that
// follows the file), paced, and compares with DuckDB over the rows on
// time.
func TestLateRowsAreDropped(t *testing.T) {
	if _, err := os.Stat(filepath.Join("node_modules", "@duckdb", "node-api")); err != nil {
		t.Skip("DuckDB, the oracle, is not installed: run `npm ci --prefix tests/sqloracle` (Node 20 and the npm registry)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on the PATH: the oracle runs DuckDB under Node")
	}
	dir := t.TempDir()
	bids, onTime := filepath.Join(dir, "bids.csv"), filepath.Join(dir, "on-time", "bids.csv")
	if err := os.MkdirAll(filepath.Dir(onTime), 0o755); err != nil {
		t.Fatal(err)
	}
	if late := writeLateBids(t, bids, onTime); late < 15 {
		t.Fatalf("%d late rows: the test checks too few", late)
	}
	want := runDuckDB(t, node, onTime, lateQueries)
	cluster := startClusterBatch(t, dir, lateBatch)
	for _, q := range lateQueries {
		t.Run(q.name, func(t *testing.T) {
			rows, ok := want.get(q.name)
			if !ok {
				t.Fatalf("DuckDB failed: %s", want.errors[q.name])
			}
			out := filepath.Join(dir, "out-"+q.name)
			src := fmt.Sprintf("SET parallelism = 1;\n"+
				"CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, ts BIGINT) "+
				"WITH (connector = 'file', path = '%s', rate = '%d', watermark = 'ts - 1s');\n"+
				"CREATE TABLE out (%s) WITH (connector = 'file', path = '%s');\n%s", bids, lateRate, q.sink, out, q.floe)
			job, err := sqlc.Compile(src, sqlc.Options{Name: q.name})
			if err != nil {
				t.Fatalf("compiling:\n%v", err)
			}
			runToEnd(t, cluster.Scheduler, job.Spec)
			got := readParts(t, out)
			if q.key != nil {
				got, _ = finalTable(t, got, q.key)
			}
			types := sinkTypes(t, q.sink)
			t.Logf("floe %d rows, duckdb %d rows", len(got), len(rows))
			compareRows(t, normalize(t, got, types), normalize(t, rows, types))
		})
	}
}

// runToEnd submits spec and waits for the job to finish.
func runToEnd(t *testing.T, s interface {
	Submit(context.Context, api.Submission) (string, error)
	Job(context.Context, string) (api.JobStatus, error)
}, spec []byte) {
	ctx := context.Background()
	id, err := s.Submit(ctx, api.Submission{Spec: spec})
	if err != nil {
		t.Fatalf("submitting: %v\n%s", err, spec)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		st, err := s.Job(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if api.Terminal(st.State) {
			if st.State != api.JobFinished {
				t.Fatalf("job %s: %s", strings.ToLower(st.State), st.Message)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("job still %s after 2 minutes", st.State)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
