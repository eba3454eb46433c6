package timer

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
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

// TestScripts runs the scripts in testdata/ against a queue kept in
// in-memory keyed state. Commands:
//
//	new                    an empty queue and state
//	register               one timer a line: "event|processing KG/KEY@TS"
//	register-in-memory     the same, registered in memory only
//	delete                 the same, for timers to delete
//	watermark to=T         pop the event-time timers due at watermark T
//	time to=T              pop the processing-time timers due at time T
//	next                   the earliest timer of each domain
//	restore groups=A-B     a new queue from the state of key groups [A,B)
//
// The popping commands print the timers in the order they fire.
func TestScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var b *state.Backend
		var q *Queue
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "new":
				b = state.New(memkv.New())
				q = newQueue(t, b)
				return "ok\n"
			case "register", "register-in-memory", "delete":
				for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
					tm := parseTimer(t, line)
					var err error
					switch d.Cmd {
					case "register":
						err = q.Register(tm.KeyGroup, tm.Key, tm.Domain, tm.Timestamp)
					case "register-in-memory":
						q.RegisterInMemory(tm.KeyGroup, tm.Key, tm.Domain, tm.Timestamp)
					default:
						err = q.Delete(tm.KeyGroup, tm.Key, tm.Domain, tm.Timestamp)
					}
					if err != nil {
						return "error: " + err.Error() + "\n"
					}
				}
				return fmt.Sprintf("%d timers\n", q.Len())
			case "watermark", "time":
				var upTo int64
				d.ScanArgs(t, "to", &upTo)
				dom := udf.EventTime
				if d.Cmd == "time" {
					dom = udf.ProcessingTime
				}
				return fire(t, q, dom, upTo)
			case "next":
				var sb strings.Builder
				for _, dom := range []udf.TimeDomain{udf.EventTime, udf.ProcessingTime} {
					if ts, ok := q.Next(dom); ok {
						fmt.Fprintf(&sb, "%s %d\n", domainName(dom), ts)
					} else {
						fmt.Fprintf(&sb, "%s none\n", domainName(dom))
					}
				}
				return sb.String()
			case "restore":
				var groups string
				d.ScanArgs(t, "groups", &groups)
				q = restore(t, b, groups)
				return fmt.Sprintf("%d timers\n", q.Len())
			}
			t.Fatalf("unknown command %q", d.Cmd)
			return ""
		})
	})
}

func domainName(d udf.TimeDomain) string {
	if d == udf.ProcessingTime {
		return "processing"
	}
	return "event"
}

// parseTimer reads "event|processing KG/KEY@TS".
func parseTimer(t *testing.T, line string) Timer {
	dom, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
	kg, rest, ok1 := strings.Cut(rest, "/")
	key, ts, ok2 := strings.Cut(rest, "@")
	g, err1 := strconv.ParseUint(kg, 10, 16)
	n, err2 := strconv.ParseInt(ts, 10, 64)
	if !ok1 || !ok2 || err1 != nil || err2 != nil || (dom != "event" && dom != "processing") {
		t.Fatalf("bad timer %q: want \"event|processing KG/KEY@TS\"", line)
	}
	tm := Timer{Domain: udf.EventTime, Timestamp: n, KeyGroup: uint16(g), Key: []byte(key)}
	if dom == "processing" {
		tm.Domain = udf.ProcessingTime
	}
	return tm
}

// fire pops the timers of d due at upTo, one a line.
func fire(t *testing.T, q *Queue, d udf.TimeDomain, upTo int64) string {
	var sb strings.Builder
	for {
		tm, ok, err := q.Pop(d, upTo)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		fmt.Fprintf(&sb, "fire %s %d/%s@%d\n", domainName(d), tm.KeyGroup, tm.Key, tm.Timestamp)
	}
	if sb.Len() == 0 {
		return "(nothing)\n"
	}
	return sb.String()
}

// restore builds a queue from the timers in b's key groups "A-B", as a
// task does when it restores a checkpoint.
func restore(t *testing.T, b *state.Backend, groups string) *Queue {
	lo, hi, ok := strings.Cut(groups, "-")
	a, err1 := strconv.ParseUint(lo, 10, 16)
	z, err2 := strconv.ParseUint(hi, 10, 16)
	if !ok || err1 != nil || err2 != nil {
		t.Fatalf("bad key groups %q: want A-B", groups)
	}
	q := newQueue(t, b)
	ns := Namespace("op")
	err := b.ScanRange(keygroup.Range{Start: int(a), End: int(z)}, func(kg uint16, n string, key, rest, _ []byte) error {
		if n != ns {
			return nil
		}
		return q.Restored(kg, key, rest)
	})
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestRestoredOverInMemoryDeletesFromTheStore checks that a timer
// registered in memory and then found in restored state (a checkpoint
// from before its owner kept it in memory) is deleted from the state when
// it fires, so that it does not linger there.
func TestRestoredOverInMemoryDeletesFromTheStore(t *testing.T) {
	b := state.New(memkv.New())
	q := newQueue(t, b)
	key := []byte("a")
	if err := q.Register(3, key, udf.EventTime, 10); err != nil {
		t.Fatal(err)
	}
	m, _ := b.Map(Namespace("op"))
	r := New(m)
	r.RegisterInMemory(3, key, udf.EventTime, 10)
	if err := r.Restored(3, key, q.mapKey(udf.EventTime, 10)); err != nil {
		t.Fatal(err)
	}
	if tm, ok, err := r.Pop(udf.EventTime, 10); err != nil || !ok || string(tm.Key) != "a" {
		t.Fatalf("pop: %v %v %v", tm, ok, err)
	}
	if _, ok, err := m.Get(3, key, q.mapKey(udf.EventTime, 10)); err != nil || ok {
		t.Fatalf("the fired timer is still in the state (%v, %v)", ok, err)
	}
}

// TestPopsInOrderOfTimestampThenKey registers and deletes random timers,
// in memory and in the store, some more than once, and checks that they
// pop as the sorted set of those left: by timestamp, then key bytes.
func TestPopsInOrderOfTimestampThenKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for run := range 50 {
		q := newQueue(t, state.New(memkv.New()))
		want := map[string]Timer{}
		for range rng.IntN(300) {
			key := []byte(strconv.Itoa(rng.IntN(40)))
			ts := int64(rng.IntN(20))
			id := fmt.Sprintf("%020d/%s", ts, key)
			switch rng.IntN(4) {
			case 0:
				if err := q.Delete(keygroup.Of(key, 8), key, udf.EventTime, ts); err != nil {
					t.Fatal(err)
				}
				delete(want, id)
			case 1:
				q.RegisterInMemory(keygroup.Of(key, 8), key, udf.EventTime, ts)
				want[id] = Timer{Domain: udf.EventTime, Timestamp: ts, KeyGroup: keygroup.Of(key, 8), Key: key}
			default:
				if err := q.Register(keygroup.Of(key, 8), key, udf.EventTime, ts); err != nil {
					t.Fatal(err)
				}
				want[id] = Timer{Domain: udf.EventTime, Timestamp: ts, KeyGroup: keygroup.Of(key, 8), Key: key}
			}
		}
		ids := slices.Sorted(maps.Keys(want))
		for i, id := range ids {
			got, ok, err := q.Pop(udf.EventTime, 100)
			if err != nil || !ok {
				t.Fatalf("run %d: pop %d of %d: %v, %v", run, i, len(ids), ok, err)
			}
			if w := want[id]; got.Timestamp != w.Timestamp || string(got.Key) != string(w.Key) || got.KeyGroup != w.KeyGroup {
				t.Fatalf("run %d: pop %d is %d/%s, want %d/%s", run, i, got.Timestamp, got.Key, w.Timestamp, w.Key)
			}
		}
		if _, ok, _ := q.Pop(udf.EventTime, 100); ok || q.Len() != 0 {
			t.Fatalf("run %d: timers left after %d pops (%d registered)", run, len(ids), q.Len())
		}
	}
}

// BenchmarkInMemoryTimers registers 10,000 in-memory timers of distinct
// keys over five timestamps, as a window operator does for q5's
// auctions, and pops them all.
func BenchmarkInMemoryTimers(b *testing.B) {
	q := New(nil)
	keys := make([][]byte, 10_000)
	for i := range keys {
		keys[i] = []byte(strconv.Itoa(1000 + i*7919%10_000))
	}
	b.ReportAllocs()
	for range b.N {
		for i, k := range keys {
			q.RegisterInMemory(0, k, udf.EventTime, int64(i%5))
		}
		for {
			if _, ok, err := q.Pop(udf.EventTime, 5); err != nil || !ok {
				break
			}
		}
	}
}
