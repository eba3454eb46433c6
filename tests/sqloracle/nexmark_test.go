package sqloracle

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/sqlc"
	"github.com/floe-stream/floe/minicluster"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/tests/nexmark"
)

// The Nexmark stream the SQL queries read: 20,000 events, 50 s of event
// time, the same on every run (tests/nexmark generates it alike).
const (
	nexmarkEvents = 20_000
	nexmarkRate   = 400
)

const bidTable = `CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time BIGINT)
  WITH (connector = 'nexmark', event = 'bid', count = '%d', events_per_second = '%d', watermark = 'date_time');
`

// TestNexmarkInSQL runs Nexmark queries (q0, q1, q2 and a windowed count) written in SQL on the nexmark
// source at parallelism 2 and compares their output with tests/nexmark's
// brute force over the same events.
func TestNexmarkInSQL(t *testing.T) {
	lines := nexmark.Generate(nexmarkEvents, nexmarkRate, 0)
	events, err := nexmark.Parse(lines)
	if err != nil {
		t.Fatal(err)
	}
	var q0 []string // every bid as it stands
	for _, l := range lines {
		if b, ok := strings.CutPrefix(l, "B,"); ok {
			q0 = append(q0, b)
		}
	}
	slices.Sort(q0)
	perWindow := map[string]int{} // auction,start -> bids
	for _, b := range events.Bids {
		perWindow[fmt.Sprintf("%d,%d", b.Auction, b.DateTime-b.DateTime%10_000)]++
	}
	var windowed []string
	for k, n := range perWindow {
		windowed = append(windowed, fmt.Sprintf("%s,%d", k, n))
	}
	slices.Sort(windowed)
	tests := []struct {
		name, sink, query string
		want              []string
	}{
		{"q0", "auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time BIGINT",
			"INSERT INTO out SELECT * FROM bid;", q0},
		{"q1", "auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time BIGINT",
			"INSERT INTO out SELECT auction, bidder, price / 1000 * 908 + price % 1000 * 908 / 1000, channel, url, date_time FROM bid;",
			nexmark.Q1(events)},
		{"q2", "auction BIGINT, price BIGINT",
			"INSERT INTO out SELECT auction, price FROM bid WHERE auction % 123 = 0;",
			nexmark.Q2(events)},
		{"bids-per-auction-window", "auction BIGINT, ws BIGINT, n BIGINT",
			"INSERT INTO out SELECT auction, window_start, COUNT(*) FROM bid GROUP BY auction, TUMBLE(date_time, INTERVAL '10' SECOND);",
			windowed},
	}
	dir := t.TempDir()
	c := startCluster(t, dir)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.want) == 0 {
				t.Fatal("the brute force has no rows: the query tests nothing")
			}
			out := filepath.Join(dir, tt.name)
			src := "SET parallelism = 2;\n" + fmt.Sprintf(bidTable, nexmarkEvents, nexmarkRate) +
				fmt.Sprintf("CREATE TABLE out (%s) WITH (connector = 'file', path = '%s');\n", tt.sink, out) + tt.query
			got := runLines(t, c, src, out)
			if !slices.Equal(got, tt.want) {
				t.Errorf("%d rows, the brute force %d; first difference: %s", len(got), len(tt.want), firstDiff(got, tt.want))
			}
		})
	}
}

// runLines runs the script src to its end and returns the lines its file
// sink wrote to out, sorted.
func runLines(t *testing.T, c *minicluster.Cluster, src, out string) []string {
	job, err := sqlc.Compile(src, sqlc.Options{Name: "nexmark"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	id, err := c.Scheduler.Submit(ctx, api.Submission{Spec: job.Spec})
	if err != nil {
		t.Fatalf("%v\n%s", err, job.Spec)
	}
	var st api.JobStatus
	waitFor(t, "the job to end", func() bool {
		st, err = c.Scheduler.Job(ctx, id)
		return err == nil && api.Terminal(st.State)
	})
	if st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	parts, _ := filepath.Glob(filepath.Join(out, "part-*"))
	var lines []string
	for _, p := range parts {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		// NB: lines, not fields: a value may hold a space ("Peter Jones").
		lines = append(lines, strings.FieldsFunc(string(data), func(r rune) bool { return r == '\n' })...)
	}
	slices.Sort(lines)
	return lines
}

func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("row %d: got %q, want %q", i, got[i], want[i])
		}
	}
	return "one is a prefix of the other"
}
