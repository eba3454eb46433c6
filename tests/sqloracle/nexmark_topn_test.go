package sqloracle

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/floe-stream/floe/tests/nexmark"
)

// nexmarkTopN are Nexmark's window Top-N queries in SQL: q5, the auctions
// with the most bids in each 10 s window every 2 s (a RANK() over a HOP
// GROUP BY's rows), and q7, the highest bids of each 10 s window (a RANK()
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
