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

// TestLiveSessionsStayUnderTheirBound checks that the session lists in
// memory stay within Config.LiveBytes, that the keys past it, and those
// whose lists grow past it, go to state, that a snapshot writes the rest
// there, and that firing leaves neither memory nor state holding a
// session.
func TestLiveSessionsStayUnderTheirBound(t *testing.T) {
	b := state.New(memkv.New())
	m, _ := b.Map("w")
	e, _ := b.Map("w#elems")
	tm, _ := b.Map(timer.Namespace("w"))
	q := timer.New(tm)
	const bound, keys = 1000, 100
	op, err := New(Config{Spec: Spec{Kind: Session, Gap: 10}, Domain: udf.EventTime, LiveBytes: bound}, sum{agg: true}, m, e, q)
	if err != nil {
		t.Fatal(err)
	}
	count := func(namespace string) (n int) {
		err := b.ScanRange(keygroup.Range{Start: 0, End: 128}, func(_ uint16, ns string, _, _, _ []byte) error {
			if ns == namespace {
				n++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	inState := func() int { return count("w") }
	var out record.Batch
	// The second batch gives each key a second session, 50 ms later: some
	// lists in memory grow past the bound.
	for _, at := range []int64{0, 50} {
		var in record.Batch
		for i := range keys {
			k := fmt.Appendf(nil, "k%d", i)
			in.AppendKeyed(k, []byte("1"), at+int64(i%10), keygroup.Of(k, 128))
		}
		if err := op.Process(context.Background(), &in, &out); err != nil {
			t.Fatal(err)
		}
		var size int64
		for _, lk := range op.sl.keys {
			size += sessionsSize(lk.key, lk.list)
		}
		inMemory := len(op.sl.keys)
		if op.liveBytes != size || size > bound || inMemory == 0 {
			t.Fatalf("after the batch at %d: %d keys, %d bytes in memory (%d counted); want some, at most %d bytes", at, inMemory, size, op.liveBytes, bound)
		}
		if got, want := inState(), keys-inMemory; got != want || op.sl.stateOnly != int64(want) {
			t.Fatalf("after the batch at %d: %d keys in state (%d counted), want %d", at, got, op.sl.stateOnly, want)
		}
	}
	if err := op.BeforeSnapshot(); err != nil {
		t.Fatal(err)
	}
	if got := inState(); got != keys {
		t.Fatalf("%d keys in state after BeforeSnapshot, want %d", got, keys)
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
	if out.Len() != 2*keys || inState() != 0 || len(op.sl.keys) != 0 || op.liveBytes != 0 || op.sl.stateOnly != 0 {
		t.Fatalf("after firing: %d results, %d keys in state, %d keys and %d bytes in memory, %d counted in state",
			out.Len(), inState(), len(op.sl.keys), op.liveBytes, op.sl.stateOnly)
	}
	if n := count(timer.Namespace("w")); n != 0 {
		t.Fatalf("%d timers in state, want none", n)
	}
}
