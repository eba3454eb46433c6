package sqlexpr

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/floe-stream/floe/internal/sqlrow"
)

// ErrMathDomain reports a math function called outside its domain, such
// as the square root of a negative number; like a division by zero, it
// fails the job.
var ErrMathDomain = errors.New("argument out of the function's domain")

// doubles checks that every argument is a number and gives a DOUBLE, as
// PostgreSQL's POWER, SQRT, EXP, LN and LOG10 do even of integers.
func doubles(a []sqlrow.Type) (sqlrow.Type, error) {
	for _, t := range a {
		if !isNum(t) {
			return 0, fmt.Errorf("wants numbers, got %s", t)
		}
	}
	return sqlrow.Double, nil
}

func noArgs([]sqlrow.Type) (sqlrow.Type, error) { return sqlrow.Double, nil }

// domainFn is a function of a DOUBLE that refuses arguments for which bad
// returns a message.
func domainFn(f func(float64) float64, bad func(float64) string) func(a []sqlrow.Value) (sqlrow.Value, error) {
	return func(a []sqlrow.Value) (sqlrow.Value, error) {
		x := a[0].AsFloat()
		if msg := bad(x); msg != "" {
			return sqlrow.Value{}, fmt.Errorf("%s: %w", msg, ErrMathDomain)
		}
		return sqlrow.Float(f(x)), nil
	}
}

func noBound(float64) string { return "" }

func sqrtDomain(x float64) string {
	if x < 0 {
		return "cannot take square root of a negative number"
	}
	return ""
}

func logDomain(x float64) string {
	switch {
	case x == 0:
		return "cannot take logarithm of zero"
	case x < 0:
		return "cannot take logarithm of a negative number"
	}
	return ""
}

// power is POWER(x, y), a DOUBLE, with PostgreSQL's two errors.
func power(a []sqlrow.Value) (sqlrow.Value, error) {
	x, y := a[0].AsFloat(), a[1].AsFloat()
	switch {
	case x == 0 && y < 0:
		return sqlrow.Value{}, fmt.Errorf("zero raised to a negative power is undefined: %w", ErrMathDomain)
	case x < 0 && y != math.Trunc(y):
		return sqlrow.Value{}, fmt.Errorf("a negative number raised to a non-integer power yields a complex result: %w", ErrMathDomain)
	}
	return sqlrow.Float(math.Pow(x, y)), nil
}

// sign is SIGN(x): -1, 0 or 1, of x's type (as in Flink; PostgreSQL
// gives a DOUBLE or a NUMERIC, DuckDB a TINYINT).
func sign(a []sqlrow.Value) (sqlrow.Value, error) {
	if a[0].T == sqlrow.BigInt {
		return sqlrow.Int(int64(cmpZero(float64(a[0].I)))), nil
	}
	if math.IsNaN(a[0].F) {
		return a[0], nil
	}
	return sqlrow.Float(float64(cmpZero(a[0].F))), nil
}

func cmpZero(x float64) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// trunc is TRUNC(x [, places]): x cut toward zero to places decimals (0
// by default; negative places cut left of the point). A BIGINT stays one.
func trunc(a []sqlrow.Value) (sqlrow.Value, error) {
	if a[0].T == sqlrow.BigInt {
		if len(a) == 1 || a[1].I >= 0 {
			return a[0], nil
		}
		if a[1].I < -18 {
			return sqlrow.Int(0), nil
		}
		p := int64(1)
		for range -a[1].I {
			p *= 10
		}
		return sqlrow.Int(a[0].I / p * p), nil
	}
	if len(a) == 1 {
		return sqlrow.Float(math.Trunc(a[0].F)), nil
	}
	return sqlrow.Float(truncDecimal(a[0].F, a[1].I)), nil
}

// truncDecimal cuts the shortest decimal text of x that reads back as x,
// as Flink's TRUNCATE (a BigDecimal of the double) and PostgreSQL's
// (a NUMERIC) do: TRUNC(0.29, 2) is 0.29, where cutting x * 100 would give
// 0.28, as DuckDB does. NB: a zero result has no sign.
func truncDecimal(x float64, places int64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	text := strconv.FormatFloat(math.Abs(x), 'f', -1, 64)
	whole, frac, _ := strings.Cut(text, ".")
	if places >= 0 {
		frac = frac[:min(int64(len(frac)), places)]
	} else {
		keep := int64(len(whole)) + places
		if keep <= 0 {
			return 0
		}
		whole, frac = whole[:keep]+strings.Repeat("0", int(-places)), ""
	}
	if frac != "" {
		whole += "." + frac
	}
	out, _ := strconv.ParseFloat(whole, 64)
	if out == 0 {
		return 0
	}
	return math.Copysign(out, x)
}

// nullifType is NULLIF(a, b)'s: a's type, b comparable with it.
func nullifType(a []sqlrow.Type) (sqlrow.Type, error) {
	if _, ok := Unify(a[0], a[1]); !ok {
		return 0, fmt.Errorf("cannot compare %s with %s", a[0], a[1])
	}
	return a[0], nil
}

// extreme is GREATEST (sign 1) and LEAST (-1): NULLs are skipped, and the
// result is NULL only when every argument is, as in PostgreSQL.
func (e *Expr) extreme(r sqlrow.Row, sign int) (sqlrow.Value, error) {
	var best sqlrow.Value
	for _, a := range e.Args {
		v, err := coerce(a, r, e.Type)
		if err != nil {
			return v, err
		}
		if !v.IsNull() && (best.IsNull() || compare(v, best)*sign > 0) {
			best = v
		}
	}
	return best, nil
}

// nullif is NULLIF(a, b): NULL when a = b, else a (a NULL b compares
// unequal).
func (e *Expr) nullif(r sqlrow.Row) (sqlrow.Value, error) {
	a, err := e.Args[0].Eval(r)
	if err != nil || a.IsNull() {
		return a, err
	}
	b, err := e.Args[1].Eval(r)
	if err != nil || b.IsNull() {
		return a, err
	}
	if compare(a, b) == 0 {
		return sqlrow.Value{}, nil
	}
	return a, nil
}
