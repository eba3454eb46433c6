package ratelimit

import (
	"context"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/connector/connectortest"
)

func TestScheduleRateAt(t *testing.T) {
	s := Schedule{{For: 2 * time.Second, Rate: 100}, {For: time.Second, Rate: 1000}, {For: time.Second, Rate: 10}}
	tests := []struct {
		n     int64
		share float64
		want  float64
	}{
		{0, 1, 100}, {199, 1, 100}, {200, 1, 1000}, {1199, 1, 1000}, {1200, 1, 10}, {1209, 1, 10},
		{1_000_000, 1, 10}, // after the last step its rate holds
		// A stream with half the records has half of each step's.
		{99, 0.5, 100}, {100, 0.5, 1000}, {600, 0.5, 10},
	}
	for _, tt := range tests {
		if got := s.RateAt(tt.n, tt.share); got != tt.want {
			t.Errorf("RateAt(%d, %g) = %g, want %g", tt.n, tt.share, got, tt.want)
		}
	}
	if got := (Schedule{}).RateAt(5, 1); got != 0 {
		t.Errorf("empty schedule: %g", got)
	}
}

// TestSetRate paces a limiter at 100/s, then at 1000/s, on a fake clock:
// the records granted follow the rate in force.
func TestSetRate(t *testing.T) {
	clock := connectortest.NewFakeClock(time.Unix(0, 0))
	l := New(100, clock)
	take := func(d time.Duration, batch int) int {
		end, n := clock.Now().Add(d), 0
		for clock.Now().Before(end) {
			got, err := l.Take(context.Background(), batch)
			if err != nil {
				t.Fatal(err)
			}
			n += got
		}
		return n
	}
	if n := take(time.Second, 10); n < 90 || n > 110 {
		t.Errorf("at 100/s one second granted %d", n)
	}
	if r := l.Rate(); r != 100 {
		t.Errorf("Rate() = %g, want 100", r)
	}
	l.SetRate(1000)
	if r := l.Rate(); r != 1000 {
		t.Errorf("Rate() after SetRate(1000) = %g", r)
	}
	if n := take(time.Second, 10); n < 990 || n > 1010 {
		t.Errorf("at 1000/s one second granted %d", n)
	}
	// It slept 2 s in all, less what the first Take found in the bucket.
	if w := l.Waited(); w <= time.Second || w > 2*time.Second {
		t.Errorf("Waited() = %s over 2 s of rate-limited takes", w)
	}
	var nilLimiter *Limiter
	nilLimiter.SetRate(5) // stays unlimited
	if r := nilLimiter.Rate(); r != 0 {
		t.Errorf("nil limiter's Rate() = %g, want 0", r)
	}
	if n, _ := nilLimiter.Take(context.Background(), 7); n != 7 {
		t.Errorf("nil limiter granted %d", n)
	}
}
