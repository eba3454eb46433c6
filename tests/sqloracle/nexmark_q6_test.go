package sqloracle

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/floe-stream/floe/tests/nexmark"
)

// nexmarkQ6 is Nexmark q6 in SQL: at each auction's close with a winner,
// the average, rounded down, of the winning prices of its seller's last 10
// closed auctions, in order of expiry and then id (tests/nexmark.Q6). The
// subquery is each auction's winning price, a GROUP BY over q9's join that
// groups by the join's bound, a.expires, so it is final there: one row per
// auction, appended when the watermark passes its expiry. The OVER
// aggregate reads those rows in event-time order.
const nexmarkQ6 = `INSERT INTO out
SELECT expires, seller, id,
       CAST(FLOOR(AVG(final) OVER (PARTITION BY seller ORDER BY expires, id ROWS BETWEEN 9 PRECEDING AND CURRENT ROW)) AS BIGINT)
FROM (
  SELECT a.id, a.seller, a.expires, MAX(b.price) AS final
  FROM auction a JOIN bid b ON a.id = b.auction AND b.date_time BETWEEN a.date_time AND a.expires
  GROUP BY a.id, a.seller, a.expires
) AS closed;`

// TestNexmarkQ6InSQL runs Nexmark q6 written in SQL at parallelism 2 and
// compares its rows, appended and never updated, with tests/nexmark's
// brute force over the same events (the reference udfs/nexmark/q6.yaml is
// held to as well, in minicluster's TestNexmarkJoinQueries).
func TestNexmarkQ6InSQL(t *testing.T) {
	events, err := nexmark.Parse(nexmark.Generate(nexmarkEvents, nexmarkRate, 0))
	if err != nil {
		t.Fatal(err)
	}
	want := nexmark.Q6(events)
	wins := map[int64]int{}
	for _, w := range nexmark.Winners(events) {
		wins[w.Auction.Seller]++
	}
	if len(want) == 0 || slices.Max(mapValues(wins)) <= nexmark.Q6Last {
		t.Fatalf("%d rows, at most %d closes of one seller: the query's frame is not exercised", len(want), slices.Max(mapValues(wins)))
	}
	dir := t.TempDir()
	c := startCluster(t, dir)
	out := filepath.Join(dir, "q6")
	src := "SET parallelism = 2;\n" + nexmarkTables() +
		fmt.Sprintf("CREATE TABLE out (expires BIGINT, seller BIGINT, id BIGINT, average BIGINT) WITH (connector = 'file', path = '%s');\n", out) + nexmarkQ6
	got := runLines(t, c, src, out)
	t.Logf("%d rows; a seller closed at most %d auctions", len(got), slices.Max(mapValues(wins)))
	if !slices.Equal(got, want) {
		t.Errorf("%d rows, the brute force %d; first difference: %s", len(got), len(want), firstDiff(got, want))
	}
}

func mapValues(m map[int64]int) []int {
	v := []int{0}
	for _, n := range m {
		v = append(v, n)
	}
	return v
}
