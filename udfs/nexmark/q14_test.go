//go:build !wasip1

package main

import "testing"

// TestBidTimeType checks q14's hour classes for every hour of the day, as
// Flink's q14 CASE gives them: 8 to 18 day, up to 6 and from 20 night,
// 7 and 19 other. (The 200K events of the minicluster test all fall in
// the first hour of a day.)
func TestBidTimeType(t *testing.T) {
	for h := range 24 {
		want := "otherTime"
		if h >= 8 && h <= 18 {
			want = "dayTime"
		} else if h != 7 && h != 19 {
			want = "nightTime"
		}
		if got := bidTimeType(h); got != want {
			t.Errorf("hour %d: %s, want %s", h, got, want)
		}
	}
}
