package sqlexpr

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/floe-stream/floe/internal/sqlrow"
)

// A function is a scalar SQL function: how many arguments it takes, the
// type of its result given theirs, and how it computes.
type function struct {
	min, max int
	typeOf   func(args []sqlrow.Type) (sqlrow.Type, error)
}

// functions are the scalar functions SQL may call, by lower-case name.
var functions = map[string]function{
	"abs":          {1, 1, numeric},
	"floor":        {1, 1, numeric},
	"ceil":         {1, 1, numeric},
	"ceiling":      {1, 1, numeric},
	"round":        {1, 2, roundType},
	"mod":          {2, 2, intsOnly},
	"upper":        {1, 1, strings1},
	"lower":        {1, 1, strings1},
	"char_length":  {1, 1, lengthType},
	"length":       {1, 1, lengthType},
	"substr":       {2, 3, substrType},
	"substring":    {2, 3, substrType},
	"concat":       {1, 100, concatType},
	"coalesce":     {1, 100, coalesceType},
	"year":         {1, 1, timestampArg},
	"quarter":      {1, 1, timestampArg},
	"month":        {1, 1, timestampArg},
	"week":         {1, 1, timestampArg},
	"dayofmonth":   {1, 1, timestampArg},
	"dayofyear":    {1, 1, timestampArg},
	"dayofweek":    {1, 1, timestampArg},
	"dow":          {1, 1, timestampArg},
	"hour":         {1, 1, timestampArg},
	"minute":       {1, 1, timestampArg},
	"second":       {1, 1, timestampArg},
	"millisecond":  {1, 1, timestampArg},
	"to_timestamp": {1, 1, toTimestampType},
	"date_format":  {2, 2, dateFormatType},
	"date_trunc":   {2, 2, dateTruncType},
	"btrim":        {1, 2, stringsThen(2, sqlrow.Varchar)},
	"ltrim":        {1, 2, stringsThen(2, sqlrow.Varchar)},
	"rtrim":        {1, 2, stringsThen(2, sqlrow.Varchar)},
	"replace":      {3, 3, stringsThen(3, sqlrow.Varchar)},
	"strpos":       {2, 2, stringsThen(2, sqlrow.BigInt)},
	"position":     {2, 2, stringsThen(2, sqlrow.BigInt)},
	"lpad":         {2, 3, padType},
	"rpad":         {2, 3, padType},
	"initcap":      {1, 1, strings1},
	"reverse":      {1, 1, strings1},
	"left":         {2, 2, stringsThen(1, sqlrow.Varchar)},
	"right":        {2, 2, stringsThen(1, sqlrow.Varchar)},
	"split_part":   {3, 3, stringsThen(2, sqlrow.Varchar)},
	"repeat":       {2, 2, stringsThen(1, sqlrow.Varchar)},
	"regexp_like":  {2, 3, stringsThen(3, sqlrow.Boolean)},
	"power":        {2, 2, doubles},
	"pow":          {2, 2, doubles},
	"sqrt":         {1, 1, doubles},
	"exp":          {1, 1, doubles},
	"ln":           {1, 1, doubles},
	"log10":        {1, 1, doubles},
	"sign":         {1, 1, numeric},
	"trunc":        {1, 2, roundType},
	"pi":           {0, 0, noArgs},
	"greatest":     {1, 100, coalesceType},
	"least":        {1, 100, coalesceType},
	"nullif":       {2, 2, nullifType},
}

// TypeOfCall returns the result type of the function fn called with
// arguments of the given types, or why it cannot be called so.
func TypeOfCall(fn string, args []sqlrow.Type) (sqlrow.Type, error) {
	f, ok := functions[fn]
	if !ok {
		return 0, fmt.Errorf("unknown function %s (known: %s)", fn, strings.Join(slices.Sorted(maps.Keys(functions)), ", "))
	}
	if len(args) < f.min || len(args) > f.max {
		if f.min == f.max {
			return 0, fmt.Errorf("%s takes %d argument(s), got %d", fn, f.min, len(args))
		}
		return 0, fmt.Errorf("%s takes %d to %d arguments, got %d", fn, f.min, f.max, len(args))
	}
	t, err := f.typeOf(args)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", fn, err)
	}
	return t, nil
}

func isNum(t sqlrow.Type) bool { return t == sqlrow.BigInt || t == sqlrow.Double || t == sqlrow.Null }

func numeric(a []sqlrow.Type) (sqlrow.Type, error) {
	if !isNum(a[0]) {
		return 0, fmt.Errorf("wants a number, got %s", a[0])
	}
	if a[0] == sqlrow.Null {
		return sqlrow.BigInt, nil
	}
	return a[0], nil
}

func roundType(a []sqlrow.Type) (sqlrow.Type, error) {
	if len(a) == 2 && a[1] != sqlrow.BigInt {
		return 0, fmt.Errorf("the number of decimals must be a BIGINT, got %s", a[1])
	}
	return numeric(a[:1])
}

func intsOnly(a []sqlrow.Type) (sqlrow.Type, error) {
	for _, t := range a {
		if t != sqlrow.BigInt && t != sqlrow.Null {
			return 0, fmt.Errorf("wants BIGINT arguments, got %s", t)
		}
	}
	return sqlrow.BigInt, nil
}

func strings1(a []sqlrow.Type) (sqlrow.Type, error) {
	if a[0] != sqlrow.Varchar && a[0] != sqlrow.Null {
		return 0, fmt.Errorf("wants a VARCHAR, got %s", a[0])
	}
	return sqlrow.Varchar, nil
}

func lengthType(a []sqlrow.Type) (sqlrow.Type, error) {
	_, err := strings1(a)
	return sqlrow.BigInt, err
}

func substrType(a []sqlrow.Type) (sqlrow.Type, error) {
	if _, err := intsOnly(a[1:]); err != nil {
		return 0, err
	}
	return strings1(a)
}

func concatType([]sqlrow.Type) (sqlrow.Type, error) { return sqlrow.Varchar, nil }

func coalesceType(a []sqlrow.Type) (sqlrow.Type, error) {
	out := sqlrow.Null
	for _, t := range a {
		u, ok := Unify(out, t)
		if !ok {
			return 0, fmt.Errorf("arguments of types %s and %s", out, t)
		}
		out = u
	}
	return out, nil
}

// Unify returns the type two branches of a CASE or COALESCE share: NULL
// goes with anything, BIGINT widens to DOUBLE; ok is false for others.
func Unify(a, b sqlrow.Type) (t sqlrow.Type, ok bool) {
	switch {
	case a == b, b == sqlrow.Null:
		return a, true
	case a == sqlrow.Null:
		return b, true
	case isNum(a) && isNum(b):
		return sqlrow.Double, true
	}
	return 0, false
}

// strict are the functions whose result is NULL when an argument is; they
// get non-NULL arguments.
var strict = map[string]func(a []sqlrow.Value) (sqlrow.Value, error){
	"abs": func(a []sqlrow.Value) (sqlrow.Value, error) {
		if a[0].T == sqlrow.Double {
			return sqlrow.Float(math.Abs(a[0].F)), nil
		}
		if a[0].I == math.MinInt64 {
			return sqlrow.Value{}, ErrOverflow
		}
		return sqlrow.Int(max(a[0].I, -a[0].I)), nil
	},
	"floor":   floatFn(math.Floor),
	"ceil":    floatFn(math.Ceil),
	"ceiling": floatFn(math.Ceil),
	"round": func(a []sqlrow.Value) (sqlrow.Value, error) {
		if a[0].T == sqlrow.BigInt {
			return a[0], nil
		}
		p := 1.0
		if len(a) == 2 {
			p = math.Pow(10, float64(a[1].I))
		}
		return sqlrow.Float(math.Round(a[0].F*p) / p), nil
	},
	"mod": func(a []sqlrow.Value) (sqlrow.Value, error) { return intArith(OpMod, a[0].I, a[1].I) },
	"upper": func(a []sqlrow.Value) (sqlrow.Value, error) {
		return sqlrow.Str(strings.ToUpper(a[0].S)), nil
	},
	"lower": func(a []sqlrow.Value) (sqlrow.Value, error) {
		return sqlrow.Str(strings.ToLower(a[0].S)), nil
	},
	"char_length":  runeCount,
	"length":       runeCount,
	"substr":       substr,
	"substring":    substr,
	"year":         fieldFn("year"),
	"quarter":      fieldFn("quarter"),
	"month":        fieldFn("month"),
	"week":         fieldFn("week"),
	"dayofmonth":   fieldFn("dayofmonth"),
	"dayofyear":    fieldFn("dayofyear"),
	"dayofweek":    fieldFn("dayofweek"),
	"dow":          fieldFn("dow"),
	"hour":         fieldFn("hour"),
	"minute":       fieldFn("minute"),
	"second":       fieldFn("second"),
	"millisecond":  fieldFn("millisecond"),
	"to_timestamp": toTimestamp,
	"date_format":  dateFormat,
	"date_trunc":   dateTrunc,
	"btrim":        trimFn(strings.Trim),
	"ltrim":        trimFn(strings.TrimLeft),
	"rtrim":        trimFn(strings.TrimRight),
	"replace":      replace,
	"strpos":       strpos,
	"position":     strpos,
	"lpad":         padFn(true),
	"rpad":         padFn(false),
	"initcap":      initcap,
	"reverse":      reverse,
	"left":         leftRight(true),
	"right":        leftRight(false),
	"split_part":   splitPart,
	"repeat":       repeat,
	"power":        power,
	"pow":          power,
	"sqrt":         domainFn(math.Sqrt, sqrtDomain),
	"exp":          domainFn(math.Exp, noBound),
	"ln":           domainFn(math.Log, logDomain),
	"log10":        domainFn(math.Log10, logDomain),
	"sign":         sign,
	"trunc":        trunc,
	"pi":           func([]sqlrow.Value) (sqlrow.Value, error) { return sqlrow.Float(math.Pi), nil },
}

func floatFn(f func(float64) float64) func(a []sqlrow.Value) (sqlrow.Value, error) {
	return func(a []sqlrow.Value) (sqlrow.Value, error) {
		if a[0].T == sqlrow.BigInt {
			return a[0], nil
		}
		return sqlrow.Float(f(a[0].F)), nil
	}
}

func runeCount(a []sqlrow.Value) (sqlrow.Value, error) {
	return sqlrow.Int(int64(utf8.RuneCountInString(a[0].S))), nil
}

// substr is SQL's SUBSTRING(s, start [, length]): characters counted from
// 1, a start before 1 eating into the length, as in PostgreSQL.
func substr(a []sqlrow.Value) (sqlrow.Value, error) {
	r := []rune(a[0].S)
	start := a[1].I
	end := int64(len(r)) + 1
	if len(a) == 3 {
		if a[2].I < 0 {
			return sqlrow.Value{}, fmt.Errorf("negative substring length not allowed")
		}
		end = min(end, start+a[2].I)
	}
	start = max(start, 1)
	if end <= start {
		return sqlrow.Str(""), nil
	}
	return sqlrow.Str(string(r[start-1 : end-1])), nil
}

// evalLazy evaluates the functions that look at their arguments one by
// one, rather than at all of them non-NULL; ok is false for the others.
func (e *Expr) evalLazy(r sqlrow.Row) (v sqlrow.Value, ok bool, err error) {
	switch e.Fn {
	case "coalesce":
		for _, a := range e.Args {
			v, err := coerce(a, r, e.Type)
			if err != nil || !v.IsNull() {
				return v, true, err
			}
		}
		return sqlrow.Value{}, true, nil
	case "greatest":
		v, err := e.extreme(r, 1)
		return v, true, err
	case "least":
		v, err := e.extreme(r, -1)
		return v, true, err
	case "nullif":
		v, err := e.nullif(r)
		return v, true, err
	case "concat":
		// NB: concat skips NULL arguments, as in PostgreSQL.
		var sb strings.Builder
		for _, a := range e.Args {
			v, err := a.Eval(r)
			if err != nil {
				return v, true, err
			}
			sb.WriteString(v.Text())
		}
		return sqlrow.Str(sb.String()), true, nil
	}
	return sqlrow.Value{}, false, nil
}
