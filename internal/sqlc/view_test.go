package sqlc

import (
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// A view compiles to an updating GROUP BY keyed by the text of its keys,
// whose last operator keeps the view and feeds no sink.
func TestViewCompiles(t *testing.T) {
	src := bidsTable + "CREATE MATERIALIZED VIEW v AS SELECT channel, auction, COUNT(*) AS n, AVG(price) FROM bids GROUP BY channel, auction HAVING COUNT(*) > 2;"
	j, err := Compile(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	job, err := jobspec.Parse(j.Spec, "/", nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, j.Spec)
	}
	if _, err := plan.Build(job); err != nil {
		t.Fatal(err)
	}
	if len(job.Sinks) != 0 {
		t.Errorf("%d sinks, want none", len(job.Sinks))
	}
	if k := job.Operators[1].Key; k.Kind != jobspec.KeyRowText || k.Field != 2 {
		t.Errorf("the keyBy's key is %s, want text:2", k)
	}
	last := job.Operators[len(job.Operators)-1].SQL
	if last.View != "v" || last.Changelog || last.Where == nil {
		t.Errorf("the last program: %s, want the view v with HAVING and no changelog", last)
	}
	want := []string{"channel", "auction", "n", "avg"}
	if strings.Join(last.Names, ",") != strings.Join(want, ",") || last.Select[3].Type != sqlrow.Double {
		t.Errorf("the view's columns: %v, want %v with avg a DOUBLE", last.Names, want)
	}
}

func TestViewErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"not grouped", bidsTable + "CREATE MATERIALIZED VIEW v AS SELECT channel FROM bids;",
			"line 3, column 1: a materialized view is a GROUP BY without a window"},
		{"windowed", bidsTable + "CREATE MATERIALIZED VIEW v AS SELECT channel, COUNT(*) FROM bids GROUP BY channel, TUMBLE(ts, INTERVAL '1' SECOND);",
			"line 3, column 1: a materialized view is a GROUP BY without a window"},
		{"unnamed", bidsTable + "CREATE MATERIALIZED VIEW v AS SELECT channel, COUNT(*) + 1 FROM bids GROUP BY channel;",
			"line 3, column 47: name this column of the view"},
		{"two names", bidsTable + "CREATE MATERIALIZED VIEW v AS SELECT channel, COUNT(*) AS channel FROM bids GROUP BY channel;",
			`line 3, column 47: the view has two columns named "channel"`},
		{"table as", bidsTable + "CREATE TABLE v AS SELECT channel FROM bids;",
			"line 3, column 1: CREATE TABLE ... AS is not supported"},
		{"insert into", bidsTable + "CREATE MATERIALIZED VIEW v AS SELECT channel, COUNT(*) AS n FROM bids GROUP BY channel;\nINSERT INTO v SELECT channel, auction FROM bids;",
			"line 3, column 1: v is a materialized view: INSERT INTO it is not allowed"},
		{"read", bidsTable + "CREATE MATERIALIZED VIEW v AS SELECT channel, COUNT(*) AS n FROM bids GROUP BY channel;\n" +
			"CREATE TABLE o (c VARCHAR) WITH (connector = 'stdout');\nINSERT INTO o SELECT channel FROM v;",
			"line 3, column 1: reading a materialized view (v) in a query is not supported yet"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(tc.src, Options{})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got %v\nwant %s...", err, tc.want)
			}
		})
	}
}
