package connector_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/connector"
)

func TestSplitInfoValidate(t *testing.T) {
	tests := []struct {
		split connector.SplitInfo
		ok    bool
	}{
		{connector.SplitInfo{Subtask: 0, Parallelism: 1}, true},
		{connector.SplitInfo{Subtask: 3, Parallelism: 4}, true},
		{connector.SplitInfo{}, false},
		{connector.SplitInfo{Subtask: 4, Parallelism: 4}, false},
		{connector.SplitInfo{Subtask: -1, Parallelism: 4}, false},
	}
	for _, tt := range tests {
		if err := tt.split.Validate(); (err == nil) != tt.ok {
			t.Errorf("%+v: Validate() = %v, want ok %v", tt.split, err, tt.ok)
		}
	}
}

func TestCheckNext(t *testing.T) {
	live := context.Background()
	done, cancel := context.WithCancel(live)
	cancel()
	tests := []struct {
		name   string
		ctx    context.Context
		closed bool
		max    int
		want   error // nil, a sentinel, or errAny for any error
	}{
		{"ready", live, false, 1, nil},
		{"closed", live, true, 1, connector.ErrClosed},
		{"zero max", live, false, 0, errAny},
		{"cancelled", done, false, 1, context.Canceled},
	}
	for _, tt := range tests {
		err := connector.CheckNext(tt.ctx, tt.closed, tt.max)
		if tt.want == errAny && err != nil {
			continue
		}
		if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
			t.Errorf("%s: CheckNext() = %v, want %v", tt.name, err, tt.want)
		}
	}
}

var errAny = errors.New("any error")

func TestSystemClockSleepReturnsAtOnceWhenDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		d    time.Duration
		want error
	}{
		{"cancelled", ctx, time.Hour, context.Canceled},
		{"zero", context.Background(), 0, nil},
		{"short", context.Background(), time.Millisecond, nil},
	}
	for _, tt := range tests {
		if err := (connector.SystemClock{}).Sleep(tt.ctx, tt.d); !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
			t.Errorf("%s: Sleep() = %v, want %v", tt.name, err, tt.want)
		}
	}
}
