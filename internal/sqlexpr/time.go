package sqlexpr

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/floe-stream/floe/internal/sqlrow"
)

// The time functions. A TIMESTAMP is milliseconds since the epoch without
// a time zone, so every field is the UTC calendar's. EXTRACT(f FROM ts)
// compiles to the function f(ts) (TimeFields).

// TimeFields maps each field EXTRACT takes to the function that computes
// it.
var TimeFields = map[string]string{
	"year": "year", "quarter": "quarter", "month": "month", "week": "week", "day": "dayofmonth",
	"doy": "dayofyear", "dow": "dow", "hour": "hour", "minute": "minute", "second": "second",
	"millisecond": "millisecond", "milliseconds": "millisecond",
}

// timeFieldFns compute a field of a UTC time.
var timeFieldFns = map[string]func(t time.Time) int64{
	"year":       func(t time.Time) int64 { return int64(t.Year()) },
	"quarter":    func(t time.Time) int64 { return int64(t.Month()+2) / 3 },
	"month":      func(t time.Time) int64 { return int64(t.Month()) },
	"week":       func(t time.Time) int64 { _, w := t.ISOWeek(); return int64(w) },
	"dayofmonth": func(t time.Time) int64 { return int64(t.Day()) },
	"dayofyear":  func(t time.Time) int64 { return int64(t.YearDay()) },
	// NB: dow counts from Sunday = 0 as PostgreSQL's EXTRACT(DOW) does,
	// dayofweek from Sunday = 1 as Flink's DAYOFWEEK.
	"dow":       func(t time.Time) int64 { return int64(t.Weekday()) },
	"dayofweek": func(t time.Time) int64 { return int64(t.Weekday()) + 1 },
	"hour":      func(t time.Time) int64 { return int64(t.Hour()) },
	"minute":    func(t time.Time) int64 { return int64(t.Minute()) },
	"second":    func(t time.Time) int64 { return int64(t.Second()) },
	// NB: the seconds' milliseconds too, as PostgreSQL and DuckDB count.
	"millisecond": func(t time.Time) int64 { return int64(t.Second())*1000 + int64(t.Nanosecond()/1e6) },
}

// TruncUnits are the units DATE_TRUNC takes.
var TruncUnits = map[string]bool{"year": true, "quarter": true, "month": true, "day": true, "hour": true, "minute": true, "second": true}

func utc(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

func timestampArg(a []sqlrow.Type) (sqlrow.Type, error) {
	if a[len(a)-1] != sqlrow.Timestamp && a[len(a)-1] != sqlrow.Null {
		return 0, fmt.Errorf("wants a TIMESTAMP, got %s", a[len(a)-1])
	}
	return sqlrow.BigInt, nil
}

func fieldFn(name string) func(a []sqlrow.Value) (sqlrow.Value, error) {
	f := timeFieldFns[name]
	return func(a []sqlrow.Value) (sqlrow.Value, error) { return sqlrow.Int(f(utc(a[0].I))), nil }
}

// toTimestampType is TO_TIMESTAMP's: of a BIGINT of milliseconds since the
// epoch, or of a VARCHAR in a TIMESTAMP's text.
func toTimestampType(a []sqlrow.Type) (sqlrow.Type, error) {
	if a[0] != sqlrow.BigInt && a[0] != sqlrow.Varchar && a[0] != sqlrow.Null {
		return 0, fmt.Errorf("wants a BIGINT of milliseconds or a VARCHAR, got %s", a[0])
	}
	return sqlrow.Timestamp, nil
}

// toTimestamp reads a BIGINT as milliseconds since the epoch, a VARCHAR as
// a TIMESTAMP's text; text that is no TIMESTAMP is NULL, as in Flink.
func toTimestamp(a []sqlrow.Value) (sqlrow.Value, error) {
	if a[0].T == sqlrow.BigInt {
		return sqlrow.TS(a[0].I), nil
	}
	v, err := sqlrow.ParseTimestamp(a[0].S)
	if err != nil {
		return sqlrow.Value{}, nil
	}
	return v, nil
}

func dateFormatType(a []sqlrow.Type) (sqlrow.Type, error) {
	if _, err := timestampArg(a[:1]); err != nil {
		return 0, err
	}
	if a[1] != sqlrow.Varchar && a[1] != sqlrow.Null {
		return 0, fmt.Errorf("the format is a VARCHAR, got %s", a[1])
	}
	return sqlrow.Varchar, nil
}

// dateFormat is Flink's DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss'): the
// letters of Java's SimpleDateFormat y, M, d, H, m, s and S (a run of n is
// a number of n digits at least; yy is the year's last two, S the
// milliseconds' first n), text in single quotes as it is (” a quote),
// anything else as it is.
func dateFormat(a []sqlrow.Value) (sqlrow.Value, error) {
	t, p := utc(a[0].I), a[1].S
	var sb strings.Builder
	for i := 0; i < len(p); {
		c := p[i]
		n := 1
		for i+n < len(p) && p[i+n] == c {
			n++
		}
		switch c {
		case 'y':
			y := t.Year()
			if n == 2 {
				y %= 100
			}
			pad(&sb, int64(y), n)
		case 'M':
			pad(&sb, int64(t.Month()), n)
		case 'd':
			pad(&sb, int64(t.Day()), n)
		case 'H':
			pad(&sb, int64(t.Hour()), n)
		case 'm':
			pad(&sb, int64(t.Minute()), n)
		case 's':
			pad(&sb, int64(t.Second()), n)
		case 'S':
			ms := fmt.Sprintf("%03d", t.Nanosecond()/1e6)
			sb.WriteString((ms + strings.Repeat("0", max(0, n-3)))[:n])
		case '\'':
			end := strings.IndexByte(p[i+1:], '\'')
			if end < 0 {
				return sqlrow.Value{}, fmt.Errorf("DATE_FORMAT: the format %q has an unclosed quote", p)
			}
			if end == 0 {
				sb.WriteByte('\'')
			}
			sb.WriteString(p[i+1 : i+1+end])
			i += end + 2
			continue
		default:
			sb.WriteString(p[i : i+n])
		}
		i += n
	}
	return sqlrow.Str(sb.String()), nil
}

func pad(sb *strings.Builder, v int64, n int) {
	s := strconv.FormatInt(v, 10)
	sb.WriteString(strings.Repeat("0", max(0, n-len(s))))
	sb.WriteString(s)
}

func dateTruncType(a []sqlrow.Type) (sqlrow.Type, error) {
	if a[0] != sqlrow.Varchar {
		return 0, fmt.Errorf("the unit is a VARCHAR such as 'minute', got %s", a[0])
	}
	if _, err := timestampArg(a[1:]); err != nil {
		return 0, err
	}
	return sqlrow.Timestamp, nil
}

// dateTrunc is DATE_TRUNC('minute', ts): ts rounded down to the unit.
func dateTrunc(a []sqlrow.Value) (sqlrow.Value, error) {
	t := utc(a[1].I)
	y, mo, d := t.Date()
	var out time.Time
	switch strings.ToLower(a[0].S) {
	case "year":
		out = time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
	case "quarter":
		out = time.Date(y, (mo-1)/3*3+1, 1, 0, 0, 0, 0, time.UTC)
	case "month":
		out = time.Date(y, mo, 1, 0, 0, 0, 0, time.UTC)
	case "day":
		out = time.Date(y, mo, d, 0, 0, 0, 0, time.UTC)
	case "hour":
		out = t.Truncate(time.Hour)
	case "minute":
		out = t.Truncate(time.Minute)
	case "second":
		out = t.Truncate(time.Second)
	default:
		return sqlrow.Value{}, fmt.Errorf("DATE_TRUNC: unknown unit %q (want year, quarter, month, day, hour, minute or second)", a[0].S)
	}
	return sqlrow.TS(out.UnixMilli()), nil
}

// timeArith types arithmetic with a TIMESTAMP: a TIMESTAMP plus or minus
// a BIGINT of milliseconds (an INTERVAL compiles to one) is a TIMESTAMP,
// BIGINT plus TIMESTAMP too, and a TIMESTAMP minus a TIMESTAMP is the
// BIGINT milliseconds between them.
func timeArith(op Op, a, b sqlrow.Type) (sqlrow.Type, error) {
	ms := func(t sqlrow.Type) bool { return t == sqlrow.BigInt || t == sqlrow.Null }
	switch {
	case op == OpAdd && (a == sqlrow.Timestamp && ms(b) || ms(a) && b == sqlrow.Timestamp):
		return sqlrow.Timestamp, nil
	case op == OpSub && a == sqlrow.Timestamp && ms(b):
		return sqlrow.Timestamp, nil
	case op == OpSub && a == sqlrow.Timestamp && b == sqlrow.Timestamp:
		return sqlrow.BigInt, nil
	}
	return 0, fmt.Errorf("%s of %s and %s: a TIMESTAMP takes + and - an INTERVAL (or BIGINT milliseconds), and - a TIMESTAMP", op, a, b)
}
