package ratelimit_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/connector/connectortest"
	"github.com/floe-stream/floe/host/connector/ratelimit"
)

var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// TestTakeGrantsRatePerSimulatedSecond checks that, at every moment of a
// long simulated run, the records granted trail rate times the elapsed time
// by less than one record, and that no single Take sleeps past MaxWait.
func TestTakeGrantsRatePerSimulatedSecond(t *testing.T) {
	tests := []struct {
		rate    float64
		want    int
		seconds int
	}{
		{rate: 1000, want: 100, seconds: 10},
		{rate: 1000, want: 1024, seconds: 10},
		{rate: 1, want: 64, seconds: 10},
		{rate: 0.5, want: 1, seconds: 20},
		{rate: 333.3, want: 7, seconds: 5},
		{rate: 1e6, want: 1000, seconds: 3},
	}
	for _, tt := range tests {
		clock := connectortest.NewFakeClock(epoch)
		l := ratelimit.New(tt.rate, clock)
		granted := 0
		for clock.Now().Sub(epoch) < time.Duration(tt.seconds)*time.Second {
			before := clock.Now()
			n, err := l.Take(context.Background(), tt.want)
			if err != nil || n < 0 || n > tt.want {
				t.Fatalf("rate %v: Take(%d) = %d, %v", tt.rate, tt.want, n, err)
			}
			if slept := clock.Now().Sub(before); slept > ratelimit.MaxWait {
				t.Fatalf("rate %v: Take slept %v, more than MaxWait", tt.rate, slept)
			}
			granted += n
			ideal := clock.Now().Sub(epoch).Seconds() * tt.rate
			if math.Abs(float64(granted)-ideal) > 1+1e-6 {
				t.Fatalf("rate %v, want %d: granted %d after %v, want %.2f", tt.rate, tt.want, granted, clock.Now().Sub(epoch), ideal)
			}
		}
	}
}

// TestTakeBurstsAtMostOneBatchAfterIdling checks that an hour of idling buys
// one batch, not an hour's worth of records: the next Take must wait for its
// tokens to accrue again.
func TestTakeBurstsAtMostOneBatchAfterIdling(t *testing.T) {
	clock := connectortest.NewFakeClock(epoch)
	l := ratelimit.New(1000, clock)
	if _, err := l.Take(context.Background(), 10); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	steps := []struct {
		wantN     int
		wantSleep time.Duration
	}{
		{10, 0},
		{10, 10 * time.Millisecond},
	}
	for i, step := range steps {
		before := clock.Now()
		n, err := l.Take(context.Background(), 10)
		if slept := clock.Now().Sub(before); err != nil || n != step.wantN || slept != step.wantSleep {
			t.Errorf("take %d after an idle hour: %d records after sleeping %v (%v), want %d after %v", i, n, slept, err, step.wantN, step.wantSleep)
		}
	}
}

func TestTakeWithoutLimitOrWithDoneContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		limiter *ratelimit.Limiter
		ctx     context.Context
		wantN   int
		wantErr error
	}{
		{"nil limiter", nil, context.Background(), 42, nil},
		{"zero rate", ratelimit.New(0, nil), context.Background(), 42, nil},
		{"cancelled", ratelimit.New(1, connectortest.NewFakeClock(epoch)), ctx, 0, context.Canceled},
	}
	for _, tt := range tests {
		n, err := tt.limiter.Take(tt.ctx, 42)
		if n != tt.wantN || !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
			t.Errorf("%s: Take(42) = %d, %v, want %d, %v", tt.name, n, err, tt.wantN, tt.wantErr)
		}
	}
}
