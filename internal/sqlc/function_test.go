package sqlc

import (
	"errors"
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
	"github.com/floe-stream/floe/internal/sqlrow"
)

const bandFunc = "CREATE FUNCTION band(p BIGINT) RETURNS VARCHAR LANGUAGE wasm AS 'fns/sqlfns.wasm';\n"

// A query that calls a Wasm function reads the table into rows, calls the
// module once per call, and runs its program over the row with the
// results appended.
func TestFunctionCallsCompile(t *testing.T) {
	tests := []struct {
		name, query string
		// ops are the uid suffixes of the query's operators, calls the
		// functions they call ("" for none).
		ops, calls []string
	}{
		{"select", "INSERT INTO o SELECT auction, band(price) FROM bids WHERE band(price) <> 'low';",
			[]string{"read", "call1-band", "select"}, []string{"", "band", ""}},
		{"group by", "INSERT INTO o SELECT auction, band(price) FROM bids GROUP BY auction, band(price);",
			[]string{"read", "call1-band", "pre", "key", "group", "select"}, []string{"", "band", "", "", "", ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := bidsTable + bandFunc + "CREATE TABLE o (a BIGINT, b VARCHAR) WITH (connector = 'file', path = '/out');\n" + tc.query
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
			if got := job.Modules["sqlfns"]; got != "/jobs/fns/sqlfns.wasm" {
				t.Errorf("module sqlfns is %q, want the path relative to the script's directory", got)
			}
			if len(job.Operators) != len(tc.ops) {
				t.Fatalf("%d operators, want %d\n%s", len(job.Operators), len(tc.ops), j.Spec)
			}
			for i, op := range job.Operators {
				if !strings.HasSuffix(op.UID, "-"+tc.ops[i]) || op.Function != tc.calls[i] {
					t.Errorf("operator %d: %s calling %q, want ...-%s calling %q", i, op.UID, op.Function, tc.ops[i], tc.calls[i])
				}
			}
			call := job.Operators[1].SQL
			if call.Returns != sqlrow.Varchar || len(call.Select) != 1 || call.Select[0].Col != 2 {
				t.Errorf("the call's program: %s, want band's one argument, column 2 (price), returning VARCHAR", call)
			}
			if next := job.Operators[2].SQL; len(next.Columns) != 6 || next.Columns[5].Type != sqlrow.Varchar {
				t.Errorf("the program after the call reads %v, want bids' five columns and band's result", next.Columns)
			}
		})
	}
}

// The same call twice is made once.
func TestFunctionCallOnce(t *testing.T) {
	src := bidsTable + bandFunc + "CREATE TABLE o (a VARCHAR, b VARCHAR) WITH (connector = 'stdout');\n" +
		"INSERT INTO o SELECT band(price), BAND( price ) || 'x' FROM bids WHERE band(bidder) = 'low';"
	j, err := Compile(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	job, err := jobspec.Parse(j.Spec, "/", nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, op := range job.Operators {
		if op.Function != "" {
			calls++
		}
	}
	if calls != 2 {
		t.Errorf("%d calls, want 2: band(price) once and band(bidder)\n%s", calls, j.Spec)
	}
}

func TestFunctionErrors(t *testing.T) {
	out := "CREATE TABLE o (a VARCHAR) WITH (connector = 'stdout');\n"
	tests := []struct {
		name, src, want string
	}{
		{"unknown function", bidsTable + out + "INSERT INTO o SELECT bnd(price) FROM bids;",
			"line 4, column 22: unknown function bnd"},
		{"arity", bidsTable + bandFunc + out + "INSERT INTO o SELECT band(price, 2) FROM bids;",
			"line 5, column 22: band takes 1 argument(s) (BIGINT), got 2"},
		{"argument type", bidsTable + bandFunc + out + "INSERT INTO o SELECT band(channel) FROM bids;",
			"line 5, column 27: argument 1 of band is a VARCHAR, the function takes BIGINT (CAST it)"},
		{"after an aggregate", bidsTable + bandFunc + "CREATE TABLE o (a VARCHAR) WITH (connector = 'stdout');\n" +
			"INSERT INTO o SELECT band(COUNT(*)) FROM bids GROUP BY auction;",
			"line 5, column 22: band is a Wasm function: it takes a table's columns"},
		{"language", bidsTable + "CREATE FUNCTION f(a BIGINT) RETURNS BIGINT LANGUAGE plpgsql AS 'x.wasm';\n",
			"line 3, column 44: LANGUAGE plpgsql: a function is a Wasm module's (LANGUAGE wasm)"},
		{"no module", bidsTable + "CREATE FUNCTION f(a BIGINT) RETURNS BIGINT LANGUAGE wasm;\n",
			"line 3, column 1: f: AS 'module.wasm' is required"},
		{"built-in name", "CREATE FUNCTION upper(a VARCHAR) RETURNS VARCHAR LANGUAGE wasm AS 'x.wasm';\n",
			"line 1, column 1: upper is a built-in function"},
		{"declared twice", bandFunc + bandFunc, "line 2, column 1: function band is declared twice"},
		{"return type", "CREATE FUNCTION f(a BIGINT) RETURNS TIMESTAMP LANGUAGE wasm AS 'x.wasm';\n",
			"line 1, column 37: "},
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

// A module without the function is found when the spec is checked
// against the module's function table, and the error points at the
// CREATE FUNCTION.
func TestFunctionMissingExport(t *testing.T) {
	src := bidsTable + "SET parallelism = 1;\n" + bandFunc + "CREATE TABLE o (a VARCHAR) WITH (connector = 'stdout');\nINSERT INTO o SELECT band(price) FROM bids;"
	j, err := Compile(src, Options{Dir: "/"})
	if err != nil {
		t.Fatal(err)
	}
	job, err := jobspec.Parse(j.Spec, "/", nil)
	if err != nil {
		t.Fatal(err)
	}
	err = job.CheckFunctions("", map[string]map[string]jobspec.FunctionKind{"sqlfns": {"price_band": jobspec.FunctionMap}})
	if err == nil {
		t.Fatal("no error for a module without band")
	}
	got := j.Locate(err).Error()
	if want := `line 4, column 1: function band: module "sqlfns" has no function "band"`; !strings.HasPrefix(got, want) {
		t.Errorf("got %s\nwant %s...", got, want)
	}
}

// A module named by digest is passed to the spec as a reference, which the
// scheduler resolves; a script compiled with ModulesByDigest may name no
// path.
func TestFunctionModuleByDigest(t *testing.T) {
	digest := strings.Repeat("ab", 32)
	out := "CREATE TABLE o (a VARCHAR) WITH (connector = 'stdout');\nINSERT INTO o SELECT band(price) FROM bids;"
	src := bidsTable + "CREATE FUNCTION band(p BIGINT) RETURNS VARCHAR AS 'sha256:" + digest + "';\n" + out
	j, err := Compile(src, Options{ModulesByDigest: true})
	if err != nil {
		t.Fatal(err)
	}
	job, err := jobspec.Parse(j.Spec, "/", nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, j.Spec)
	}
	if ref, ok := job.ModuleRefs["m_abababababab"]; !ok || ref.Digest != digest {
		t.Errorf("module references %v, want m_abababababab of the digest", job.ModuleRefs)
	}
	_, err = Compile(bidsTable+bandFunc+out, Options{ModulesByDigest: true})
	var e *Error
	if !errors.As(err, &e) || e.Line != 3 || e.Column != 1 || !strings.Contains(e.Msg, "by digest") {
		t.Errorf("a path with ModulesByDigest: %v, want an error at line 3, column 1 asking for a digest", err)
	}
}
