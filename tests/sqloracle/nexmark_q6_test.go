package sqloracle

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/wasmbuild"
	"github.com/floe-stream/floe/minicluster"
	"github.com/floe-stream/floe/scheduler/api"
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
// brute force over the same events: at the oracle's event rate (400
// events per second of event time), and at the nexmark source's default
// rate, where the hand-written udfs/nexmark/q6.yaml runs over the same
// events on the same cluster and must write the same lines too.
func TestNexmarkQ6InSQL(t *testing.T) {
	dir := t.TempDir()
	c := startCluster(t, dir)
	for _, rate := range []int64{nexmarkRate, 0} {
		t.Run(fmt.Sprintf("rate-%d", rate), func(t *testing.T) {
			events, err := nexmark.Parse(nexmark.Generate(nexmarkEvents, rate, 0))
			if err != nil {
				t.Fatal(err)
			}
			want := nexmark.Q6(events)
			wins := map[int64]int{}
			for _, w := range nexmark.Winners(events) {
				wins[w.Auction.Seller]++
			}
			if most := slices.Max(slices.Collect(func(yield func(int) bool) {
				for _, n := range wins {
					yield(n)
				}
			})); len(want) == 0 || most <= nexmark.Q6Last {
				t.Fatalf("%d rows, at most %d closes of one seller: the query's frame is not exercised", len(want), most)
			}
			out := filepath.Join(dir, fmt.Sprintf("q6-%d", rate))
			tables := nexmarkTables()
			if rate == 0 { // NB: the source's default rate
				tables = strings.ReplaceAll(tables, fmt.Sprintf("events_per_second = '%d', ", nexmarkRate), "")
			}
			src := "SET parallelism = 2;\n" + tables +
				fmt.Sprintf("CREATE TABLE out (expires BIGINT, seller BIGINT, id BIGINT, average BIGINT) WITH (connector = 'file', path = '%s');\n", out) + nexmarkQ6
			got := runLines(t, c, src, out)
			if !slices.Equal(got, want) {
				t.Errorf("%d rows, the brute force %d; first difference: %s", len(got), len(want), firstDiff(got, want))
			}
			if rate != 0 {
				return
			}
			yaml := runQ6YAML(t, c, dir)
			if !slices.Equal(got, yaml) {
				t.Errorf("%d rows, udfs/nexmark/q6.yaml %d; first difference: %s", len(got), len(yaml), firstDiff(got, yaml))
			}
		})
	}
}

// runQ6YAML runs udfs/nexmark/q6.yaml over nexmarkEvents events at the
// source's default rate and returns its lines, sorted.
func runQ6YAML(t *testing.T, c *minicluster.Cluster, dir string) []string {
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	wasm, err := wasmbuild.Go(filepath.Join(root, "udfs", "nexmark"), dir)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := os.ReadFile(filepath.Join(root, "udfs", "nexmark", "q6.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "q6-yaml")
	ctx := context.Background()
	id, err := c.Scheduler.Submit(ctx, api.Submission{Spec: spec, Modules: map[string][]byte{"nexmark": mod},
		Params: map[string]string{"events": strconv.Itoa(nexmarkEvents), "output": out}})
	if err != nil {
		t.Fatal(err)
	}
	var st api.JobStatus
	waitFor(t, "the job to end", func() bool {
		st, err = c.Scheduler.Job(ctx, id)
		return err == nil && api.Terminal(st.State)
	})
	if st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	lines := changelogLines(t, out)
	slices.Sort(lines)
	return lines
}
