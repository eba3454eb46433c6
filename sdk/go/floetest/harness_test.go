//go:build !wasip1

package floetest_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	floe "github.com/floe-stream/floe/sdk/go"
	"github.com/floe-stream/floe/sdk/go/floetest"
)

// The operators under test, registered as a module registers them.

var (
	counts   = floe.NewValueState("counts", floe.Int64)
	seen     = floe.NewListState("seen", floe.String)
	lastSeen = floe.NewMapState("last", floe.String, floe.Int64)
	opened   = floe.NewOperatorList("opened", floe.Int64, floe.Union)
	byBytes  = floe.NewMapState("bytes", floe.Bytes, floe.Int64)
)

func init() {
	floe.Process("count", count)
	floe.OnTimer("count", func(ctx *floe.Context, t floe.Timer, out floe.Emitter) error {
		n, _ := counts.Get(ctx)
		out.Emit(fmt.Appendf(nil, "%s fired %d at wm %d: %d", ctx.Key(), t.Domain, ctx.Watermark(), n))
		return nil
	})
	floe.Process("bytemap", bytemap)
	floe.Filter("short", func(v []byte) (bool, error) { return len(v) < 4, nil })
	floe.Map("boom", func(v []byte) ([]byte, error) {
		if string(v) == "bad" {
			return nil, errors.New("bad record")
		}
		return v, nil
	})
	floe.OnOpen(func(p floe.Params) error {
		opened.Append(int64(len(opened.Get())))
		return nil
	})
	floe.Aggregate("sum", floe.Int64, floe.AggregateFunc[int64]{
		Create: func() int64 { return 0 },
		Add: func(acc int64, r floe.Record) int64 {
			n, _ := strconv.ParseInt(string(r.Value), 10, 64)
			return acc + n
		},
		Merge: func(a, b int64) int64 { return a + b },
		Result: func(key []byte, w floe.Window, acc int64, out floe.Emitter) error {
			out.Emit(fmt.Appendf(nil, "%s [%d,%d) %d", key, w.Start, w.End, acc))
			return nil
		},
	})
	floe.ProcessWindow("list", func(key []byte, w floe.Window, recs []floe.Record, out floe.Emitter) error {
		var vs []string
		for _, r := range recs {
			vs = append(vs, string(r.Value))
		}
		out.EmitTo("lists", fmt.Appendf(nil, "%s %s", key, strings.Join(vs, "+")))
		return nil
	})
}

// count counts each key's records, remembers their values and timestamps,
// sets an event-time timer at the record's timestamp + 10 and a
// processing-time timer at 100, and emits "key,n".
func count(ctx *floe.Context, v []byte, out floe.Emitter) error {
	n, _ := counts.Get(ctx)
	counts.Put(ctx, n+1)
	seen.Append(ctx, string(v))
	lastSeen.Put(ctx, string(v), ctx.Timestamp())
	if ctx.Timestamp() != floe.NoTimestamp {
		ctx.RegisterEventTimer(ctx.Timestamp() + 10)
	}
	ctx.RegisterProcessingTimer(100)
	out.Emit(fmt.Appendf(nil, "%s,%d", ctx.Key(), n+1))
	return nil
}

// bytemap counts each value in a map state keyed by []byte. The value "?"
// emits the entries in All's order as "hex=count" and "!" drains the map
// while walking it.
func bytemap(ctx *floe.Context, v []byte, out floe.Emitter) error {
	switch string(v) {
	case "?", "!":
		var parts []string
		for k, n := range byBytes.All(ctx) {
			parts = append(parts, fmt.Sprintf("%x=%d", k, n))
			if v[0] == '!' {
				byBytes.Delete(ctx, k)
				_, still := byBytes.Get(ctx, k)
				// Another read while walking: the longer list reuses the
				// SDK's read buffer.
				parts[len(parts)-1] += fmt.Sprint("/", still, "/", len(seen.Get(ctx)))
			}
		}
		out.Emit([]byte(strings.Join(parts, " ")))
	default:
		n, _ := byBytes.Get(ctx, v)
		byBytes.Put(ctx, v, n+1)
		seen.Append(ctx, string(v))
	}
	return nil
}

func open(t *testing.T, h *floetest.Harness, function string) {
	t.Helper()
	if err := h.Open(function, nil); err != nil {
		t.Fatalf("open %s: %v", function, err)
	}
}

func check(t *testing.T, what string, out []floetest.Emitted, err error, want ...string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if got := floetest.Strings(out); !slices.Equal(got, want) {
		t.Errorf("%s emitted %q, want %q", what, got, want)
	}
}

func TestProcessKeysTimestampsAndState(t *testing.T) {
	h := floetest.New()
	open(t, h, "count")
	out, err := h.Process(floetest.Keyed("a", "x").At(5), floetest.Keyed("b", "y"), floetest.Keyed("a", "z").At(7))
	check(t, "process", out, err, "main @5 a,1", "main b,1", "main @7 a,2")

	v, ok := h.Value("counts", []byte("a"))
	if !ok || len(v) != 8 || binary.LittleEndian.Uint64(v) != 2 {
		t.Errorf("counts of a: %x, %v; want 2 as 8 bytes little-endian", v, ok)
	}
	if _, ok := h.Value("counts", []byte("c")); ok {
		t.Errorf("counts of c, which no record had, is set")
	}
	if l := h.List("seen", []byte("a")); len(l) != 2 || string(l[0]) != "x" || string(l[1]) != "z" {
		t.Errorf("seen of a: %q, want [x z]", l)
	}
	if m := h.Map("last", []byte("a")); len(m) != 2 || binary.LittleEndian.Uint64(m["z"]) != 7 {
		t.Errorf("last of a: %v, want x and z, z at 7", m)
	}
}

// TestMapStateBytesKeysInOrder checks that a map state takes []byte keys
// and that All walks them in ascending byte order, whatever the insertion
// order, and that the loop may change the map it walks.
func TestMapStateBytesKeysInOrder(t *testing.T) {
	h := floetest.New()
	open(t, h, "bytemap")
	var in []floetest.Record
	for _, v := range []string{"b", "\xff", "ab", "B", "\x00", "a", "ab"} {
		in = append(in, floetest.Keyed("k", v))
	}
	in = append(in, floetest.Keyed("k", "?"), floetest.Keyed("other", "?"))
	out, err := h.Process(in...)
	check(t, "bytes keys", out, err, "main 00=1 42=1 61=1 6162=2 62=1 ff=1", "main ")
	out, err = h.Process(floetest.Keyed("k", "!"), floetest.Keyed("k", "?"))
	check(t, "draining while walking", out, err,
		"main 00=1/false/7 42=1/false/7 61=1/false/7 6162=2/false/7 62=1/false/7 ff=1/false/7", "main ")
}

func TestTimersFireInTimestampThenKeyOrder(t *testing.T) {
	h := floetest.New()
	open(t, h, "count")
	_, err := h.Process(floetest.Keyed("b", "x").At(5), floetest.Keyed("a", "y").At(5), floetest.Keyed("c", "z").At(1))
	if err != nil {
		t.Fatal(err)
	}
	if h.Timers() != 6 {
		t.Errorf("%d timers, want 3 event-time and 3 processing-time", h.Timers())
	}
	out, err := h.AdvanceWatermark(10)
	check(t, "watermark 10", out, err)
	out, err = h.AdvanceWatermark(11)
	check(t, "watermark 11", out, err, "main @11 c fired 0 at wm 11: 1")
	out, err = h.AdvanceWatermark(15)
	check(t, "watermark 15", out, err, "main @15 a fired 0 at wm 15: 1", "main @15 b fired 0 at wm 15: 1")
	out, err = h.AdvanceWatermark(100)
	check(t, "watermark 100", out, err)
	out, err = h.AdvanceProcessingTime(99)
	check(t, "processing time 99", out, err)
	out, err = h.AdvanceProcessingTime(100)
	check(t, "processing time 100", out, err,
		"main a fired 1 at wm 100: 1", "main b fired 1 at wm 100: 1", "main c fired 1 at wm 100: 1")
	if h.Timers() != 0 {
		t.Errorf("%d timers left after all fired", h.Timers())
	}
}

func TestFailureNamesTheRecord(t *testing.T) {
	h := floetest.New()
	open(t, h, "boom")
	out, err := h.Process(floetest.Value("ok"), floetest.Value("bad"), floetest.Value("late"))
	var f *floetest.Failure
	if !errors.As(err, &f) || f.Record != 1 || !strings.Contains(f.Message, "bad record") {
		t.Fatalf("process: %v, want a failure of record 1 saying bad record", err)
	}
	check(t, "the failed batch", out, nil, "main ok")
	if err := h.Open("nope", nil); err == nil || !strings.Contains(err.Error(), `no function "nope"`) {
		t.Errorf("opening an unregistered function: %v", err)
	}
}

func TestStateOutlivesAnInstance(t *testing.T) {
	h := floetest.New()
	open(t, h, "count")
	if _, err := h.Process(floetest.Keyed("a", "x")); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	open(t, h, "count")
	out, err := h.Process(floetest.Keyed("a", "x"))
	check(t, "process after reopening", out, err, "main a,2")
	if l := h.OperatorList("opened"); len(l) != 2 {
		t.Errorf("operator list after two opens: %q, want 2 elements", l)
	}
	h = floetest.New()
	h.PresetOperatorList("opened", binary.LittleEndian.AppendUint64(nil, 7))
	open(t, h, "short")
	if l := h.OperatorList("opened"); len(l) != 2 || binary.LittleEndian.Uint64(l[1]) != 1 {
		t.Errorf("operator list restored with one element, then opened: %x", l)
	}
}

func TestWindows(t *testing.T) {
	h := floetest.New()
	open(t, h, "sum")
	w := floe.Window{Start: 0, End: 10}
	out, err := h.AggregateWindow([]byte("k"), w,
		[]floetest.Record{floetest.Value("1").At(1), floetest.Value("2").At(2)}, []floetest.Record{floetest.Value("4").At(3)})
	check(t, "aggregate over two accumulators", out, err, "main @9 k [0,10) 7")
	if _, err = h.AggregateWindow([]byte("k"), w); err == nil {
		t.Errorf("aggregating no batch succeeded")
	}

	open(t, h, "list")
	out, err = h.ProcessWindow([]byte("k"), w, floetest.Value("a").At(1), floetest.Value("b").At(2))
	check(t, "process window", out, err, "lists @9 k a+b")
	if _, err := h.AggregateWindow([]byte("k"), w, []floetest.Record{floetest.Value("1")}); err == nil {
		t.Errorf("aggregating with a window process function succeeded")
	}
}

func ExampleHarness() {
	h := floetest.New()
	if err := h.Open("short", nil); err != nil {
		panic(err)
	}
	out, err := h.Process(floetest.Value("abc").At(5), floetest.Value("abcdef"))
	fmt.Println(floetest.Strings(out), err)
	// Output: [main @5 abc] <nil>
}
