package udf

import (
	"testing"
	"time"
)

func TestLogLimiter(t *testing.T) {
	t0 := time.Unix(1000, 0)
	type step struct {
		at   time.Duration
		n    int
		want bool
	}
	for _, tc := range []struct {
		name         string
		lines, bytes float64
		steps        []step
	}{
		{"a burst of a second's lines, then the rate", 3, 0, []step{
			{0, 1, true}, {0, 1, true}, {0, 1, true}, {0, 1, false},
			{400 * time.Millisecond, 1, true}, {400 * time.Millisecond, 1, false},
			{10 * time.Second, 1, true}, {10 * time.Second, 1, true}, {10 * time.Second, 1, true}, {10 * time.Second, 1, false},
		}},
		{"bytes", 0, 100, []step{
			{0, 60, true}, {0, 60, false}, {0, 40, true}, {0, 1, false},
			{time.Second / 2, 50, true}, {time.Second / 2, 1, false},
		}},
		{"a line longer than a second's bytes passes a full bucket", 0, 100, []step{
			{0, 500, true}, {0, 1, false}, {2 * time.Second, 1, false}, {6 * time.Second, 1, true},
		}},
		{"unlimited", 0, 0, []step{{0, 1 << 20, true}, {0, 1 << 20, true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLogLimiter(tc.lines, tc.bytes, t0)
			dropped := int64(0)
			for i, s := range tc.steps {
				if got := l.allow(t0.Add(s.at), s.n); got != s.want {
					t.Fatalf("step %d (%s, %d bytes): allowed %v, want %v", i, s.at, s.n, got, s.want)
				}
				if !s.want {
					dropped++
				}
			}
			if l.dropped != dropped {
				t.Errorf("counted %d dropped, want %d", l.dropped, dropped)
			}
		})
	}
}
