package sqlc

import (
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// compileScalar compiles SELECT expr FROM t, t a table of one VARCHAR s
// and one BIGINT n, into a sink column of type typ, and returns the
// select's expression.
func compileScalar(t *testing.T, expr, typ string) *sqlexpr.Expr {
	t.Helper()
	src := "CREATE TABLE t (s VARCHAR, n BIGINT) WITH (connector = 'file', path = '/in.csv');\n" +
		"CREATE TABLE o (x " + typ + ") WITH (connector = 'file', path = '/out');\n" +
		"INSERT INTO o SELECT " + expr + " FROM t;"
	j, err := Compile(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	job, err := jobspec.Parse(j.Spec, "/", nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, j.Spec)
	}
	for _, op := range job.Operators {
		if op.SQL != nil && len(op.SQL.Select) == 1 {
			return op.SQL.Select[0]
		}
	}
	t.Fatalf("no select of one expression in\n%s", j.Spec)
	return nil
}

// The SQL forms PostgreSQL's grammar turns into calls or operators of
// their own (TRIM into btrim, ltrim and rtrim; POSITION(a IN b) into
// position(b, a); GREATEST and LEAST into a MinMaxExpr; NULLIF, ILIKE,
// ESCAPE and ~ into A_Exprs) compile to the functions of sqlexpr.
func TestScalarForms(t *testing.T) {
	row := sqlrow.Row{sqlrow.Str("xxHello, Worldxx"), sqlrow.Int(-3)}
	tests := []struct {
		expr, typ string
		want      sqlrow.Value
	}{
		{"TRIM(BOTH 'x' FROM s)", "VARCHAR", sqlrow.Str("Hello, World")},
		{"TRIM(LEADING 'x' FROM s)", "VARCHAR", sqlrow.Str("Hello, Worldxx")},
		{"TRIM(TRAILING 'x' FROM s)", "VARCHAR", sqlrow.Str("xxHello, World")},
		{"TRIM('x' FROM s)", "VARCHAR", sqlrow.Str("Hello, World")},
		{"TRIM(' a ')", "VARCHAR", sqlrow.Str("a")},
		{"LTRIM(s, 'x')", "VARCHAR", sqlrow.Str("Hello, Worldxx")},
		{"POSITION('o' IN s)", "BIGINT", sqlrow.Int(7)},
		{"STRPOS(s, 'World')", "BIGINT", sqlrow.Int(10)},
		{"GREATEST(n, 2, NULL)", "BIGINT", sqlrow.Int(2)},
		{"LEAST(n, 2.5)", "DOUBLE", sqlrow.Float(-3)},
		{"NULLIF(n, -3)", "BIGINT", sqlrow.Value{}},
		{"NULLIF(n, 3)", "BIGINT", sqlrow.Int(-3)},
		{"s ILIKE '%hello%'", "BOOLEAN", sqlrow.Bool(true)},
		{"s NOT ILIKE '%hello%'", "BOOLEAN", sqlrow.Bool(false)},
		{"'50%' LIKE '50!%' ESCAPE '!'", "BOOLEAN", sqlrow.Bool(true)},
		{"'500' LIKE '50!%' ESCAPE '!'", "BOOLEAN", sqlrow.Bool(false)},
		{"'500' NOT LIKE '50!%' ESCAPE '!'", "BOOLEAN", sqlrow.Bool(true)},
		{"'A_B' ILIKE 'a#_b' ESCAPE '#'", "BOOLEAN", sqlrow.Bool(true)},
		{"s ~ 'W.rld'", "BOOLEAN", sqlrow.Bool(true)},
		{"s ~ '^H'", "BOOLEAN", sqlrow.Bool(false)},
		{"s ~* 'WORLD'", "BOOLEAN", sqlrow.Bool(true)},
		{"s !~ 'World'", "BOOLEAN", sqlrow.Bool(false)},
		{"s !~* 'planet'", "BOOLEAN", sqlrow.Bool(true)},
		{"REGEXP_LIKE(s, 'hello', 'i')", "BOOLEAN", sqlrow.Bool(true)},
		{"POWER(2, 3)", "DOUBLE", sqlrow.Float(8)},
		{"SQRT(ABS(n) + 1)", "DOUBLE", sqlrow.Float(2)},
		{"TRUNC(PI(), 2)", "DOUBLE", sqlrow.Float(3.14)},
		{"SIGN(n)", "BIGINT", sqlrow.Int(-1)},
		{"SPLIT_PART(s, ', ', 2)", "VARCHAR", sqlrow.Str("Worldxx")},
		{"LPAD(CAST(n AS VARCHAR), 4, '0')", "VARCHAR", sqlrow.Str("00-3")},
		{"LEFT(s, 3) || RIGHT(s, 3)", "VARCHAR", sqlrow.Str("xxHdxx")},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			e := compileScalar(t, tt.expr, tt.typ)
			got, err := e.Eval(row)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("%v (%s), want %v (%s)", got, got.T, tt.want, tt.want.T)
			}
		})
	}
}

// A bad constant regular expression is an error of the script, pointed at
// the operator.
func TestBadRegexpPointsAtText(t *testing.T) {
	src := "CREATE TABLE t (s VARCHAR) WITH (connector = 'file', path = '/in.csv');\n" +
		"CREATE TABLE o (x BOOLEAN) WITH (connector = 'file', path = '/out');\n" +
		"INSERT INTO o SELECT s ~ 'a(' FROM t;"
	_, err := Compile(src, Options{})
	if err == nil || !strings.Contains(err.Error(), "line 3, column 24: ~: regexp_like: invalid regular expression") {
		t.Errorf("got %v", err)
	}
}
