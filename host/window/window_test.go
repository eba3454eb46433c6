package window

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/timer"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/storage/keygroup"
	"github.com/floe-stream/floe/storage/kv/memkv"
	"github.com/floe-stream/floe/storage/snapshot"
	"github.com/floe-stream/floe/storage/state"
)

// sum is a Function in Go: an aggregate summing integer values, or a
// process function listing them.
type sum struct{ agg bool }

func (s sum) Aggregate() bool { return s.agg }

func (s sum) Add(_ context.Context, groups []AddGroup) ([][]byte, error) {
	out := make([][]byte, len(groups))
	for i, g := range groups {
		var n int64
		if g.HasAcc {
			n, _ = strconv.ParseInt(string(g.Acc), 10, 64)
		}
		for _, e := range g.Elems {
			v, err := strconv.ParseInt(string(e.Value), 10, 64)
			if err != nil {
				return nil, err
			}
			n += v
		}
		out[i] = strconv.AppendInt(nil, n, 10)
	}
	return out, nil
}

func (s sum) Merge(_ context.Context, groups [][][]byte) ([][]byte, error) {
	out := make([][]byte, len(groups))
	for i, accs := range groups {
		var n int64
		for _, a := range accs {
			v, _ := strconv.ParseInt(string(a), 10, 64)
			n += v
		}
		out[i] = strconv.AppendInt(nil, n, 10)
	}
	return out, nil
}

func (s sum) Fire(_ context.Context, groups []FireGroup, out *record.Batch) error {
	for _, g := range groups {
		if s.agg {
			out.Append(nil, fmt.Appendf(nil, "%s %s sum=%s", g.Key, g.W, g.Acc), g.W.MaxTimestamp())
			continue
		}
		var vs []string
		for _, e := range g.Elems {
			vs = append(vs, fmt.Sprintf("%s@%d", e.Value, e.Timestamp))
		}
		out.Append(nil, fmt.Appendf(nil, "%s %s elems=%s", g.Key, g.W, strings.Join(vs, "+")), g.W.MaxTimestamp())
	}
	return nil
}

// TestWindows runs the scripts in testdata:
//
//	new kind=K [size=N slide=N gap=N lateness=N late=NAME process processing]
//	batch            lines "key@ts value"
//	watermark T      fire the event-time timers due at T
//	processing-time T
//
//	snapshot         take a full snapshot of the keyed state, as a task does
//	restore          a new operator on the state of the last snapshot
//
// Each script runs with the same expected output: firing each due timer
// by itself (FireTimer) and all of them in one call (FireTimers), as a
// task does; and keeping no live windows in memory, one (the rest go to
// state), one until its sum grows past the bound (67 bytes), or all
// (Config.LiveBytes).
func TestWindows(t *testing.T) {
	for _, batched := range []bool{false, true} {
		for _, live := range []int64{0, 67, 100, 1 << 20} {
			t.Run(fmt.Sprintf("batched=%v/live=%d", batched, live), func(t *testing.T) { runWindowScripts(t, batched, live) })
		}
	}
}

func runWindowScripts(t *testing.T, batched bool, live int64) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var (
			op    *Operator
			q     *timer.Queue
			now   int64
			cfg   Config
			fn    sum
			b     *state.Backend
			saved []byte
		)
		open := func() error {
			m, _ := b.Map("w")
			e, _ := b.Map("w#elems")
			tm, _ := b.Map(timer.Namespace("w"))
			q = timer.New(tm)
			var err error
			op, err = New(cfg, fn, m, e, q)
			return err
		}
		render := func(out *record.Batch) string {
			var lines []string
			for _, r := range out.Records {
				lines = append(lines, fmt.Sprintf("@%d %s", r.Timestamp, r.Value))
			}
			for _, r := range op.late.Records {
				lines = append(lines, fmt.Sprintf("late @%d %s", r.Timestamp, r.Value))
			}
			op.late.Reset()
			if len(lines) == 0 {
				return "(nothing)"
			}
			return strings.Join(lines, "\n")
		}
		fire := func(d udf.TimeDomain, upTo int64) string {
			var out record.Batch
			var due []timer.Timer
			for {
				tm, ok, err := q.Pop(d, upTo)
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
				if batched {
					due = append(due, tm)
					continue
				}
				if err := op.FireTimer(context.Background(), d, tm.Timestamp, tm.KeyGroup, tm.Key, &out); err != nil {
					return "error: " + err.Error()
				}
			}
			if len(due) > 0 {
				if err := op.FireTimers(context.Background(), due, &out); err != nil {
					return "error: " + err.Error()
				}
			}
			return render(&out)
		}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "new":
				cfg = Config{Domain: udf.EventTime, Now: func() int64 { return now }, LiveBytes: live}
				fn = sum{agg: true}
				for _, a := range d.CmdArgs {
					v := int64(0)
					if len(a.Vals) > 0 {
						v, _ = strconv.ParseInt(a.Vals[0], 10, 64)
					}
					switch a.Key {
					case "kind":
						cfg.Spec.Kind = Kind(a.Vals[0])
					case "size":
						cfg.Spec.Size = v
					case "slide":
						cfg.Spec.Slide = v
					case "gap":
						cfg.Spec.Gap = v
					case "lateness":
						cfg.AllowedLateness = v
					case "late":
						cfg.LateOutput = a.Vals[0]
					case "process":
						fn.agg = false
					case "processing":
						cfg.Domain = udf.ProcessingTime
					}
				}
				b = state.New(memkv.New())
				if err := open(); err != nil {
					return "error: " + err.Error()
				}
				now = 0
				return "ok"
			case "snapshot":
				var buf bytes.Buffer
				w := snapshot.NewWriter(&buf)
				if err := op.BeforeSnapshot(); err != nil {
					return "error: " + err.Error()
				}
				if err := b.WriteSnapshot(w, true); err != nil {
					return "error: " + err.Error()
				}
				if err := w.Close(); err != nil {
					return "error: " + err.Error()
				}
				saved = buf.Bytes()
				return "ok"
			case "restore":
				return restore(&b, saved, open, func() (*Operator, *timer.Queue) { return op, q })
			case "batch":
				var in, out record.Batch
				for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
					kts, v, _ := strings.Cut(line, " ")
					k, ts, _ := strings.Cut(kts, "@")
					n := record.NoTimestamp
					if ts != "-" {
						n, _ = strconv.ParseInt(ts, 10, 64)
					}
					in.AppendKeyed([]byte(k), []byte(v), n, keygroup.Of([]byte(k), 128))
				}
				if err := op.Process(context.Background(), &in, &out); err != nil {
					return "error: " + err.Error()
				}
				return render(&out)
			case "watermark":
				ts, _ := strconv.ParseInt(d.CmdArgs[0].Key, 10, 64)
				op.SetWatermark(ts)
				return fire(udf.EventTime, ts)
			case "processing-time":
				now, _ = strconv.ParseInt(d.CmdArgs[0].Key, 10, 64)
				return fire(udf.ProcessingTime, now)
			}
			t.Fatalf("unknown command %s", d.Cmd)
			return ""
		})
	})
}

// restore replaces *b with a backend holding the snapshot saved, opens a
// new operator on it and sets its timers again, as a task does.
func restore(b **state.Backend, saved []byte, open func() error, cur func() (*Operator, *timer.Queue)) string {
	*b = state.New(memkv.New())
	rng := keygroup.Range{Start: 0, End: 128}
	if _, err := (*b).Restore(bytes.NewReader(saved), int64(len(saved)), rng); err != nil {
		return "error: " + err.Error()
	}
	if err := open(); err != nil {
		return "error: " + err.Error()
	}
	op, q := cur()
	err := (*b).ScanRange(rng, func(kg uint16, ns string, key, rest, _ []byte) error {
		switch ns {
		case timer.Namespace("w"):
			return q.Restored(kg, key, rest)
		case "w":
			return op.RestoredWindow(kg, key, rest)
		}
		return nil
	})
	if err != nil {
		return "error: " + err.Error()
	}
	return "ok"
}

// TestLoadElemsReadsBothLayouts checks that a window's records written one
// entry each, as before chunks, and in chunks load together in order.
func TestLoadElemsReadsBothLayouts(t *testing.T) {
	b := state.New(memkv.New())
	m, _ := b.Map("w")
	e, _ := b.Map("w#elems")
	tm, _ := b.Map(timer.Namespace("w"))
	op, err := New(Config{Spec: Spec{Kind: Tumbling, Size: 10}}, nil, m, e, timer.New(tm))
	if err != nil {
		t.Fatal(err)
	}
	w, key := W{0, 10}, []byte("k")
	old := binary.BigEndian.AppendUint64(bytes.Clone(op.mapKey(w)), 0)
	if err := e.Put(1, key, old, appendElem(nil, Elem{Value: []byte("a"), Timestamp: 1})); err != nil {
		t.Fatal(err)
	}
	if _, err := op.putElems(1, key, w, 1, []Elem{{Value: []byte("b"), Timestamp: 2}, {Value: []byte(""), Timestamp: 3}}); err != nil {
		t.Fatal(err)
	}
	got, err := op.loadElems(1, key, w)
	if err != nil {
		t.Fatal(err)
	}
	want := []Elem{{Value: []byte("a"), Timestamp: 1}, {Value: []byte("b"), Timestamp: 2}, {Value: []byte{}, Timestamp: 3}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("loaded %v, want %v", got, want)
	}
}
