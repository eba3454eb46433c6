package sqlc

import (
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

const (
	spreadAgg  = "CREATE AGGREGATE spread(x BIGINT) (RETURNS = BIGINT, MODULE = 'fns/sqlfns.wasm');\n"
	weightAgg  = "CREATE AGGREGATE weigh(DOUBLE, BIGINT) (RETURNS = DOUBLE, MODULE = 'fns/other.wasm', EXPORT = 'w');\n"
	seriesFunc = "CREATE FUNCTION series(n BIGINT, s VARCHAR) RETURNS TABLE (i BIGINT, tag VARCHAR) LANGUAGE wasm AS 'fns/sqlfns.wasm';\n"
	digitsFunc = "CREATE FUNCTION digits(n BIGINT) RETURNS SETOF BIGINT LANGUAGE wasm AS 'fns/sqlfns.wasm';\n"
)

// compileJob compiles src and parses and plans its spec.
func compileJob(t *testing.T, src string) (*Job, *jobspec.Job) {
	t.Helper()
	j, err := Compile(src, Options{Dir: "/jobs"})
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
	return j, job
}

// A Wasm aggregate is one more aggregate of the window or sqlGroup, whose
// call names its module, export, argument columns and result type; its
// module joins the spec's modules.
func TestWasmAggregatesCompile(t *testing.T) {
	tests := []struct {
		name, query string
		kind        string // the aggregation's operator
		aggs        []sqlprog.Agg
	}{
		{"window", "INSERT INTO o SELECT auction, spread(price), COUNT(*) FROM bids GROUP BY auction, TUMBLE(ts, INTERVAL '1' SECOND);", "window",
			[]sqlprog.Agg{{Fn: sqlprog.Wasm, Arg: -1, Call: &sqlprog.WasmCall{Module: "sqlfns", Function: "spread", Args: []int{1}, Returns: sqlrow.BigInt}},
				{Fn: sqlprog.Count, Arg: -1}}},
		{"updating, cast, twice", "INSERT INTO o SELECT auction, spread(price + 1), weigh(bidder, price) FROM bids GROUP BY auction HAVING spread(price+1) > 3;", "sqlGroup",
			[]sqlprog.Agg{{Fn: sqlprog.Wasm, Arg: -1, Call: &sqlprog.WasmCall{Module: "sqlfns", Function: "spread", Args: []int{1}, Returns: sqlrow.BigInt}},
				{Fn: sqlprog.Wasm, Arg: -1, Call: &sqlprog.WasmCall{Module: "other", Function: "w", Args: []int{2, 3}, Returns: sqlrow.Double}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := bidsTable + spreadAgg + weightAgg + "CREATE TABLE o (a BIGINT, b BIGINT, c DOUBLE) WITH (connector = 'file', path = '/out');\n" + tc.query
			_, job := compileJob(t, src)
			var agg *sqlprog.Aggregation
			for _, op := range job.Operators {
				if string(op.Type) == tc.kind {
					agg = op.SQLAggregation
				}
			}
			if agg == nil {
				t.Fatalf("no %s operator", tc.kind)
			}
			if got, want := agg.String(), (&sqlprog.Aggregation{Input: agg.Input, Keys: 1, Aggs: tc.aggs}).String(); got != want {
				t.Errorf("aggregation\n got %s\nwant %s", got, want)
			}
			if tc.kind == "sqlGroup" && (agg.Input[2] != sqlrow.Double || job.Modules["other"] != "/jobs/fns/other.wasm") {
				t.Errorf("weigh's first argument is %s (want the BIGINT cast to DOUBLE), module other is %q", agg.Input[2], job.Modules["other"])
			}
			if job.Modules["sqlfns"] != "/jobs/fns/sqlfns.wasm" {
				t.Errorf("modules: %v", job.Modules)
			}
			calls := job.Calls()
			if len(calls) == 0 || calls[0].Kind != jobspec.FunctionAggregate || calls[0].Function != "spread" {
				t.Errorf("the spec's calls %+v: want spread as an aggregate function, for the scheduler's check", calls)
			}
		})
	}
}

// A table function in FROM becomes two operators before the query's
// first: one reads the table into rows, one calls the function; the rest
// reads the table's columns and then the function's.
func TestTableFunctionsCompile(t *testing.T) {
	tests := []struct {
		name, decl, query string
		ops               []string
		rows              []sqlrow.Type
		// col is the column of the first program after the call that the
		// query's first SELECT item reads.
		col int
	}{
		{"comma lateral", seriesFunc, "INSERT INTO o SELECT u.tag, b.auction FROM bids b, LATERAL series(b.price, b.channel) AS u(i, tag) WHERE u.i > 1;",
			[]string{"read-bids", "lateral-series", "select"}, []sqlrow.Type{sqlrow.BigInt, sqlrow.Varchar}, 6},
		{"cross join, declared names", seriesFunc, "INSERT INTO o SELECT tag, auction FROM bids CROSS JOIN LATERAL series(price, channel);",
			[]string{"read-bids", "lateral-series", "select"}, []sqlrow.Type{sqlrow.BigInt, sqlrow.Varchar}, 6},
		{"setof, alias names the column, grouped", digitsFunc, "INSERT INTO o SELECT CAST(d AS VARCHAR), COUNT(*) FROM bids JOIN LATERAL digits(price) d ON TRUE GROUP BY d;",
			[]string{"read-bids", "lateral-digits", "pre", "key", "group", "select"}, []sqlrow.Type{sqlrow.BigInt}, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := bidsTable + tc.decl + "CREATE TABLE o (a VARCHAR, b BIGINT) WITH (connector = 'file', path = '/out');\n" + tc.query
			_, job := compileJob(t, src)
			if len(job.Operators) != len(tc.ops) {
				t.Fatalf("%d operators, want %d", len(job.Operators), len(tc.ops))
			}
			for i, op := range job.Operators {
				if !strings.HasSuffix(op.UID, "-"+tc.ops[i]) {
					t.Errorf("operator %d is %s, want ...-%s", i, op.UID, tc.ops[i])
				}
			}
			call := job.Operators[1].SQL
			if job.Operators[1].Function == "" || len(call.Rows) != len(tc.rows) || call.Rows[0] != tc.rows[0] || call.Select[0].Col != 2 {
				t.Errorf("the call: %s calling %q, want rows %v from column 2 (price)", call, job.Operators[1].Function, tc.rows)
			}
			next := job.Operators[2].SQL
			if len(next.Columns) != 5+len(tc.rows) || next.In != sqlprog.FormatRow {
				t.Errorf("the program after the call reads %v, want the table's 5 columns and the function's", next.Columns)
			}
			if tc.col >= 0 && next.Select[0].Col != tc.col {
				t.Errorf("the first SELECT item reads column %d, want %d", next.Select[0].Col, tc.col)
			}
			if in := job.Operators[0].Inputs; len(in) != 1 || in[0] != "bids" {
				t.Errorf("the query reads %v, want the table bids", in)
			}
		})
	}
}

func TestAggregateAndTableFunctionErrors(t *testing.T) {
	out := "CREATE TABLE o (a BIGINT) WITH (connector = 'stdout');\n"
	tests := []struct {
		name, src, want string
	}{
		{"aggregate as a key", bidsTable + spreadAgg + out + "INSERT INTO o SELECT COUNT(*) FROM bids GROUP BY spread(price);",
			"line 5, column 50: spread is an aggregate function: call it in the SELECT list or HAVING of a query with GROUP BY"},
		{"aggregate in WHERE", bidsTable + spreadAgg + out + "INSERT INTO o SELECT auction FROM bids WHERE spread(price) > 1 GROUP BY auction;",
			"line 5, column 46: spread is an aggregate function"},
		{"aggregate arity", bidsTable + spreadAgg + out + "INSERT INTO o SELECT spread(price, 1) FROM bids GROUP BY auction;",
			"line 5, column 22: spread takes 1 argument(s) (BIGINT), got 2"},
		{"aggregate argument type", bidsTable + spreadAgg + out + "INSERT INTO o SELECT spread(channel) FROM bids GROUP BY auction;",
			"line 5, column 29: argument 1 of spread is a VARCHAR, the function takes BIGINT (CAST it)"},
		{"aggregate star", bidsTable + spreadAgg + out + "INSERT INTO o SELECT spread(*) FROM bids GROUP BY auction;",
			"line 5, column 22: spread(*) and spread(DISTINCT ...) are not supported"},
		{"aggregate without RETURNS", "CREATE AGGREGATE f(BIGINT) (MODULE = 'x.wasm');\n", "line 1, column 1: f: RETURNS = type is required"},
		{"aggregate without MODULE", "CREATE AGGREGATE f(BIGINT) (RETURNS = BIGINT);\n", "line 1, column 1: f: MODULE = 'module.wasm' is required"},
		{"aggregate, PostgreSQL's form", "CREATE AGGREGATE f(BIGINT) (SFUNC = g, STYPE = BIGINT);\n", "line 1, column 29: SFUNC: a Wasm aggregate is declared CREATE AGGREGATE"},
		{"aggregate of a built-in's name", "CREATE AGGREGATE sum(BIGINT) (RETURNS = BIGINT, MODULE = 'x.wasm');\n", "line 1, column 1: sum is a built-in function"},
		{"table function in SELECT", bidsTable + seriesFunc + out + "INSERT INTO o SELECT series(price, channel) FROM bids;",
			"line 5, column 22: series is a table function: call it in FROM"},
		{"scalar function in FROM", bidsTable + bandFunc + out + "INSERT INTO o SELECT auction FROM bids, LATERAL band(price);",
			"line 5, column 49: band is not a table function"},
		{"ambiguous column", bidsTable + "CREATE FUNCTION f(n BIGINT) RETURNS TABLE (price BIGINT) LANGUAGE wasm AS 'x.wasm';\n" + out +
			"INSERT INTO o SELECT price FROM bids, LATERAL f(auction);", "line 5, column 22: column \"price\" is ambiguous: bids.price or f.price"},
		{"unknown qualifier", bidsTable + seriesFunc + out + "INSERT INTO o SELECT v.i FROM bids, series(price, channel) u;",
			"line 5, column 22: unknown table \"v\" (the query reads bids and u)"},
		{"outer lateral", bidsTable + seriesFunc + out + "INSERT INTO o SELECT i FROM bids LEFT JOIN LATERAL series(price, channel) ON TRUE;",
			"line 5, column 29: a table function joins its table as CROSS JOIN LATERAL"},
		{"too many column names", bidsTable + seriesFunc + out + "INSERT INTO o SELECT i FROM bids, series(price, channel) AS u(i, t, x);",
			"line 5, column 35: series returns 2 column(s), the alias names 3"},
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

// A Wasm aggregate that its module exports as a record function, or not
// at all, is found when the spec is checked against the module's function
// table, and the error points at the CREATE AGGREGATE; one named by digest
// is a module reference.
func TestWasmAggregateChecks(t *testing.T) {
	src := bidsTable + "SET parallelism = 1;\n" + spreadAgg + "CREATE TABLE o (a BIGINT) WITH (connector = 'stdout');\n" +
		"INSERT INTO o SELECT spread(price) FROM bids GROUP BY auction;"
	_, job := compileJob(t, src)
	j, _ := Compile(src, Options{Dir: "/jobs"})
	for _, tc := range []struct {
		table map[string]jobspec.FunctionKind
		want  string
	}{
		{map[string]jobspec.FunctionKind{"spread": jobspec.FunctionMap}, `line 4, column 1: function spread: "spread" is a map function in module "sqlfns"; this operator needs an aggregate`},
		{map[string]jobspec.FunctionKind{"other": jobspec.FunctionAggregate}, `line 4, column 1: function spread: module "sqlfns" has no function "spread"`},
	} {
		err := job.CheckFunctions("", map[string]map[string]jobspec.FunctionKind{"sqlfns": tc.table})
		if err == nil {
			t.Fatalf("no error for the table %v", tc.table)
		}
		if got := j.Locate(err).Error(); !strings.HasPrefix(got, tc.want) {
			t.Errorf("got %s\nwant %s...", got, tc.want)
		}
	}
	if err := job.CheckFunctions("", map[string]map[string]jobspec.FunctionKind{"sqlfns": {"spread": jobspec.FunctionAggregate}}); err != nil {
		t.Errorf("an aggregate function: %v", err)
	}
	digest := strings.Repeat("cd", 32)
	src = bidsTable + "CREATE AGGREGATE spread(BIGINT) (RETURNS = BIGINT, MODULE = 'sha256:" + digest + "');\n" +
		"CREATE TABLE o (a BIGINT) WITH (connector = 'stdout');\nINSERT INTO o SELECT spread(price) FROM bids GROUP BY auction;"
	j, err := Compile(src, Options{ModulesByDigest: true})
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := jobspec.Parse(j.Spec, "/", nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, j.Spec)
	}
	if ref, ok := parsed.ModuleRefs["m_cdcdcdcdcdcd"]; !ok || ref.Digest != digest {
		t.Errorf("module references %v, want m_cdcdcdcdcdcd of the digest", parsed.ModuleRefs)
	}
}
