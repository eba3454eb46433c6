package eventtime

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/jobspec"
)

func TestExtractor(t *testing.T) {
	for _, tc := range []struct {
		field  jobspec.TimestampField
		format string
		value  string
		want   string
	}{
		{jobspec.TimestampField{CSV: 1}, "unix-ms", "a,1700000000123,c", "1700000000123"},
		{jobspec.TimestampField{CSV: 0}, "unix-s", " 17 ", "17000"},
		{jobspec.TimestampField{CSV: 2}, "unix-ms", "a,b", "error: timestamp field csv:2: the record has fewer fields"},
		{jobspec.TimestampField{CSV: 5}, "2006-01-02 15:04:05.000", "1,2,3,4,5,2026-11-29 10:00:01.500", "1795946401500"},
		{jobspec.TimestampField{CSV: -1, JSON: "e.t"}, "rfc3339", `{"e":{"t":"1970-01-01T00:00:01.25Z"}}`, "1250"},
		{jobspec.TimestampField{CSV: -1, JSON: "t"}, "unix-ms", `{"t":42}`, "42"},
		{jobspec.TimestampField{CSV: -1, JSON: "t"}, "unix-ms", `{"u":42}`, `error: timestamp field json:t: no member "t"`},
		{jobspec.TimestampField{CSV: 0}, "unix-ms", "x", `error: timestamp field csv:0: "x" is not an integer (unix-ms)`},
	} {
		x := NewExtractor(&jobspec.EventTime{Field: tc.field, Format: tc.format})
		ts, err := x.Timestamp([]byte(tc.value))
		got := fmt.Sprint(ts)
		if err != nil {
			got = "error: " + err.Error()
		}
		if got != tc.want {
			t.Errorf("%s %s %q: got %s, want %s", tc.field, tc.format, tc.value, got, tc.want)
		}
	}
}

func TestGenerator(t *testing.T) {
	g := NewGenerator(5 * time.Millisecond)
	if g.Current() != Min {
		t.Fatalf("watermark before records: %d", g.Current())
	}
	for _, ts := range []int64{10, 3, 20, 12} {
		g.Observe(ts)
	}
	if g.Current() != 14 {
		t.Fatalf("watermark %d, want 20-5-1", g.Current())
	}
}

// TestSplits runs scripts against per-split watermarks with a bound of
// 5 ms and an idle timeout of 100 ms: "oS@T/N" observes split S at event
// time T, processing time N; "?N" asks at processing time N.
func TestSplits(t *testing.T) {
	for _, tc := range []struct{ script, want string }{
		{"?0", "min"},
		// The slowest split sets the watermark.
		{"o0@100/1 o1@50/1 ?2", "44"},
		{"o0@100/1 o1@50/1 o1@200/3 ?4", "94"},
		// Split 1 falls idle at 101: split 0 alone counts, until 1 speaks.
		{"o0@100/1 o1@50/1 o0@300/150 ?150 o1@60/160 ?161", "294 54"},
		// Every split idle.
		{"o0@100/1 o1@50/1 ?500", "idle"},
	} {
		s := NewSplits(5*time.Millisecond, 100*time.Millisecond)
		var got []string
		for _, step := range strings.Fields(tc.script) {
			if step[0] == '?' {
				var now int64
				fmt.Sscanf(step[1:], "%d", &now)
				wm, idle := s.Current(now)
				switch {
				case idle:
					got = append(got, "idle")
				case wm == Min:
					got = append(got, "min")
				default:
					got = append(got, fmt.Sprint(wm))
				}
				continue
			}
			var split int
			var ts, now int64
			fmt.Sscanf(step[1:], "%d@%d/%d", &split, &ts, &now)
			s.Observe(split, ts, now)
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%s: got %s, want %s", tc.script, g, tc.want)
		}
	}
}
