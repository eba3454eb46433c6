package sqloracle

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floe-stream/floe/tests/nexmark"
)

// TestNexmarkQ8InSQL runs Nexmark q8 (new users: the persons created in a
// 10-second window who opened an auction in the same window) as a SQL
// window join of persons and auctions, two tables of one nexmark stream,
// at parallelism 2, and compares it with tests/nexmark's brute force. The
// join finds a person once per auction it opened in the window, where the
// brute force lists each person once: SELECT DISTINCT makes the rows
// distinct, an updating result whose changelog of upserts (one per row and
// batch it is seen in, never a delete) is applied before comparing.
func TestNexmarkQ8InSQL(t *testing.T) {
	events, err := nexmark.Parse(nexmark.Generate(nexmarkEvents, nexmarkRate, 0))
	if err != nil {
		t.Fatal(err)
	}
	want := nexmark.Q8(events)
	if len(want) == 0 {
		t.Fatal("the brute force has no rows: the query tests nothing")
	}
	dir := t.TempDir()
	c := startCluster(t, dir)
	out := filepath.Join(dir, "q8")
	opts := fmt.Sprintf("count = '%d', events_per_second = '%d', watermark = 'date_time'", nexmarkEvents, nexmarkRate)
	src := "SET parallelism = 2;\n" +
		"CREATE TABLE person (id BIGINT, name VARCHAR, email_address VARCHAR, credit_card VARCHAR, city VARCHAR, state VARCHAR, date_time BIGINT)\n" +
		"  WITH (connector = 'nexmark', event = 'person', " + opts + ");\n" +
		"CREATE TABLE auction (id BIGINT, item_name VARCHAR, description VARCHAR, initial_bid BIGINT, reserve BIGINT, date_time BIGINT, expires BIGINT, seller BIGINT, category BIGINT)\n" +
		"  WITH (connector = 'nexmark', event = 'auction', " + opts + ");\n" +
		fmt.Sprintf("CREATE TABLE out (we BIGINT, id BIGINT, name VARCHAR) WITH (connector = 'file', path = '%s');\n", out) +
		"INSERT INTO out SELECT DISTINCT window_end, p.id, p.name FROM person p JOIN auction a\n" +
		"  ON p.id = a.seller AND TUMBLE(p.date_time, INTERVAL '10' SECOND) = TUMBLE(a.date_time, INTERVAL '10' SECOND);\n"
	var got []string
	for _, l := range runLines(t, c, src, out) {
		row, ok := strings.CutPrefix(l, "upsert,")
		if !ok {
			t.Fatalf("a changelog row that is not an upsert: %q", l)
		}
		got = append(got, row)
	}
	got = slices.Compact(got) // NB: applying upserts of one key twice leaves it once.
	if !slices.Equal(got, want) {
		t.Errorf("%d rows, the brute force %d; first difference: %s", len(got), len(want), firstDiff(got, want))
	}
}
