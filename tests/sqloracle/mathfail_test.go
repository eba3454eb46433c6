package sqloracle

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/sqlc"
	"github.com/floe-stream/floe/scheduler/api"
)

// A math function outside its domain fails the job, as a division by
// zero does, with PostgreSQL's message: the bids' prices go below 500.
func TestMathDomainFailsTheJob(t *testing.T) {
	dir := t.TempDir()
	bids := filepath.Join(dir, "bids.csv")
	if err := writeBids(bids, 200); err != nil {
		t.Fatal(err)
	}
	cluster := startCluster(t, dir)
	for _, tc := range []struct{ expr, want string }{
		{"SQRT(price - 500)", "cannot take square root of a negative number"},
		{"LN(price - price)", "cannot take logarithm of zero"},
		{"CAST(price / (price - price) AS DOUBLE)", "division by zero"},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			src := fmt.Sprintf("CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, ts BIGINT) "+
				"WITH (connector = 'file', path = '%s', watermark = 'ts - 1s');\n"+
				"CREATE TABLE out (x DOUBLE) WITH (connector = 'file', path = '%s');\n"+
				"INSERT INTO out SELECT %s FROM bids;\n", bids, filepath.Join(dir, "out"), tc.expr)
			job, err := sqlc.Compile(src, sqlc.Options{Name: "mathfail"})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			id, err := cluster.Scheduler.Submit(ctx, api.Submission{Spec: job.Spec})
			if err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(time.Minute)
			for {
				st, err := cluster.Scheduler.Job(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if api.Terminal(st.State) {
					t.Logf("job %s: %s", st.State, st.Message)
					if st.State != api.JobFailed || !strings.Contains(st.Message, tc.want) {
						t.Errorf("job %s: %q, want FAILED with %q", st.State, st.Message, tc.want)
					}
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("job still %s after a minute", st.State)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}
