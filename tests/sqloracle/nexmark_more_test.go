package sqloracle

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/floe-stream/floe/tests/nexmark"
)

// nexmarkTables declares the nexmark stream's three kinds of event as
// tables, each its own source of the same generated events.
func nexmarkTables() string {
	opts := fmt.Sprintf("count = '%d', events_per_second = '%d', watermark = 'date_time'", nexmarkEvents, nexmarkRate)
	return "CREATE TABLE person (id BIGINT, name VARCHAR, email_address VARCHAR, credit_card VARCHAR, city VARCHAR, state VARCHAR, date_time BIGINT)\n" +
		"  WITH (connector = 'nexmark', event = 'person', " + opts + ");\n" +
		"CREATE TABLE auction (id BIGINT, item_name VARCHAR, description VARCHAR, initial_bid BIGINT, reserve BIGINT, date_time BIGINT, expires BIGINT, seller BIGINT, category BIGINT)\n" +
		"  WITH (connector = 'nexmark', event = 'auction', " + opts + ");\n" +
		"CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time BIGINT)\n" +
		"  WITH (connector = 'nexmark', event = 'bid', " + opts + ");\n"
}

// TestNexmarkMoreInSQL runs Nexmark q3 and q11 written in SQL at
// parallelism 2 and compares each with tests/nexmark's brute force over the
// same events. q3 is a regular join whose event-time state TTL (1000 hours)
// outlasts the stream's 50 seconds, so no pair is lost to it: the
// unbounded join the brute force computes.
func TestNexmarkMoreInSQL(t *testing.T) {
	events, err := nexmark.Parse(nexmark.Generate(nexmarkEvents, nexmarkRate, 0))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, sink, query string
		want              []string
	}{
		{"q3", "name VARCHAR, city VARCHAR, state VARCHAR, id BIGINT",
			fmt.Sprintf("SET state_ttl = '1000h';\nINSERT INTO out SELECT p.name, p.city, p.state, a.id FROM auction a JOIN person p ON a.seller = p.id\n"+
				"WHERE a.category = %d AND p.state IN ('OR', 'ID', 'CA');", nexmark.Q3Category),
			nexmark.Q3(events)},
		{"q11", "bidder BIGINT, bids BIGINT, ws BIGINT, we BIGINT",
			fmt.Sprintf("INSERT INTO out SELECT bidder, COUNT(*), SESSION_START(date_time, INTERVAL '%[1]d milliseconds'), SESSION_END(date_time, INTERVAL '%[1]d milliseconds')\n"+
				"FROM bid GROUP BY bidder, SESSION(date_time, INTERVAL '%[1]d milliseconds');", nexmark.Q11Gap),
			nexmark.Q11(events)},
	}
	dir := t.TempDir()
	c := startCluster(t, dir)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.want) == 0 {
				t.Fatal("the brute force has no rows: the query tests nothing")
			}
			out := filepath.Join(dir, tt.name)
			src := "SET parallelism = 2;\n" + nexmarkTables() +
				fmt.Sprintf("CREATE TABLE out (%s) WITH (connector = 'file', path = '%s');\n", tt.sink, out) + tt.query
			got := runLines(t, c, src, out)
			if !slices.Equal(got, tt.want) {
				t.Errorf("%d rows, the brute force %d; first difference: %s", len(got), len(tt.want), firstDiff(got, tt.want))
			}
		})
	}
}
