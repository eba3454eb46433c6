package sqloracle

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/floe-stream/floe/internal/wasmbuild"
)

// sdkQueries call spread (an aggregate) and series (a table function),
// which every SDK's conformance module holds (udfs/conformance/README.md),
// with the same meaning as udfs/sqlfns's: a TUMBLE window, a SESSION
// window (whose accumulators merge), an updating GROUP BY and a LATERAL
// join. DuckDB computes the same with built-ins and unnest.
var sdkQueries = []query{
	{name: "sdk-spread-tumble", sink: "auction BIGINT, ws BIGINT, s BIGINT",
		floe:   "INSERT INTO out SELECT auction, window_start, spread(price) FROM bids GROUP BY auction, TUMBLE(ts, INTERVAL '10' SECOND);",
		duckdb: "SELECT auction, ts // 10000 * 10000 AS ws, MAX(price) - MIN(price) FROM bids GROUP BY auction, ws;"},
	{name: "sdk-spread-session", sink: "bidder BIGINT, ws BIGINT, s BIGINT",
		floe: "INSERT INTO out SELECT bidder, window_start, spread(price) FROM bids GROUP BY bidder, SESSION(ts, INTERVAL '2' SECOND);",
		duckdb: `SELECT bidder, MIN(ts), MAX(price) - MIN(price) FROM (
  SELECT *, SUM(CASE WHEN d IS NULL OR d > 2000 THEN 1 ELSE 0 END) OVER (PARTITION BY bidder ORDER BY ts ROWS UNBOUNDED PRECEDING) AS sid
  FROM (SELECT *, ts - LAG(ts) OVER (PARTITION BY bidder ORDER BY ts) AS d FROM bids)) GROUP BY bidder, sid;`},
	{name: "sdk-spread-updating", sink: "channel VARCHAR, s BIGINT, n BIGINT", key: []int{0},
		floe:   "INSERT INTO out SELECT channel, spread(price), COUNT(*) FROM bids GROUP BY channel;",
		duckdb: "SELECT channel, MAX(price) - MIN(price), COUNT(*) FROM bids GROUP BY channel;"},
	{name: "sdk-series-lateral", sink: "auction BIGINT, i BIGINT, tag VARCHAR",
		floe:   "INSERT INTO out SELECT b.auction, u.i, u.tag FROM bids b CROSS JOIN LATERAL series(b.price, b.channel) AS u(i, tag);",
		duckdb: "SELECT auction, i, channel || '#' || CAST(i AS VARCHAR) FROM (SELECT auction, channel, unnest(range(1, price % 5 + 1)) AS i FROM bids WHERE price > 0);"},
}

// TestSDKFunctionsMatchDuckDB runs sdkQueries with spread and series from
// each SDK's module (Go, C, Rust, AssemblyScript): each must write
// DuckDB's rows. A language whose toolchain is missing fails its build
// with the package to install, as the conformance suite does.
func TestSDKFunctionsMatchDuckDB(t *testing.T) {
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
	want := runDuckDB(t, node, bids, sdkQueries)
	cluster := startCluster(t, dir)
	for _, lang := range []string{"go", "c", "rust", "as"} {
		t.Run(lang, func(t *testing.T) {
			fns := buildSDKModule(t, lang, filepath.Join(dir, lang))
			for _, q := range sdkQueries {
				t.Run(q.name, func(t *testing.T) {
					rows, ok := want.get(q.name)
					if !ok {
						t.Fatalf("DuckDB failed: %s", want.errors[q.name])
					}
					q.name = lang + "-" + q.name
					got := runFloe(t, cluster, dir, bids, fns, q)
					if q.key != nil {
						got, _ = finalTable(t, got, q.key)
					}
					types := sinkTypes(t, q.sink)
					t.Logf("floe %d rows, duckdb %d rows", len(got), len(rows))
					compareRows(t, normalize(t, got, types), normalize(t, rows, types))
				})
			}
		})
	}
}

// buildSDKModule builds a language's conformance module into dir as
// sqlfns.wasm, the module name the corpus's declarations give.
func buildSDKModule(t *testing.T, lang, dir string) *sqlFunctions {
	t.Helper()
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(root, "udfs", "conformance", lang)
	out := filepath.Join(dir, "sqlfns.wasm")
	if lang == "go" {
		p, err := wasmbuild.Go(src, filepath.Join(dir, "build"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(p, out); err != nil {
			t.Fatal(err)
		}
	} else {
		cmd := exec.Command("sh", filepath.Join(src, "build.sh"), out)
		cmd.Dir = src
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("building the %s module: %v\n%s", lang, err, b)
		}
	}
	wasm, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return &sqlFunctions{path: out, wasm: wasm}
}
