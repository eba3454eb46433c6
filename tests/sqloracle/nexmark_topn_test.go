package sqloracle

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/sqlrow"
	"github.com/floe-stream/floe/tests/nexmark"
)

// nexmarkTopN are Nexmark's window Top-N queries in SQL: q5, the auctions
// with the most bids in each 10 s window every 2 s (a RANK() over a HOP
// GROUP BY's rows, written with a group window and with a HOP TVF), and q7, the highest bids of each 10 s window (a RANK()
// over the bids of a TUMBLE window), ties kept in both.
var nexmarkTopN = []struct {
	name, sink, query string
	want              func(*nexmark.Events) []string
}{
	{"q5", "window_end BIGINT, auction BIGINT, num BIGINT", `INSERT INTO out
SELECT window_end, auction, num FROM (
  SELECT auction, num, window_start, window_end,
         RANK() OVER (PARTITION BY window_start, window_end ORDER BY num DESC) AS rk
  FROM (SELECT auction, window_start, window_end, COUNT(*) AS num FROM bid
        GROUP BY auction, HOP(date_time, INTERVAL '2' SECOND, INTERVAL '10' SECOND))
) WHERE rk <= 1;`, nexmark.Q5},
	{"q5-tvf", "window_end BIGINT, auction BIGINT, num BIGINT", `INSERT INTO out
SELECT window_end, auction, num FROM (
  SELECT auction, num, window_start, window_end,
         RANK() OVER (PARTITION BY window_start, window_end ORDER BY num DESC) AS rk
  FROM (SELECT auction, window_start, window_end, COUNT(*) AS num
        FROM TABLE(HOP(TABLE bid, DESCRIPTOR(date_time), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
        GROUP BY auction, window_start, window_end)
) WHERE rk <= 1;`, nexmark.Q5},
	{"q7", "window_end BIGINT, auction BIGINT, bidder BIGINT, price BIGINT", `INSERT INTO out
SELECT window_end, auction, bidder, price FROM (
  SELECT auction, bidder, price, window_end,
         RANK() OVER (PARTITION BY TUMBLE(date_time, INTERVAL '10' SECOND) ORDER BY price DESC) AS rk
  FROM bid
) WHERE rk <= 1;`, nexmark.Q7},
}

// TestNexmarkTopNInSQL runs Nexmark q5 and q7 written in SQL at
// parallelism 2 and compares each with tests/nexmark's brute force over
// the same events (the reference the hand-written udfs/nexmark/q5.yaml
// and q7.yaml are checked against too).
func TestNexmarkTopNInSQL(t *testing.T) {
	events, err := nexmark.Parse(nexmark.Generate(nexmarkEvents, nexmarkRate, 0))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	c := startCluster(t, dir)
	for _, tt := range nexmarkTopN {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want(events)
			if len(want) == 0 {
				t.Fatal("the brute force has no rows: the query tests nothing")
			}
			out := filepath.Join(dir, tt.name)
			src := "SET parallelism = 2;\n" + fmt.Sprintf(bidTable, nexmarkEvents, nexmarkRate) +
				fmt.Sprintf("CREATE TABLE out (%s) WITH (connector = 'file', path = '%s');\n", tt.sink, out) + tt.query
			got := runLines(t, c, src, out)
			if !slices.Equal(got, want) {
				t.Errorf("%d rows, the brute force %d; first difference: %s", len(got), len(want), firstDiff(got, want))
			}
		})
	}
}

// nexmarkQ9 is Nexmark q9 in SQL: each auction's winning bid, the highest
// of the bids between its start and its expiry (a join whose upper bound
// is the auction's expires), the earliest and then the lowest bidder of
// equal prices (a Top-1 over the join's rows).
const nexmarkQ9 = `INSERT INTO out
SELECT id, item_name, description, initial_bid, reserve, date_time, expires, seller, category, bidder, price, bid_time FROM (
  SELECT a.id, a.item_name, a.description, a.initial_bid, a.reserve, a.date_time, a.expires, a.seller, a.category,
         b.bidder, b.price, b.date_time AS bid_time,
         ROW_NUMBER() OVER (PARTITION BY a.id ORDER BY b.price DESC, b.date_time, b.bidder) AS rn
  FROM auction a JOIN bid b ON a.id = b.auction AND b.date_time BETWEEN a.date_time AND a.expires
) WHERE rn = 1;`

// TestNexmarkQ9InSQL runs Nexmark q9 written in SQL at parallelism 2,
// applies its changelog (an updating Top-1 per auction: each upsert
// replaces the auction's row) and compares the final rows with
// tests/nexmark's brute force over the same events.
func TestNexmarkQ9InSQL(t *testing.T) {
	events, err := nexmark.Parse(nexmark.Generate(nexmarkEvents, nexmarkRate, 0))
	if err != nil {
		t.Fatal(err)
	}
	want := nexmark.Q9(events)
	if len(want) == 0 {
		t.Fatal("the brute force has no rows: the query tests nothing")
	}
	dir := t.TempDir()
	c := startCluster(t, dir)
	out := filepath.Join(dir, "q9")
	src := "SET parallelism = 2;\n" + nexmarkTables() +
		fmt.Sprintf("CREATE TABLE out (id BIGINT, item_name VARCHAR, description VARCHAR, initial_bid BIGINT, reserve BIGINT, date_time BIGINT, expires BIGINT, seller BIGINT, category BIGINT, bidder BIGINT, price BIGINT, bid_time BIGINT)\n"+
			"  WITH (connector = 'file', path = '%s');\n", out) + nexmarkQ9
	// NB: runLines sorts the lines, but a changelog's order matters: read
	// the parts again in order.
	runLines(t, c, src, out)
	got := upsertedTable(t, out)
	if !slices.Equal(got, want) {
		t.Errorf("%d rows, the brute force %d; first difference: %s", len(got), len(want), firstDiff(got, want))
	}
}

// changelogLines returns the lines of the part files in out, each file's
// in the order written (an auction's rows all come from one subtask, so
// one file holds them in order).
func changelogLines(t *testing.T, out string) []string {
	parts, _ := filepath.Glob(filepath.Join(out, "part-*"))
	var lines []string
	for _, p := range parts {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.FieldsFunc(string(data), func(r rune) bool { return r == '\n' })...)
	}
	return lines
}

// TestNexmarkQ4InSQL runs Nexmark q4 written in SQL at parallelism 2 (the
// average winning price per category: a GROUP BY over q9's join, and an
// AVG over its updating result, which retracts a winning price when a
// higher bid replaces it), applies its changelog and compares the final
// table with a brute force over tests/nexmark's winners of the same
// events: each category's mean of its auctions' winning prices.
func TestNexmarkQ4InSQL(t *testing.T) {
	events, err := nexmark.Parse(nexmark.Generate(nexmarkEvents, nexmarkRate, 0))
	if err != nil {
		t.Fatal(err)
	}
	sums, counts := map[int64]float64{}, map[int64]int64{}
	for _, w := range nexmark.Winners(events) {
		sums[w.Auction.Category] += float64(w.Bid.Price)
		counts[w.Auction.Category]++
	}
	var want []string
	for cat, n := range counts {
		want = append(want, string(sqlrow.AppendCSV(nil, sqlrow.Row{sqlrow.Int(cat), sqlrow.Float(sums[cat] / float64(n))})))
	}
	slices.Sort(want)
	if len(want) == 0 {
		t.Fatal("the brute force has no rows: the query tests nothing")
	}
	dir := t.TempDir()
	c := startCluster(t, dir)
	out := filepath.Join(dir, "q4")
	src := "SET parallelism = 2;\n" + nexmarkTables() +
		fmt.Sprintf("CREATE TABLE out (category BIGINT, avg_price DOUBLE) WITH (connector = 'file', path = '%s');\n", out) + `INSERT INTO out
SELECT category, AVG(final) FROM (
  SELECT a.id, a.category, MAX(b.price) AS final
  FROM auction a JOIN bid b ON a.id = b.auction AND b.date_time BETWEEN a.date_time AND a.expires
  GROUP BY a.id, a.category
) GROUP BY category;`
	runLines(t, c, src, out)
	got := upsertedTable(t, out)
	if !slices.Equal(got, want) {
		t.Errorf("%d rows, the brute force %d; first difference: %s", len(got), len(want), firstDiff(got, want))
	}
}

// upsertedTable applies the changelog of upserts in the part files of out,
// each keyed by its first column, and returns the rows left, sorted.
func upsertedTable(t *testing.T, out string) []string {
	t.Helper()
	final := map[string]string{}
	for _, l := range changelogLines(t, out) {
		row, ok := strings.CutPrefix(l, "upsert,")
		if !ok {
			t.Fatalf("a changelog row that is not an upsert: %q", l)
		}
		key, _, _ := strings.Cut(row, ",")
		final[key] = row
	}
	return slices.Sorted(maps.Values(final))
}
