package timer

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/storage/keygroup"
	"github.com/floe-stream/floe/storage/kv/memkv"
	"github.com/floe-stream/floe/storage/state"
)

func newQueue(t *testing.T, b *state.Backend) *Queue {
	t.Helper()
	m, err := b.Map(Namespace("op"))
	if err != nil {
		t.Fatal(err)
	}
	return New(m)
}

// drain pops every timer of d due at upTo, as "key@ts".
func drain(t *testing.T, q *Queue, d udf.TimeDomain, upTo int64) string {
	t.Helper()
	var out []string
	for {
		tm, ok, err := q.Pop(d, upTo)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return strings.Join(out, " ")
		}
		out = append(out, fmt.Sprintf("%s@%d", tm.Key, tm.Timestamp))
	}
}

func TestOrderDedupAndDelete(t *testing.T) {
	b := state.New(memkv.New())
	q := newQueue(t, b)
	reg := func(key string, d udf.TimeDomain, ts int64) {
		if err := q.Register(3, []byte(key), d, ts); err != nil {
			t.Fatal(err)
		}
	}
	reg("b", udf.EventTime, 10)
	reg("a", udf.EventTime, 10)
	reg("a", udf.EventTime, 10) // twice: one timer
	reg("c", udf.EventTime, 5)
	reg("z", udf.EventTime, math.MinInt64+1)
	reg("d", udf.EventTime, 20)
	reg("a", udf.ProcessingTime, 7)
	if err := q.Delete(3, []byte("d"), udf.EventTime, 20); err != nil {
		t.Fatal(err)
	}
	if err := q.Delete(3, []byte("nope"), udf.EventTime, 20); err != nil {
		t.Fatal(err)
	}
	reg("e", udf.EventTime, 30)
	if err := q.Delete(3, []byte("e"), udf.EventTime, 30); err != nil {
		t.Fatal(err)
	}
	reg("e", udf.EventTime, 30) // deleted, then registered again: fires once
	if got, want := drain(t, q, udf.EventTime, 9), "z@-9223372036854775807 c@5"; got != want {
		t.Fatalf("due at 9: %q, want %q", got, want)
	}
	if got, want := drain(t, q, udf.EventTime, 100), "a@10 b@10 e@30"; got != want {
		t.Fatalf("due at 100: %q, want %q", got, want)
	}
	if got, want := drain(t, q, udf.ProcessingTime, 7), "a@7"; got != want {
		t.Fatalf("processing time: %q, want %q", got, want)
	}
	if q.Len() != 0 {
		t.Fatalf("%d timers left", q.Len())
	}
}

// TestRestoreFromState checks that timers live in keyed state: a new queue
// rebuilt by scanning the backend finds exactly the registered, unfired,
// undeleted timers, and only those of the scanned key groups.
func TestRestoreFromState(t *testing.T) {
	b := state.New(memkv.New())
	q := newQueue(t, b)
	for kg := uint16(0); kg < 8; kg++ {
		for _, ts := range []int64{-5, 1, 2} {
			if err := q.Register(kg, []byte{'k', byte('0' + kg)}, udf.EventTime, ts); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := q.Delete(2, []byte("k2"), udf.EventTime, 2); err != nil {
		t.Fatal(err)
	}
	if got := drain(t, q, udf.EventTime, -5); got != "k0@-5 k1@-5 k2@-5 k3@-5 k4@-5 k5@-5 k6@-5 k7@-5" {
		t.Fatalf("fired %q", got)
	}
	r := newQueue(t, b)
	ns := Namespace("op")
	err := b.ScanRange(keygroup.Range{Start: 2, End: 4}, func(kg uint16, n string, key, rest, _ []byte) error {
		if n != ns {
			return nil
		}
		return r.Restored(kg, key, rest)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := drain(t, r, udf.EventTime, 10), "k2@1 k3@1 k3@2"; got != want {
		t.Fatalf("restored %q, want %q", got, want)
	}
}
