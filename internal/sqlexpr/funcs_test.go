package sqlexpr

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/sqlrow"
)

func s(v string) *Expr  { return Lit(sqlrow.Str(v)) }
func f(v float64) *Expr { return Lit(sqlrow.Float(v)) }

var nullLit = &Expr{Op: OpLit, Type: sqlrow.Null}

// evalCase is one node to build, Check and evaluate over row, and what it
// must give: want, or an error that is err (errAny for any).
type evalCase struct {
	name string
	op   Op
	fn   string
	args []*Expr
	want sqlrow.Value
	err  error
}

func runEval(t *testing.T, tests []evalCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := tt.op
			if op == "" {
				op = OpCall
			}
			e, err := New(op, tt.fn, 0, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			if err := Check(e, types); err != nil {
				t.Fatalf("Check: %v", err)
			}
			got, err := e.Eval(row)
			switch {
			case tt.err == errAny && err != nil:
				return
			case tt.err != nil:
				if !errors.Is(err, tt.err) {
					t.Fatalf("error %v, want %v", err, tt.err)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if got.T != tt.want.T || got.I != tt.want.I || got.S != tt.want.S || math.Abs(got.F-tt.want.F) > 1e-12 {
				t.Errorf("got %v (%s), want %v (%s)", got, got.T, tt.want, tt.want.T)
			}
		})
	}
}

func TestStringFunctions(t *testing.T) {
	vs := func(v string) sqlrow.Value { return sqlrow.Str(v) }
	runEval(t, []evalCase{
		{name: "btrim spaces", fn: "btrim", args: []*Expr{s("  a b  ")}, want: vs("a b")},
		{name: "btrim a set of characters", fn: "btrim", args: []*Expr{s("xyaxbyx"), s("yx")}, want: vs("axb")},
		{name: "ltrim", fn: "ltrim", args: []*Expr{s("  a  ")}, want: vs("a  ")},
		{name: "ltrim chars", fn: "ltrim", args: []*Expr{s("ééabé"), s("é")}, want: vs("abé")},
		{name: "rtrim", fn: "rtrim", args: []*Expr{s("  a  ")}, want: vs("  a")},
		{name: "rtrim chars", fn: "rtrim", args: []*Expr{s("a.,.,"), s(".,")}, want: vs("a")},
		{name: "trim null chars", fn: "btrim", args: []*Expr{s("a"), nullLit}, want: sqlrow.Value{}},
		{name: "replace", fn: "replace", args: []*Expr{s("abcabc"), s("bc"), s("X")}, want: vs("aXaX")},
		{name: "replace with empty", fn: "replace", args: []*Expr{s("abcabc"), s("b"), s("")}, want: vs("acac")},
		{name: "replace empty from leaves it", fn: "replace", args: []*Expr{s("abc"), s(""), s("X")}, want: vs("abc")},
		{name: "replace null", fn: "replace", args: []*Expr{s("abc"), s("b"), nullLit}, want: sqlrow.Value{}},
		{name: "strpos counts characters", fn: "strpos", args: []*Expr{str, s("llo")}, want: sqlrow.Int(3)},
		{name: "strpos missing", fn: "strpos", args: []*Expr{s("abc"), s("d")}, want: sqlrow.Int(0)},
		{name: "strpos empty", fn: "strpos", args: []*Expr{s("abc"), s("")}, want: sqlrow.Int(1)},
		{name: "position", fn: "position", args: []*Expr{s("abcb"), s("b")}, want: sqlrow.Int(2)},
		{name: "lpad", fn: "lpad", args: []*Expr{s("hi"), num(5), s("xy")}, want: vs("xyxhi")},
		{name: "lpad space", fn: "lpad", args: []*Expr{s("hi"), num(4)}, want: vs("  hi")},
		{name: "lpad cuts", fn: "lpad", args: []*Expr{s("hello"), num(2), s("x")}, want: vs("he")},
		{name: "lpad negative", fn: "lpad", args: []*Expr{s("hello"), num(-1)}, want: vs("")},
		{name: "lpad empty fill", fn: "lpad", args: []*Expr{s("hi"), num(5), s("")}, want: vs("hi")},
		{name: "lpad too long", fn: "lpad", args: []*Expr{s("hi"), num(1 << 40)}, err: ErrStringTooLong},
		{name: "rpad", fn: "rpad", args: []*Expr{s("hé"), num(5), s("ab")}, want: vs("héaba")},
		{name: "rpad cuts", fn: "rpad", args: []*Expr{s("héllo"), num(2)}, want: vs("hé")},
		{name: "initcap", fn: "initcap", args: []*Expr{s("hELLO wORLD-foo 1st")}, want: vs("Hello World-Foo 1st")},
		{name: "initcap accents", fn: "initcap", args: []*Expr{s("élan vital")}, want: vs("Élan Vital")},
		{name: "reverse", fn: "reverse", args: []*Expr{str}, want: vs("olléH")},
		{name: "left", fn: "left", args: []*Expr{str, num(2)}, want: vs("Hé")},
		{name: "left negative", fn: "left", args: []*Expr{s("abcde"), num(-2)}, want: vs("abc")},
		{name: "left past the end", fn: "left", args: []*Expr{s("ab"), num(5)}, want: vs("ab")},
		{name: "left very negative", fn: "left", args: []*Expr{s("ab"), num(-5)}, want: vs("")},
		{name: "right", fn: "right", args: []*Expr{str, num(4)}, want: vs("éllo")},
		{name: "right negative", fn: "right", args: []*Expr{s("abcde"), num(-2)}, want: vs("cde")},
		{name: "right null count", fn: "right", args: []*Expr{s("abcde"), null}, want: sqlrow.Value{}},
		{name: "split_part", fn: "split_part", args: []*Expr{s("a,b,,c"), s(","), num(2)}, want: vs("b")},
		{name: "split_part empty field", fn: "split_part", args: []*Expr{s("a,b,,c"), s(","), num(3)}, want: vs("")},
		{name: "split_part past the end", fn: "split_part", args: []*Expr{s("a,b"), s(","), num(3)}, want: vs("")},
		{name: "split_part from the end", fn: "split_part", args: []*Expr{s("a::b::c"), s("::"), num(-1)}, want: vs("c")},
		{name: "split_part empty delimiter", fn: "split_part", args: []*Expr{s("abc"), s(""), num(1)}, want: vs("abc")},
		{name: "split_part zero", fn: "split_part", args: []*Expr{s("abc"), s(","), num(0)}, err: errAny},
		{name: "repeat", fn: "repeat", args: []*Expr{s("ab"), num(3)}, want: vs("ababab")},
		{name: "repeat zero", fn: "repeat", args: []*Expr{s("ab"), num(0)}, want: vs("")},
		{name: "repeat negative", fn: "repeat", args: []*Expr{s("ab"), num(-2)}, want: vs("")},
		{name: "repeat too long", fn: "repeat", args: []*Expr{s("ab"), num(math.MaxInt64)}, err: ErrStringTooLong},
		{name: "upper of null", fn: "initcap", args: []*Expr{nullLit}, want: sqlrow.Value{}},
	})
}

func TestMatching(t *testing.T) {
	yes, no := sqlrow.Bool(true), sqlrow.Bool(false)
	runEval(t, []evalCase{
		{name: "ilike", op: OpILike, args: []*Expr{str, s("hÉ%")}, want: yes},
		{name: "ilike no", op: OpILike, args: []*Expr{str, s("x%")}, want: no},
		{name: "ilike null", op: OpILike, args: []*Expr{nullLit, s("x%")}, want: sqlrow.Value{}},
		{name: "like escape percent", op: OpLike, args: []*Expr{s("50%"), s("50!%"), s("!")}, want: yes},
		{name: "like escaped percent is literal", op: OpLike, args: []*Expr{s("500"), s("50!%"), s("!")}, want: no},
		{name: "like escape underscore", op: OpLike, args: []*Expr{s("a_b"), s(`a\_b`), s(`\`)}, want: yes},
		{name: "like escaped underscore is literal", op: OpLike, args: []*Expr{s("axb"), s(`a\_b`), s(`\`)}, want: no},
		{name: "like escape the escape", op: OpLike, args: []*Expr{s("a!b"), s("a!!%"), s("!")}, want: yes},
		{name: "like empty escape", op: OpLike, args: []*Expr{s(`a\x`), s(`a\%`), s("")}, want: yes},
		{name: "like no default escape", op: OpLike, args: []*Expr{s(`a\x`), s(`a\%`)}, want: yes},
		{name: "like escape at the end", op: OpLike, args: []*Expr{s("a"), s("a!"), s("!")}, err: errAny},
		{name: "like long escape", op: OpLike, args: []*Expr{s("a"), s("a"), s("!!")}, err: errAny},
		{name: "ilike upper-case escape", op: OpILike, args: []*Expr{s("a%b"), s("aE%b"), s("E")}, want: yes},
		{name: "ilike escape", op: OpILike, args: []*Expr{s("A%B"), s("a#%b"), s("#")}, want: yes},
		{name: "regexp somewhere", fn: "regexp_like", args: []*Expr{str, s("l+o$")}, want: yes},
		{name: "regexp anchored", fn: "regexp_like", args: []*Expr{str, s("^l")}, want: no},
		{name: "regexp case", fn: "regexp_like", args: []*Expr{str, s("^h")}, want: no},
		{name: "regexp flag i", fn: "regexp_like", args: []*Expr{str, s("^h"), s("i")}, want: yes},
		{name: "regexp dot matches newline", fn: "regexp_like", args: []*Expr{s("a\nb"), s("a.b")}, want: yes},
		{name: "regexp pattern from a column", fn: "regexp_like", args: []*Expr{s("xHéllox"), str}, want: yes},
		{name: "regexp null", fn: "regexp_like", args: []*Expr{nullLit, s("a")}, want: sqlrow.Value{}},
	})
}

func TestRegexpConstantCompiledOnce(t *testing.T) {
	e, err := New(OpCall, "regexp_like", 0, str, s("^H"))
	if err != nil {
		t.Fatal(err)
	}
	if e.re == nil {
		t.Fatal("a constant pattern is not compiled by New")
	}
	var back Expr
	if err := json.Unmarshal([]byte(`{"op":"call","type":"BOOLEAN","fn":"regexp_like","args":[{"op":"col","type":"VARCHAR","col":2},{"op":"lit","type":"VARCHAR","lit":{"t":"VARCHAR","s":"^H"}}]}`), &back); err != nil {
		t.Fatal(err)
	}
	if err := Check(&back, types); err != nil || back.re == nil {
		t.Fatalf("Check of a tree from a spec: %v, compiled %v", err, back.re != nil)
	}
	if v, err := back.Eval(row); err != nil || v != sqlrow.Bool(true) {
		t.Errorf("the tree from a spec gives %v, %v", v, err)
	}
	if _, err := New(OpCall, "regexp_like", 0, str, s("(")); err == nil || !strings.Contains(err.Error(), "invalid regular expression") {
		t.Errorf("a bad constant pattern: %v", err)
	}
	if _, err := New(OpCall, "regexp_like", 0, str, s("a"), s("x")); err == nil {
		t.Error("an unknown flag is accepted")
	}
	e, err = New(OpCall, "regexp_like", 0, s("("), str)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Eval(sqlrow.Row{{}, {}, sqlrow.Str("(")}); err == nil {
		t.Error("a bad pattern from a row is accepted")
	}
}

func TestMathFunctions(t *testing.T) {
	fl := sqlrow.Float
	runEval(t, []evalCase{
		{name: "power of ints is a double", fn: "power", args: []*Expr{num(2), num(10)}, want: fl(1024)},
		{name: "power fraction", fn: "power", args: []*Expr{f(9), f(0.5)}, want: fl(3)},
		{name: "power negative base integer exponent", fn: "pow", args: []*Expr{num(-2), num(3)}, want: fl(-8)},
		{name: "power negative exponent", fn: "power", args: []*Expr{num(2), num(-2)}, want: fl(0.25)},
		{name: "power zero to negative", fn: "power", args: []*Expr{num(0), num(-1)}, err: ErrMathDomain},
		{name: "power complex", fn: "power", args: []*Expr{num(-8), f(0.5)}, err: ErrMathDomain},
		{name: "power null", fn: "power", args: []*Expr{null, num(2)}, want: sqlrow.Value{}},
		{name: "sqrt", fn: "sqrt", args: []*Expr{num(16)}, want: fl(4)},
		{name: "sqrt double", fn: "sqrt", args: []*Expr{d25}, want: fl(1.5811388300841898)},
		{name: "sqrt negative fails", fn: "sqrt", args: []*Expr{num(-1)}, err: ErrMathDomain},
		{name: "exp", fn: "exp", args: []*Expr{num(0)}, want: fl(1)},
		{name: "exp 1", fn: "exp", args: []*Expr{num(1)}, want: fl(math.E)},
		{name: "ln e", fn: "ln", args: []*Expr{f(math.E)}, want: fl(1)},
		{name: "ln zero fails", fn: "ln", args: []*Expr{num(0)}, err: ErrMathDomain},
		{name: "ln negative fails", fn: "ln", args: []*Expr{f(-0.5)}, err: ErrMathDomain},
		{name: "log10", fn: "log10", args: []*Expr{num(1000)}, want: fl(3)},
		{name: "log10 negative fails", fn: "log10", args: []*Expr{num(-10)}, err: ErrMathDomain},
		{name: "sign int", fn: "sign", args: []*Expr{num(-7)}, want: sqlrow.Int(-1)},
		{name: "sign zero", fn: "sign", args: []*Expr{num(0)}, want: sqlrow.Int(0)},
		{name: "sign double", fn: "sign", args: []*Expr{d25}, want: fl(1)},
		{name: "trunc", fn: "trunc", args: []*Expr{f(-2.7)}, want: fl(-2)},
		{name: "trunc places", fn: "trunc", args: []*Expr{f(1.2399), num(2)}, want: fl(1.23)},
		{name: "trunc negative places", fn: "trunc", args: []*Expr{f(1789.5), num(-2)}, want: fl(1700)},
		{name: "trunc cuts the decimal text", fn: "trunc", args: []*Expr{f(0.29), num(2)}, want: fl(0.29)},
		{name: "trunc negative number places", fn: "trunc", args: []*Expr{f(-1.005), num(2)}, want: fl(-1)},
		{name: "trunc places past the digits", fn: "trunc", args: []*Expr{f(123.456), num(400)}, want: fl(123.456)},
		{name: "trunc places left of every digit", fn: "trunc", args: []*Expr{f(123.456), num(-3)}, want: fl(0)},
		{name: "trunc to zero has no sign", fn: "trunc", args: []*Expr{f(-0.001), num(2)}, want: fl(0)},
		{name: "trunc huge", fn: "trunc", args: []*Expr{f(1.5e300), num(-300)}, want: fl(1e300)},
		{name: "trunc bigint", fn: "trunc", args: []*Expr{i7}, want: sqlrow.Int(7)},
		{name: "trunc bigint negative places", fn: "trunc", args: []*Expr{num(-1789), num(-2)}, want: sqlrow.Int(-1700)},
		{name: "trunc bigint past its digits", fn: "trunc", args: []*Expr{num(math.MaxInt64), num(-19)}, want: sqlrow.Int(0)},
		{name: "trunc bigint 18 places", fn: "trunc", args: []*Expr{num(math.MaxInt64), num(-18)}, want: sqlrow.Int(9e18)},
		{name: "pi", fn: "pi", want: fl(math.Pi)},
		{name: "greatest", fn: "greatest", args: []*Expr{num(3), i7, num(5)}, want: sqlrow.Int(7)},
		{name: "greatest widens", fn: "greatest", args: []*Expr{i7, d25}, want: fl(7)},
		{name: "greatest skips null", fn: "greatest", args: []*Expr{null, num(-1)}, want: sqlrow.Int(-1)},
		{name: "greatest all null", fn: "greatest", args: []*Expr{null, nullLit}, want: sqlrow.Value{}},
		{name: "greatest strings", fn: "greatest", args: []*Expr{s("b"), s("ab")}, want: sqlrow.Str("b")},
		{name: "least", fn: "least", args: []*Expr{num(3), i7, null, num(5)}, want: sqlrow.Int(3)},
		{name: "least widens", fn: "least", args: []*Expr{i7, d25}, want: fl(2.5)},
		{name: "nullif equal", fn: "nullif", args: []*Expr{i7, num(7)}, want: sqlrow.Value{}},
		{name: "nullif unequal", fn: "nullif", args: []*Expr{i7, num(8)}, want: sqlrow.Int(7)},
		{name: "nullif int and double", fn: "nullif", args: []*Expr{num(2), f(2)}, want: sqlrow.Value{}},
		{name: "nullif null second", fn: "nullif", args: []*Expr{i7, null}, want: sqlrow.Int(7)},
		{name: "nullif null first", fn: "nullif", args: []*Expr{null, i7}, want: sqlrow.Value{}},
	})
}

func TestFunctionTypes(t *testing.T) {
	tests := []struct {
		fn   string
		args []*Expr
		want sqlrow.Type
	}{
		{"power", []*Expr{num(2), num(3)}, sqlrow.Double},
		{"sqrt", []*Expr{num(4)}, sqlrow.Double},
		{"sign", []*Expr{num(4)}, sqlrow.BigInt},
		{"trunc", []*Expr{d25, num(1)}, sqlrow.Double},
		{"greatest", []*Expr{num(1), d25}, sqlrow.Double},
		{"nullif", []*Expr{num(1), d25}, sqlrow.BigInt},
		{"strpos", []*Expr{str, str}, sqlrow.BigInt},
		{"regexp_like", []*Expr{str, s("a")}, sqlrow.Boolean},
		{"lpad", []*Expr{str, num(3), s("x")}, sqlrow.Varchar},
	}
	for _, tt := range tests {
		e, err := New(OpCall, tt.fn, 0, tt.args...)
		if err != nil {
			t.Fatalf("%s: %v", tt.fn, err)
		}
		if e.Type != tt.want {
			t.Errorf("%s is %s, want %s", tt.fn, e.Type, tt.want)
		}
	}
	for _, bad := range []struct {
		fn   string
		args []*Expr
	}{
		{"sqrt", []*Expr{str}},
		{"lpad", []*Expr{str, str}},
		{"left", []*Expr{num(1), num(1)}},
		{"greatest", []*Expr{num(1), str}},
		{"nullif", []*Expr{str, num(1)}},
		{"pi", []*Expr{num(1)}},
		{"split_part", []*Expr{str, str}},
		{"regexp_like", []*Expr{str, num(1)}},
	} {
		if _, err := New(OpCall, bad.fn, 0, bad.args...); err == nil {
			t.Errorf("%s%v: no error", bad.fn, bad.args)
		}
	}
	if _, err := New(OpLike, "", 0, str); err == nil {
		t.Error("LIKE of one operand: no error")
	}
}
