package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
)

func TestFormatProgress(t *testing.T) {
	tests := []struct {
		name string
		p    progress
		want string
	}{
		{"nothing yet", progress{}, "0 records, 0 records/s"},
		{"unbounded source", progress{records: 1500, rate: 250}, "1.5k records, 250 records/s"},
		// 100 bytes a record so far: 6000 bytes left are 60 records, 6 s at
		// 10 records/s.
		{"bounded file", progress{read: 4000, total: 10000, records: 40, rate: 10}, "40.0% of 9.8 KiB, 40 records, 10 records/s, ETA 6s"},
		{"stalled", progress{read: 4000, total: 10000, records: 40}, "40.0% of 9.8 KiB, 40 records, 0 records/s"},
		{"all read", progress{read: 1 << 30, total: 1 << 30, records: 2_000_000, rate: 1e6}, "100.0% of 1.0 GiB, 2.0M records, 1.0M records/s, ETA 0s"},
		// 1 GiB of 10 GiB in 10M records at 100k/s: 90M records left, 900 s.
		{"large", progress{read: 1 << 30, total: 10 << 30, records: 10_000_000, rate: 100_000}, "10.0% of 10.0 GiB, 10.0M records, 100.0k records/s, ETA 15m00s"},
	}
	for _, tt := range tests {
		if got := formatProgress(tt.p); got != tt.want {
			t.Errorf("%s: formatProgress(%+v) = %q, want %q", tt.name, tt.p, got, tt.want)
		}
	}
}

func TestFormatETA(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{1499 * time.Millisecond, "1s"},
		{59 * time.Second, "59s"},
		{187 * time.Second, "3m07s"},
		{2*time.Hour + 5*time.Minute + 9*time.Second, "2h05m09s"},
		{30 * time.Hour, "30h00m00s"},
	}
	for _, tt := range tests {
		if got := formatETA(tt.d); got != tt.want {
			t.Errorf("formatETA(%s) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestFormatCount(t *testing.T) {
	tests := []struct {
		n    float64
		want string
	}{
		{0, "0"},
		{999, "999"},
		{999.6, "1.0k"},
		{1234, "1.2k"},
		{999_960, "1.0M"},
		{3_400_000, "3.4M"},
		{2.5e12, "2.5T"},
	}
	for _, tt := range tests {
		if got := formatCount(tt.n); got != tt.want {
			t.Errorf("formatCount(%v) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestProgressLine(t *testing.T) {
	m := api.JobMetrics{Vertices: []api.VertexMetrics{{TaskFigures: api.TaskFigures{RecordsIn: 40, RecordsInPerSecond: 10,
		Progress: &api.SourceProgress{BytesRead: 4000, BytesTotal: 10000}}}}}
	const line = "40.0% of 9.8 KiB, 40 records, 10 records/s, ETA 6s"
	t0 := time.Unix(1000, 0)
	tests := []struct {
		name string
		tty  bool
		want string
	}{
		{"terminal", true, "\r" + line + "\x1b[K\r" + line + "\x1b[K\n"},
		{"file", false, "progress: " + line + "\nprogress: " + line + "\n"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		p := &progressLine{w: &buf, tty: tt.tty, every: time.Second, last: t0}
		if p.due(t0.Add(999 * time.Millisecond)) {
			t.Errorf("%s: due before its interval", tt.name)
		}
		for i := 1; i <= 2; i++ {
			now := t0.Add(time.Duration(i) * time.Second)
			if !p.due(now) {
				t.Errorf("%s: not due after its interval", tt.name)
			}
			p.show(now, m)
		}
		p.end()
		p.end() // a second end writes nothing more
		if buf.String() != tt.want {
			t.Errorf("%s: wrote %q, want %q", tt.name, buf.String(), tt.want)
		}
	}
}

func TestProgressLineOff(t *testing.T) {
	p := newProgressLine(new(bytes.Buffer), 0)
	if p.due(time.Now().Add(time.Hour)) {
		t.Error("--progress 0 shows progress")
	}
}
