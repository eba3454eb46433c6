package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/floe-stream/floe/internal/sqlc"
)

// sqlNexmarkScripts are Nexmark queries written in SQL (docs/sql.md), each
// run next to its hand-written job udfs/nexmark/<q>.yaml: q1, and the
// window Top-Ns q5 (RANK() over a HOP GROUP BY's rows) and q7 (RANK() over
// the bids of a TUMBLE window), as tests/sqloracle/nexmark_topn_test.go
// checks them.
var sqlNexmarkScripts = map[string]string{
	"q1": `CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time BIGINT)
  WITH (connector = 'nexmark', event = 'bid', count = '${events}', rate = '0');
CREATE TABLE out (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time BIGINT)
  WITH (connector = 'file', path = '${output}');
INSERT INTO out SELECT auction, bidder, price / 1000 * 908 + price % 1000 * 908 / 1000, channel, url, date_time FROM bid;
`,
	"q5": `CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time BIGINT)
  WITH (connector = 'nexmark', event = 'bid', count = '${events}', rate = '0', watermark = 'date_time');
CREATE TABLE out (window_end BIGINT, auction BIGINT, num BIGINT) WITH (connector = 'file', path = '${output}');
INSERT INTO out
SELECT window_end, auction, num FROM (
  SELECT auction, num, window_start, window_end,
         RANK() OVER (PARTITION BY window_start, window_end ORDER BY num DESC) AS rk
  FROM (SELECT auction, window_start, window_end, COUNT(*) AS num FROM bid
        GROUP BY auction, HOP(date_time, INTERVAL '2' SECOND, INTERVAL '10' SECOND))
) WHERE rk <= 1;
`,
	"q7": `CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time BIGINT)
  WITH (connector = 'nexmark', event = 'bid', count = '${events}', rate = '0', watermark = 'date_time');
CREATE TABLE out (window_end BIGINT, auction BIGINT, bidder BIGINT, price BIGINT) WITH (connector = 'file', path = '${output}');
INSERT INTO out
SELECT window_end, auction, bidder, price FROM (
  SELECT auction, bidder, price, window_end,
         RANK() OVER (PARTITION BY TUMBLE(date_time, INTERVAL '10' SECOND) ORDER BY price DESC) AS rk
  FROM bid
) WHERE rk <= 1;
`,
}

// sqlNexmarkRow returns the run function of row nexmark-<q>-sql.
func sqlNexmarkRow(q string) func(*env) (Result, error) {
	return func(e *env) (Result, error) { return benchSQLNexmark(e, nexmarkQueries[q], sqlNexmarkScripts[q]) }
}

// benchSQLNexmark runs a Nexmark query written in SQL and its hand-written
// Wasm job, alternately, each on a fresh mini-cluster at parallelism 2 over
// the same events, and reports SQL's events/s over the hand-written job's
// in the same run (the target: SQL within 20%, a ratio >= 0.8).
// Before timing, the SQL job's output must equal tests/nexmark's reference
// line for line; each timed run must write as many lines as the other.
func benchSQLNexmark(e *env, q nexmarkQuery, script string) (Result, error) {
	name := "nexmark-" + q.name + "-sql"
	events := min(nexmarkEvents, int64(e.cfg.Records))
	compiled, err := sqlc.Compile(script, sqlc.Options{Name: name})
	if err != nil {
		return Result{}, err
	}
	spec, err := os.ReadFile(filepath.Join(e.root, "udfs", "nexmark", q.name+".yaml"))
	if err != nil {
		return Result{}, err
	}
	wasm, err := e.wasm("nexmark")
	if err != nil {
		return Result{}, err
	}
	sqlJob, handJob := nexmarkJob{spec: compiled.Spec}, nexmarkJob{spec: spec, wasm: wasm}
	if err := e.checkNexmark(sqlJob, q, min(q.check, events)); err != nil {
		return Result{}, fmt.Errorf("checking the SQL job's output: %w", err)
	}
	var ss, hs []float64
	var lines int64
	for i := range e.cfg.Runs {
		s, err := e.runNexmark(sqlJob, events, nil)
		if err != nil {
			return Result{}, fmt.Errorf("SQL, run %d: %w", i+1, err)
		}
		h, err := e.runNexmark(handJob, events, nil)
		if err != nil {
			return Result{}, fmt.Errorf("hand-written, run %d: %w", i+1, err)
		}
		if s.lines == 0 || s.lines != h.lines {
			return Result{}, fmt.Errorf("run %d: the SQL job wrote %d lines, the hand-written one %d", i+1, s.lines, h.lines)
		}
		fmt.Fprintf(e.cfg.Log, "%s run %d: SQL %s events/s, hand-written Wasm %s events/s; %d output lines\n",
			name, i+1, human(s.rate), human(h.rate), s.lines)
		ss, hs, lines = append(ss, s.rate), append(hs, h.rate), s.lines
	}
	r := Result{Name: name, RecordsPerSec: median(ss), NativeRecordsPerSec: median(hs),
		Baseline: "the hand-written Wasm job udfs/nexmark/" + q.name + ".yaml, same run"}
	r.Ratio = r.RecordsPerSec / r.NativeRecordsPerSec
	r.Extra = map[string]any{"events": events, "output_lines": lines, "parallelism": nexmarkParallelism,
		"runs_events_per_sec": ss, "baseline_runs_events_per_sec": hs, "target_ratio_at_least": 0.8}
	r.Summary = fmt.Sprintf("Nexmark %s in SQL (compiled by internal/sqlc) at %s events/s over %d events; the hand-written Wasm job %s events/s: SQL / hand-written %.2f (target >= 0.80); output checked line by line against tests/nexmark over %d events. Both jobs generate the whole mixed stream and skip its persons and auctions (the SQL program by their line prefix, the Wasm by parsing)",
		q.name, human(r.RecordsPerSec), events, human(r.NativeRecordsPerSec), r.Ratio, min(q.check, events))
	return r, nil
}
