package main

import (
	"testing"
	"time"
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
