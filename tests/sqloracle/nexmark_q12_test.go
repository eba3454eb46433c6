package sqloracle

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/floe-stream/floe/tests/nexmark"
)

// q12SQL is Nexmark q12 as Flink writes it: bids per bidder in tumbling
// windows of processing time, over a PROCTIME() column, as a window TVF
// and as a group window.
var q12SQL = []struct{ name, query string }{
	{"tvf", "INSERT INTO out SELECT bidder, COUNT(*), window_start, window_end\n" +
		"FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(p), INTERVAL '1' SECOND)) GROUP BY bidder, window_start, window_end;"},
	{"group-window", "INSERT INTO out SELECT bidder, COUNT(*), TUMBLE_START(p, INTERVAL '1' SECOND), TUMBLE_END(p, INTERVAL '1' SECOND)\n" +
		"FROM bid GROUP BY bidder, TUMBLE(p, INTERVAL '1' SECOND);"},
}

// TestNexmarkQ12InSQL runs q12 in SQL at parallelism 2 over a nexmark
// source paced to span a few 1-second windows. Which window a bid lands in
// depends on when it arrives, so the brute force can only give totals:
// each bidder's counts must sum to its bids among the events (every bid
// counted once), every window be aligned to its size, and a bidder have
// one row per window (tests/nexmark.CheckQ12). Nothing is asserted on
// timing.
func TestNexmarkQ12InSQL(t *testing.T) {
	events, err := nexmark.Parse(nexmark.Generate(nexmarkEvents, nexmarkRate, 0))
	if err != nil {
		t.Fatal(err)
	}
	totals := nexmark.Q12Totals(events)
	dir := t.TempDir()
	c := startCluster(t, dir)
	for _, q := range q12SQL {
		t.Run(q.name, func(t *testing.T) {
			out := filepath.Join(dir, q.name)
			src := fmt.Sprintf("SET parallelism = 2;\n"+
				"CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time BIGINT, p AS PROCTIME())\n"+
				"  WITH (connector = 'nexmark', event = 'bid', count = '%d', events_per_second = '%d', rate = '10000');\n"+
				"CREATE TABLE out (bidder BIGINT, bids BIGINT, ws BIGINT, we BIGINT) WITH (connector = 'file', path = '%s');\n%s",
				nexmarkEvents, nexmarkRate, out, q.query)
			windows, err := nexmark.CheckQ12(runLines(t, c, src, out), totals, 1000)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d bids of %d bidders in %d windows", len(events.Bids), len(totals), windows)
		})
	}
}
