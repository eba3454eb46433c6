package sqlexpr

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/floe-stream/floe/internal/sqlrow"
)

// The row every case evaluates over: a BIGINT, a DOUBLE, a VARCHAR, a
// BOOLEAN and a NULL BIGINT.
var (
	row   = sqlrow.Row{sqlrow.Int(7), sqlrow.Float(2.5), sqlrow.Str("Héllo"), sqlrow.Bool(true), {}}
	types = []sqlrow.Type{sqlrow.BigInt, sqlrow.Double, sqlrow.Varchar, sqlrow.Boolean, sqlrow.BigInt}
	i7    = Col(0, sqlrow.BigInt)
	d25   = Col(1, sqlrow.Double)
	str   = Col(2, sqlrow.Varchar)
	yes   = Col(3, sqlrow.Boolean)
	null  = Col(4, sqlrow.BigInt)
)

func lit(v sqlrow.Value) *Expr { return Lit(v) }
func num(i int64) *Expr        { return Lit(sqlrow.Int(i)) }

func TestEval(t *testing.T) {
	no := lit(sqlrow.Bool(false))
	nullBool := &Expr{Op: OpLit, Type: sqlrow.Null}
	tests := []struct {
		name string
		op   Op
		fn   string
		cast sqlrow.Type
		args []*Expr
		want sqlrow.Value
		err  error
	}{
		{name: "int add", op: OpAdd, args: []*Expr{i7, num(3)}, want: sqlrow.Int(10)},
		{name: "int plus double", op: OpAdd, args: []*Expr{i7, d25}, want: sqlrow.Float(9.5)},
		{name: "int div truncates", op: OpDiv, args: []*Expr{i7, num(2)}, want: sqlrow.Int(3)},
		{name: "negative int div truncates toward zero", op: OpDiv, args: []*Expr{num(-7), num(2)}, want: sqlrow.Int(-3)},
		{name: "double div", op: OpDiv, args: []*Expr{i7, d25}, want: sqlrow.Float(2.8)},
		{name: "mod", op: OpMod, args: []*Expr{i7, num(4)}, want: sqlrow.Int(3)},
		{name: "div by zero", op: OpDiv, args: []*Expr{i7, num(0)}, err: ErrDivByZero},
		{name: "overflow", op: OpMul, args: []*Expr{num(math.MaxInt64), num(2)}, err: ErrOverflow},
		{name: "add overflow", op: OpAdd, args: []*Expr{num(math.MaxInt64), num(1)}, err: ErrOverflow},
		{name: "null propagates", op: OpAdd, args: []*Expr{i7, null}, want: sqlrow.Value{}},
		{name: "neg", op: OpNeg, args: []*Expr{d25}, want: sqlrow.Float(-2.5)},
		{name: "concat op", op: OpConcat, args: []*Expr{str, lit(sqlrow.Str("!"))}, want: sqlrow.Str("Héllo!")},
		{name: "int = double", op: OpEq, args: []*Expr{num(2), lit(sqlrow.Float(2))}, want: sqlrow.Bool(true)},
		{name: "string <", op: OpLt, args: []*Expr{lit(sqlrow.Str("abc")), lit(sqlrow.Str("abd"))}, want: sqlrow.Bool(true)},
		{name: "compare null", op: OpGe, args: []*Expr{null, i7}, want: sqlrow.Value{}},
		{name: "false and null", op: OpAnd, args: []*Expr{nullBool, no}, want: sqlrow.Bool(false)},
		{name: "true and null", op: OpAnd, args: []*Expr{yes, nullBool}, want: sqlrow.Value{}},
		{name: "true or null", op: OpOr, args: []*Expr{nullBool, yes}, want: sqlrow.Bool(true)},
		{name: "false or false", op: OpOr, args: []*Expr{no, no}, want: sqlrow.Bool(false)},
		{name: "not null", op: OpNot, args: []*Expr{nullBool}, want: sqlrow.Value{}},
		{name: "is null", op: OpIsNull, args: []*Expr{null}, want: sqlrow.Bool(true)},
		{name: "is not null", op: OpNotNull, args: []*Expr{i7}, want: sqlrow.Bool(true)},
		{name: "case second branch", op: OpCase, args: []*Expr{no, num(1), yes, num(2), num(3)}, want: sqlrow.Int(2)},
		{name: "case else widens", op: OpCase, args: []*Expr{no, d25, num(3)}, want: sqlrow.Float(3)},
		{name: "case no else", op: OpCase, args: []*Expr{no, num(1)}, want: sqlrow.Value{}},
		{name: "cast double to bigint rounds half away", op: OpCast, cast: sqlrow.BigInt, args: []*Expr{d25}, want: sqlrow.Int(3)},
		{name: "cast negative", op: OpCast, cast: sqlrow.BigInt, args: []*Expr{lit(sqlrow.Float(-2.5))}, want: sqlrow.Int(-3)},
		{name: "cast to varchar", op: OpCast, cast: sqlrow.Varchar, args: []*Expr{d25}, want: sqlrow.Str("2.5")},
		{name: "cast string to bigint", op: OpCast, cast: sqlrow.BigInt, args: []*Expr{lit(sqlrow.Str(" 42 "))}, want: sqlrow.Int(42)},
		{name: "cast bad string", op: OpCast, cast: sqlrow.BigInt, args: []*Expr{str}, err: errAny},
		{name: "abs", op: OpCall, fn: "abs", args: []*Expr{num(-4)}, want: sqlrow.Int(4)},
		{name: "round half away", op: OpCall, fn: "round", args: []*Expr{d25}, want: sqlrow.Float(3)},
		{name: "round 2 places", op: OpCall, fn: "round", args: []*Expr{lit(sqlrow.Float(1.23456)), num(2)}, want: sqlrow.Float(1.23)},
		{name: "floor", op: OpCall, fn: "floor", args: []*Expr{lit(sqlrow.Float(-1.5))}, want: sqlrow.Float(-2)},
		{name: "ceil", op: OpCall, fn: "ceil", args: []*Expr{d25}, want: sqlrow.Float(3)},
		{name: "mod fn", op: OpCall, fn: "mod", args: []*Expr{num(-7), num(3)}, want: sqlrow.Int(-1)},
		{name: "upper", op: OpCall, fn: "upper", args: []*Expr{str}, want: sqlrow.Str("HÉLLO")},
		{name: "lower", op: OpCall, fn: "lower", args: []*Expr{str}, want: sqlrow.Str("héllo")},
		{name: "length counts characters", op: OpCall, fn: "char_length", args: []*Expr{str}, want: sqlrow.Int(5)},
		{name: "substr", op: OpCall, fn: "substr", args: []*Expr{str, num(2), num(3)}, want: sqlrow.Str("éll")},
		{name: "substr from 0", op: OpCall, fn: "substr", args: []*Expr{str, num(0), num(3)}, want: sqlrow.Str("Hé")},
		{name: "substr to end", op: OpCall, fn: "substr", args: []*Expr{str, num(4)}, want: sqlrow.Str("lo")},
		{name: "coalesce", op: OpCall, fn: "coalesce", args: []*Expr{null, i7}, want: sqlrow.Int(7)},
		{name: "concat skips null", op: OpCall, fn: "concat", args: []*Expr{str, null, num(1)}, want: sqlrow.Str("Héllo1")},
		{name: "like prefix", op: OpLike, args: []*Expr{str, lit(sqlrow.Str("Hé%"))}, want: sqlrow.Bool(true)},
		{name: "like underscore counts characters", op: OpLike, args: []*Expr{str, lit(sqlrow.Str("H_llo"))}, want: sqlrow.Bool(true)},
		{name: "like needs the whole string", op: OpLike, args: []*Expr{str, lit(sqlrow.Str("Hél"))}, want: sqlrow.Bool(false)},
		{name: "like backtracks", op: OpLike, args: []*Expr{lit(sqlrow.Str("abcbcd")), lit(sqlrow.Str("a%bcd"))}, want: sqlrow.Bool(true)},
		{name: "like two stars", op: OpLike, args: []*Expr{lit(sqlrow.Str("xaybz")), lit(sqlrow.Str("%a%b_"))}, want: sqlrow.Bool(true)},
		{name: "like empty", op: OpLike, args: []*Expr{lit(sqlrow.Str("")), lit(sqlrow.Str("%"))}, want: sqlrow.Bool(true)},
		{name: "like no match", op: OpLike, args: []*Expr{lit(sqlrow.Str("abc")), lit(sqlrow.Str("%d%"))}, want: sqlrow.Bool(false)},
		{name: "like null", op: OpLike, args: []*Expr{lit(sqlrow.Value{}), lit(sqlrow.Str("%"))}, want: sqlrow.Value{}},
		{name: "upper of null", op: OpCall, fn: "upper", args: []*Expr{lit(sqlrow.Value{})}, want: sqlrow.Value{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := New(tt.op, tt.fn, tt.cast, tt.args...)
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

var errAny = errors.New("any error")

func TestTypeErrors(t *testing.T) {
	tests := []struct {
		name string
		op   Op
		fn   string
		args []*Expr
	}{
		{"add a string", OpAdd, "", []*Expr{i7, str}},
		{"compare string and int", OpEq, "", []*Expr{str, i7}},
		{"and of ints", OpAnd, "", []*Expr{i7, yes}},
		{"case of string and int", OpCase, "", []*Expr{yes, str, i7}},
		{"case when int", OpCase, "", []*Expr{i7, str}},
		{"unknown function", OpCall, "nope", []*Expr{i7}},
		{"upper of int", OpCall, "upper", []*Expr{i7}},
		{"substr arity", OpCall, "substr", []*Expr{str}},
		{"concat op of int", OpConcat, "", []*Expr{str, i7}},
	}
	for _, tt := range tests {
		if _, err := New(tt.op, tt.fn, 0, tt.args...); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}

// TestCheckRefuses covers trees that arrive in a spec: JSON is how a job
// spec carries them, and nothing stops one from lying.
func TestCheckRefuses(t *testing.T) {
	for _, src := range []string{
		`{"op":"col","type":"BIGINT","col":9}`,
		`{"op":"col","type":"VARCHAR","col":0}`,
		`{"op":"+","type":"BIGINT","args":[{"op":"col","type":"BIGINT","col":0}]}`,
		`{"op":"+","type":"VARCHAR","args":[{"op":"col","type":"BIGINT","col":0},{"op":"col","type":"BIGINT","col":0}]}`,
		`{"op":"lit","type":"BIGINT","lit":{"t":"VARCHAR","s":"x"}}`,
		`{"op":"frob","type":"BIGINT"}`,
	} {
		var e Expr
		if err := json.Unmarshal([]byte(src), &e); err != nil {
			t.Fatal(err)
		}
		if err := Check(&e, types); err == nil {
			t.Errorf("%s: Check accepted it", src)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	e, err := New(OpCase, "", 0, yes, lit(sqlrow.Str("a,b")), lit(sqlrow.Value{}))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var back Expr
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if err := Check(&back, types); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if v, _ := back.Eval(row); v != sqlrow.Str("a,b") {
		t.Errorf("%s evaluates to %v", b, v)
	}
}
