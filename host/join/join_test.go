package join

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/timer"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/host/window"
	"github.com/floe-stream/floe/storage/keygroup"
	"github.com/floe-stream/floe/storage/kv/memkv"
	"github.com/floe-stream/floe/storage/state"
)

// joiner is what the task sees of both operators.
type joiner interface {
	ProcessInput(ctx context.Context, input int, in, out *record.Batch) error
	FireTimer(ctx context.Context, d udf.TimeDomain, ts int64, kg uint16, key []byte, out *record.Batch) error
	SetWatermark(ts int64)
	SideOutput(int) *record.Batch
	Late() int64
}

// harness drives one operator over in-memory keyed state.
type harness struct {
	op   joiner
	rows udf.MapState
	q    *timer.Queue
	keys map[string]bool
}

func newHarness(t testing.TB, mk func(rows udf.MapState, q *timer.Queue) (joiner, error)) (*harness, error) {
	b := state.New(memkv.New())
	rows, err := b.Map("j#rows")
	if err != nil {
		t.Fatal(err)
	}
	tm, err := b.Map(timer.Namespace("j"))
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{rows: rows, q: timer.New(tm), keys: map[string]bool{}}
	h.op, err = mk(rows, h.q)
	return h, err
}

// feed processes lines "key@ts value" as a batch of input side.
func (h *harness) feed(side Side, lines []string) (*record.Batch, error) {
	var in, out record.Batch
	for _, line := range lines {
		kts, v, _ := strings.Cut(line, " ")
		k, ts, _ := strings.Cut(kts, "@")
		n := record.NoTimestamp
		if ts != "-" {
			n, _ = strconv.ParseInt(ts, 10, 64)
		}
		h.keys[k] = true
		in.AppendKeyed([]byte(k), []byte(v), n, keygroup.Of([]byte(k), 128))
	}
	return &out, h.op.ProcessInput(context.Background(), int(side), &in, &out)
}

// watermark advances event time to wm and fires the due timers.
func (h *harness) watermark(wm int64) (*record.Batch, error) {
	var out record.Batch
	h.op.SetWatermark(wm)
	for {
		tm, ok, err := h.q.Pop(udf.EventTime, wm)
		if err != nil || !ok {
			return &out, err
		}
		if err := h.op.FireTimer(context.Background(), udf.EventTime, tm.Timestamp, tm.KeyGroup, tm.Key, &out); err != nil {
			return &out, err
		}
	}
}

func (h *harness) render(out *record.Batch) string {
	var lines []string
	for _, r := range out.Records {
		lines = append(lines, fmt.Sprintf("%s@%d %s", r.Key, r.Timestamp, r.Value))
	}
	late := h.op.SideOutput(1)
	for _, r := range late.Records {
		lines = append(lines, fmt.Sprintf("late %s@%d %s", r.Key, r.Timestamp, r.Value))
	}
	late.Reset()
	if len(lines) == 0 {
		return "(nothing)"
	}
	return strings.Join(lines, "\n")
}

// state lists the buffered rows of every key seen, and the timers.
func (h *harness) state(t *testing.T) string {
	var lines []string
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range h.keys {
			if !yield(k) {
				return
			}
		}
	}) {
		err := h.rows.Iter(keygroup.Of([]byte(k), 128), []byte(k), func(mk, v []byte) error {
			if len(mk) == 17 && mk[0] <= 1 && h.interval() {
				if h.op.(*Interval).cfg.Outer.has(Side(mk[0])) {
					v = append([]byte(fmt.Sprintf("[matched=%d] ", v[0])), v[1:]...)
				}
				s, ts, seq, err := decodeIntervalKey(mk)
				if err != nil {
					return err
				}
				lines = append(lines, fmt.Sprintf("%s %s@%d #%d %s", k, s, ts, seq, v))
				return nil
			}
			if len(mk) < 17 || mk[16] == counterMark {
				return nil // the session index, or a counter
			}
			lines = append(lines, fmt.Sprintf("%s %s %s %s", k, decodeWindowKey(mk), Side(mk[16]), v))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	lines = append(lines, fmt.Sprintf("timers: %d, late: %d", h.q.Len(), h.op.Late()))
	return strings.Join(lines, "\n")
}

func (h *harness) interval() bool { _, ok := h.op.(*Interval); return ok }

// TestScripts runs the scripts in testdata:
//
//	interval lower=N upper=N [late=NAME outer=left|right|full retract]
//	window kind=K [size=N slide=N gap=N join=inner|leftOuter lateness=N late=NAME]
//	left, right      lines "key@ts value", a batch of that input
//	watermark T      advance event time to T, firing due timers
//	state            the buffered rows, the pending timers and the late count
func TestScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var h *harness
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			var out *record.Batch
			var err error
			switch d.Cmd {
			case "interval":
				var cfg IntervalConfig
				for _, a := range d.CmdArgs {
					switch a.Key {
					case "lower":
						cfg.Lower, _ = strconv.ParseInt(a.Vals[0], 10, 64)
					case "upper":
						cfg.Upper, _ = strconv.ParseInt(a.Vals[0], 10, 64)
					case "late":
						cfg.LateOutput = a.Vals[0]
					case "outer":
						if cfg.Outer, err = ParseOuter(a.Vals[0]); err != nil {
							return okOr(err)
						}
					case "retract":
						cfg.Retract = true
					}
				}
				h, err = newHarness(t, func(rows udf.MapState, q *timer.Queue) (joiner, error) {
					return NewInterval(cfg, signed{}, rows, q)
				})
				return okOr(err)
			case "window":
				cfg := WindowConfig{Kind: Inner}
				for _, a := range d.CmdArgs {
					n, _ := strconv.ParseInt(a.Vals[0], 10, 64)
					switch a.Key {
					case "kind":
						cfg.Spec.Kind = window.Kind(a.Vals[0])
					case "size":
						cfg.Spec.Size = n
					case "slide":
						cfg.Spec.Slide = n
					case "gap":
						cfg.Spec.Gap = n
					case "join":
						cfg.Kind = Kind(a.Vals[0])
					case "lateness":
						cfg.AllowedLateness = n
					case "late":
						cfg.LateOutput = a.Vals[0]
					}
				}
				h, err = newHarness(t, func(rows udf.MapState, q *timer.Queue) (joiner, error) {
					return NewWindow(cfg, Concat{Sep: []byte("|")}, rows, q)
				})
				return okOr(err)
			case "left", "right":
				side := Left
				if d.Cmd == "right" {
					side = Right
				}
				out, err = h.feed(side, strings.Split(strings.TrimSpace(d.Input), "\n"))
			case "watermark":
				ts, _ := strconv.ParseInt(d.CmdArgs[0].Key, 10, 64)
				out, err = h.watermark(ts)
			case "state":
				return h.state(t)
			default:
				t.Fatalf("unknown command %s", d.Cmd)
			}
			if err != nil {
				return "error: " + err.Error()
			}
			return h.render(out)
		})
	})
}

func okOr(err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return "ok"
}

// signed is Concat with "|" that writes a retraction with a leading "-",
// so that scripts and brute-force tests see a retracting join's changelog.
type signed struct{}

func (signed) Combine(ctx context.Context, pairs []Pair, out *record.Batch) error {
	for _, p := range pairs {
		v := string(p.Left) + "|" + string(p.Right)
		if p.Retract {
			v = "-" + v
		}
		out.AppendKeyed(p.Key, []byte(v), p.Timestamp, p.KeyGroup)
	}
	return nil
}
