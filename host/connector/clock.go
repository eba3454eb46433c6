package connector

import (
	"context"
	"time"
)

// Clock is the source of time for connectors: rate limiters read it and
// polling loops sleep on it. Tests inject a fake one so that simulated
// seconds pass without waiting.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Sleep pauses for d, or until ctx is done, in which case it returns
	// ctx.Err(). A non-positive d returns at once.
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock is the Clock of the operating system.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// Sleep waits for d on a timer, or until ctx is done.
func (SystemClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil || d <= 0 {
		return err
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// OrSystem returns c, or SystemClock when c is nil.
func OrSystem(c Clock) Clock {
	if c == nil {
		return SystemClock{}
	}
	return c
}
