package window

import (
	"context"
	"fmt"
	"testing"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/timer"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/storage/keygroup"
	"github.com/floe-stream/floe/storage/kv/memkv"
	"github.com/floe-stream/floe/storage/state"
)

// TestLiveWindowsStayUnderTheirBound checks that the live windows in
// memory stay within Config.LiveBytes, that the windows past it go to
// state, that a snapshot writes the rest there, and that firing leaves
// neither memory nor state holding a window.
func TestLiveWindowsStayUnderTheirBound(t *testing.T) {
	b := state.New(memkv.New())
	m, _ := b.Map("w")
	e, _ := b.Map("w#elems")
	tm, _ := b.Map(timer.Namespace("w"))
	q := timer.New(tm)
	const bound = 1000
	op, err := New(Config{Spec: Spec{Kind: Sliding, Size: 10, Slide: 5}, Domain: udf.EventTime, LiveBytes: bound}, sum{agg: true}, m, e, q)
	if err != nil {
		t.Fatal(err)
	}
	var in, out record.Batch
	for i := range 100 {
		k := fmt.Appendf(nil, "k%d", i)
		in.AppendKeyed(k, []byte("1"), int64(i%10), keygroup.Of(k, 128))
	}
	if err := op.Process(context.Background(), &in, &out); err != nil {
		t.Fatal(err)
	}
	count := func() (n int) {
		err := b.ScanRange(keygroup.Range{Start: 0, End: 128}, func(_ uint16, ns string, _, _, _ []byte) error {
			if ns == "w" {
				n++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	inMemory := 0
	for _, lk := range op.live {
		inMemory += len(lk.wins)
	}
	if op.liveBytes > bound || inMemory == 0 {
		t.Fatalf("%d windows, %d bytes in memory; want some, at most %d bytes", inMemory, op.liveBytes, bound)
	}
	if got, want := count(), 200-inMemory; got != want || op.stateOnly != int64(want) {
		t.Fatalf("%d windows in state (%d counted), want %d", got, op.stateOnly, want)
	}
	if err := op.BeforeSnapshot(); err != nil {
		t.Fatal(err)
	}
	if got := count(); got != 200 {
		t.Fatalf("%d windows in state after BeforeSnapshot, want 200", got)
	}
	op.SetWatermark(100)
	var due []timer.Timer
	for {
		tm, ok, err := q.Pop(udf.EventTime, 100)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		due = append(due, tm)
	}
	if err := op.FireTimers(context.Background(), due, &out); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 200 || count() != 0 || len(op.live) != 0 || op.liveBytes != 0 || op.stateOnly != 0 {
		t.Fatalf("after firing: %d results, %d windows in state, %d keys and %d bytes in memory, %d counted in state",
			out.Len(), count(), len(op.live), op.liveBytes, op.stateOnly)
	}
}
