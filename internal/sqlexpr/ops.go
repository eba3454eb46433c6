package sqlexpr

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/floe-stream/floe/internal/sqlrow"
)

// arith applies +, -, *, / or % to two numbers: on int64 when both are
// BIGINT, else on float64.
func arith(op Op, a, b sqlrow.Value) (sqlrow.Value, error) {
	if a.T == sqlrow.BigInt && b.T == sqlrow.BigInt {
		return intArith(op, a.I, b.I)
	}
	if a.T == sqlrow.Timestamp || b.T == sqlrow.Timestamp {
		v, err := intArith(op, a.I, b.I)
		if a.T != b.T { // NB: a TIMESTAMP and milliseconds
			v.T = sqlrow.Timestamp
		}
		return v, err
	}
	x, y := a.AsFloat(), b.AsFloat()
	switch op {
	case OpAdd:
		return sqlrow.Float(x + y), nil
	case OpSub:
		return sqlrow.Float(x - y), nil
	case OpMul:
		return sqlrow.Float(x * y), nil
	case OpDiv:
		if y == 0 {
			return sqlrow.Value{}, ErrDivByZero
		}
		return sqlrow.Float(x / y), nil
	}
	if y == 0 {
		return sqlrow.Value{}, ErrDivByZero
	}
	return sqlrow.Float(math.Mod(x, y)), nil
}

func intArith(op Op, x, y int64) (sqlrow.Value, error) {
	var z int64
	switch op {
	case OpAdd:
		z = x + y
		if (z > x) != (y > 0) {
			return sqlrow.Value{}, ErrOverflow
		}
	case OpSub:
		z = x - y
		if (z < x) != (y > 0) {
			return sqlrow.Value{}, ErrOverflow
		}
	case OpMul:
		if x != 0 && y != 0 {
			z = x * y
			if z/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) {
				return sqlrow.Value{}, ErrOverflow
			}
		}
	case OpDiv, OpMod:
		if y == 0 {
			return sqlrow.Value{}, ErrDivByZero
		}
		if y == -1 {
			if op == OpMod {
				return sqlrow.Int(0), nil
			}
			if x == math.MinInt64 {
				return sqlrow.Value{}, ErrOverflow
			}
		}
		if op == OpDiv {
			z = x / y
		} else {
			z = x % y
		}
	}
	return sqlrow.Int(z), nil
}

// compare orders two non-NULL values of comparable types.
func compare(a, b sqlrow.Value) int {
	switch {
	case a.T == sqlrow.BigInt && b.T == sqlrow.BigInt, a.T == sqlrow.Boolean && b.T == sqlrow.Boolean,
		a.T == sqlrow.Timestamp && b.T == sqlrow.Timestamp:
		return cmp.Compare(a.I, b.I)
	case a.T == sqlrow.Varchar:
		return strings.Compare(a.S, b.S)
	}
	return cmp.Compare(a.AsFloat(), b.AsFloat())
}

// Compare orders two values for MIN and MAX: NULL before everything.
func Compare(a, b sqlrow.Value) int {
	switch {
	case a.IsNull() && b.IsNull():
		return 0
	case a.IsNull():
		return -1
	case b.IsNull():
		return 1
	}
	return compare(a, b)
}

func holds(op Op, c int) bool {
	switch op {
	case OpEq:
		return c == 0
	case OpNe:
		return c != 0
	case OpLt:
		return c < 0
	case OpLe:
		return c <= 0
	case OpGt:
		return c > 0
	}
	return c >= 0
}

// Cast converts a non-NULL value to type t. A DOUBLE becomes a BIGINT
// rounded half away from zero, as in PostgreSQL and DuckDB; a VARCHAR is
// read as ParseText reads a CSV field, after trimming spaces.
func Cast(v sqlrow.Value, t sqlrow.Type) (sqlrow.Value, error) {
	if v.T == t || v.IsNull() {
		return v, nil
	}
	switch t {
	case sqlrow.Varchar:
		return sqlrow.Str(v.Text()), nil
	case sqlrow.Double:
		if v.T == sqlrow.BigInt {
			return sqlrow.Float(float64(v.I)), nil
		}
	case sqlrow.Timestamp:
		if v.T == sqlrow.BigInt {
			return sqlrow.TS(v.I), nil
		}
	case sqlrow.BigInt:
		switch v.T {
		case sqlrow.Timestamp:
			return sqlrow.Int(v.I), nil
		case sqlrow.Double:
			f := math.Round(v.F)
			if math.IsNaN(f) || f >= 0x1p63 || f < -0x1p63 {
				return sqlrow.Value{}, fmt.Errorf("cannot cast %v to BIGINT: %w", v, ErrOverflow)
			}
			return sqlrow.Int(int64(f)), nil
		case sqlrow.Boolean:
			return sqlrow.Int(v.I), nil
		}
	case sqlrow.Boolean:
		if v.T == sqlrow.BigInt {
			return sqlrow.Bool(v.I != 0), nil
		}
	}
	if v.T == sqlrow.Varchar {
		s := strings.TrimSpace(v.S)
		if t == sqlrow.BigInt {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				return sqlrow.Int(i), nil
			}
		} else if s != "" {
			if out, err := sqlrow.ParseText(s, t); err == nil {
				return out, nil
			}
		}
	}
	return sqlrow.Value{}, fmt.Errorf("cannot cast %v to %s", v, t)
}

// like matches s against a compiled LIKE pattern (likePattern): anyRun
// matches any run of characters (none included), anyRune exactly one,
// anything else itself. It backtracks only to the last anyRun, so it runs in
// O(len(s) * len(p)) at worst.
func like(s, p []rune) bool {
	si, pi := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && (p[pi] == anyRune || p[pi] == s[si]):
			si++
			pi++
		case pi < len(p) && p[pi] == anyRun:
			star, mark = pi, si
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == anyRun {
		pi++
	}
	return pi == len(p)
}
