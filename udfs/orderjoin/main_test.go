//go:build !wasip1

package main

import (
	"slices"
	"strings"
	"testing"

	floe "github.com/floe-stream/floe/sdk/go"
	"github.com/floe-stream/floe/sdk/go/floetest"
)

// TestJoin runs both functions on one instance, as a coProcess does:
// orders through Process, payments through Process2, sharing each id's
// state; the timers either function sets fire into onOrder's handler.
func TestJoin(t *testing.T) {
	h := floetest.New()
	if err := h.OpenCoProcess("onOrder", "onPayment", nil); err != nil {
		t.Fatal(err)
	}
	var got []string
	add := func(out []floetest.Emitted, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range out {
			got = append(got, string(e.Value))
		}
	}
	rec := func(key, v string) floetest.Record {
		return floetest.Record{Key: []byte(key), Value: []byte(key + "," + v), Timestamp: floe.NoTimestamp}
	}
	add(h.Process(rec("1", "10"), rec("2", "20")))
	add(h.Process2(rec("2", "yes"), rec("3", "no")))
	add(h.Process2(rec("1", "late")))
	if n := h.Timers(); n != 1 {
		t.Errorf("%d timers pending, want 1 (id 3's)", n)
	}
	add(h.AdvanceWatermark(1<<63 - 1))
	want := []string{"2,20,yes", "1,10,late", "3,-,no"}
	if !slices.Equal(got, want) {
		t.Errorf("got %s\nwant %s", strings.Join(got, " "), strings.Join(want, " "))
	}
}
