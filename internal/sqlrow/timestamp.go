package sqlrow

import (
	"fmt"
	"strings"
	"time"
)

// A TIMESTAMP's text is year-month-day hour:minute:second.millis in UTC,
// 2026-12-02 10:00:00.123, as Flink prints a TIMESTAMP(3) and DuckDB reads
// one. Reading also takes a T between date and time, fewer (or no)
// fraction digits, a trailing Z, and a date alone (midnight); more than
// three fraction digits are cut to milliseconds.
const timestampLayout = "2006-01-02 15:04:05.000"

// TS returns the TIMESTAMP ms milliseconds after the epoch.
func TS(ms int64) Value { return Value{T: Timestamp, I: ms} }

// FormatTimestamp writes ms milliseconds since the epoch as a TIMESTAMP's
// text.
func FormatTimestamp(ms int64) string { return time.UnixMilli(ms).UTC().Format(timestampLayout) }

// ParseTimestamp reads a TIMESTAMP's text.
func ParseTimestamp(s string) (Value, error) {
	s = strings.TrimSuffix(strings.TrimSpace(s), "Z")
	if len(s) > 10 && s[10] == 'T' {
		s = s[:10] + " " + s[11:]
	}
	layout := "2006-01-02 15:04:05"
	if len(s) == len("2006-01-02") {
		layout = "2006-01-02"
	}
	// NB: time.Parse takes a fraction after the seconds that the layout
	// does not name.
	t, err := time.Parse(layout, s)
	if err != nil {
		return Value{}, fmt.Errorf("%q is not a TIMESTAMP (want 2026-12-02 10:00:00.123)", s)
	}
	return TS(t.UnixMilli()), nil
}
