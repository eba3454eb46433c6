package nexmark

import (
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/connectortest"
	"github.com/floe-stream/floe/host/record"
)

var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// TestSubtasksShareTheStream checks, for many counts and parallelisms, that
// each subtask emits the events congruent to it modulo the parallelism, in
// order, with their timestamps, so that together they emit events 0 to
// count-1 exactly once.
func TestSubtasksShareTheStream(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, cfg := range []Config{{Count: 1}, {Count: 7}, {Count: 1001}, {Count: 1001, EventsPerSecond: 7, Seed: 3}} {
		g := cfg.generator()
		for _, n := range []int{1, 2, 3, 5, 8, 64, int(cfg.Count) + 3} {
			for i := range n {
				src := open(t, cfg, connector.SplitInfo{Subtask: i, Parallelism: n})
				recs := drainRecords(t, src, 1+r.IntN(50))
				want := quota(cfg.Count, connector.SplitInfo{Subtask: i, Parallelism: n})
				if int64(len(recs)) != want {
					t.Fatalf("%+v, subtask %d of %d: %d events, want %d", cfg, i, n, len(recs), want)
				}
				for k, rec := range recs {
					line, ts := g.Append(nil, int64(i+k*n))
					if rec.value != string(line) || rec.ts != ts {
						t.Fatalf("%+v, subtask %d of %d: record %d is %q at %d, want event %d %q at %d", cfg, i, n, k, rec.value, rec.ts, i+k*n, line, ts)
					}
				}
			}
		}
	}
}

func TestUnboundedSourceKeepsGoing(t *testing.T) {
	src := open(t, Config{}, connector.SplitInfo{Subtask: 1, Parallelism: 2})
	got, err := connectortest.Take(context.Background(), src, 100, 30)
	if err != nil || len(got) != 3000 {
		t.Fatalf("Take = %d records, %v; want 3000, nil", len(got), err)
	}
	want, _ := NewGenerator(0, 0).Append(nil, 1+2*2999)
	if got[2999] != string(want) {
		t.Errorf("record 2999 = %q, want event 5999 %q", got[2999], want)
	}
}

func TestSeedsGiveDifferentContentsSameShape(t *testing.T) {
	a, b := NewGenerator(0, 0), NewGenerator(0, 1)
	same := 0
	for n := range int64(1000) {
		la, tsa := a.Append(nil, n)
		lb, tsb := b.Append(nil, n)
		if tsa != tsb || la[0] != lb[0] {
			t.Fatalf("event %d: %q at %d and %q at %d differ in kind or time", n, la, tsa, lb, tsb)
		}
		same += btoi(string(la) == string(lb))
	}
	if same > 100 {
		t.Errorf("%d of 1000 events the same under seeds 0 and 1", same)
	}
}

// TestSeekResumesWithoutLossOrDuplication reads part of each subtask's
// share, restores its Position into a fresh source of another SplitInfo and
// reads the rest.
func TestSeekResumesWithoutLossOrDuplication(t *testing.T) {
	ctx := context.Background()
	cfg := Config{Count: 203}
	for _, calls := range []int{0, 1, 4, 100} {
		for i := range 3 {
			info := connector.SplitInfo{Subtask: i, Parallelism: 3}
			want := drain(t, cfg, info, 1000)
			src := open(t, cfg, info)
			first, err := connectortest.Take(ctx, src, 7, calls)
			if err != nil {
				t.Fatal(err)
			}
			pos := position(t, src)
			again := open(t, cfg, connector.SplitInfo{Subtask: 0, Parallelism: 5})
			if err := again.Seek(pos); err != nil {
				t.Fatal(err)
			}
			rest, err := connectortest.Drain(ctx, again, 10)
			if err != nil {
				t.Fatal(err)
			}
			if got := append(first, rest...); !slices.Equal(got, want) {
				t.Errorf("subtask %d after %d calls: resumed stream differs (%d events, want %d)", i, calls, len(got), len(want))
			}
		}
	}
}

// TestSeveralSplitsMergeInEventOrder gives one instance the splits of three
// subtasks at different points and checks that it emits the rest of all
// three in increasing event number, hence in timestamp order.
func TestSeveralSplitsMergeInEventOrder(t *testing.T) {
	cfg := Config{Count: 300}
	var states [][]byte
	for i, k := range []int{40, 0, 7} {
		src := open(t, cfg, connector.SplitInfo{Subtask: i, Parallelism: 3})
		if _, err := connectortest.Take(context.Background(), src, 1, k); err != nil {
			t.Fatal(err)
		}
		states = append(states, position(t, src)...)
	}
	src := open(t, cfg, connector.SplitInfo{Subtask: 0, Parallelism: 1})
	if err := src.Seek(states); err != nil {
		t.Fatal(err)
	}
	recs := drainRecords(t, src, 16)
	var want []int64
	for n := range int64(300) {
		if k := []int64{40, 0, 7}[n%3]; n/3 >= k {
			want = append(want, n)
		}
	}
	g := cfg.generator()
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d", len(recs), len(want))
	}
	for k, n := range want {
		line, _ := g.Append(nil, n)
		if recs[k].value != string(line) {
			t.Fatalf("record %d = %q, want event %d %q", k, recs[k].value, n, line)
		}
	}
}

// TestRateCapsEventsPerSimulatedSecond runs a rate-limited unbounded
// source on a fake clock and checks that it emits no more than its share of
// the rate over the simulated time, and not much less.
func TestRateCapsEventsPerSimulatedSecond(t *testing.T) {
	clock := connectortest.NewFakeClock(epoch)
	src := open(t, Config{Rate: 2000, Clock: clock}, connector.SplitInfo{Subtask: 0, Parallelism: 4})
	emitted := 0
	var b record.Batch
	for clock.Now().Sub(epoch) < 10*time.Second {
		b.Reset()
		if err := src.Next(context.Background(), &b, 64); err != nil {
			t.Fatal(err)
		}
		emitted += b.Len()
	}
	elapsed := clock.Now().Sub(epoch).Seconds()
	if ideal := elapsed * 500; math.Abs(float64(emitted)-ideal) > 64 {
		t.Errorf("emitted %d events in %.3f simulated seconds, want about %.0f (500/s)", emitted, elapsed, ideal)
	}
	// The rate limit is the only sleeper: all the time that passed was
	// spent waiting on it, which the task counts as idle.
	if waited := src.(connector.Throttled).Throttled(); waited != clock.Now().Sub(epoch) {
		t.Errorf("Throttled() = %v after %v on the clock", waited, clock.Now().Sub(epoch))
	}
}

func TestSeekToNoSplit(t *testing.T) {
	for _, count := range []int64{0, 10} {
		clock := connectortest.NewFakeClock(epoch)
		src := open(t, Config{Count: count, Clock: clock}, connector.SplitInfo{Subtask: 0, Parallelism: 1})
		if err := src.Seek([][]byte{}); err != nil {
			t.Fatal(err)
		}
		var b record.Batch
		err := src.Next(context.Background(), &b, 10)
		waited := clock.Now().Sub(epoch)
		switch {
		case b.Len() != 0:
			t.Errorf("count %d: emitted %d records without a split", count, b.Len())
		case count == 0 && (err != nil || waited <= 0 || waited > 100*time.Millisecond):
			t.Errorf("count %d: Next = %v after %v, want nil after a short wait", count, err, waited)
		case count > 0 && !errors.Is(err, io.EOF):
			t.Errorf("count %d: Next = %v, want io.EOF", count, err)
		}
		if pos := position(t, src); pos == nil || len(pos) != 0 {
			t.Errorf("count %d: Position = %#v, want an empty, non-nil list", count, pos)
		}
	}
}

func TestBadConfig(t *testing.T) {
	ok := connector.SplitInfo{Subtask: 0, Parallelism: 1}
	tests := []struct {
		cfg  Config
		info connector.SplitInfo
		want string
	}{
		{Config{Count: -1}, ok, "count -1 is negative"},
		{Config{Rate: -1}, ok, "rate -1 is not a non-negative number"},
		{Config{Rate: math.NaN()}, ok, "rate NaN"},
		{Config{Rate: math.Inf(1)}, ok, "rate +Inf"},
		{Config{EventsPerSecond: -5}, ok, "eventsPerSecond -5 is not from 1 to 1000000000"},
		{Config{EventsPerSecond: MaxEventsPerSecond + 1}, ok, "eventsPerSecond 1000000001"},
		{Config{}, connector.SplitInfo{Subtask: 2, Parallelism: 2}, "subtask 2 of parallelism 2"},
	}
	for _, tt := range tests {
		_, err := NewSource(tt.cfg, tt.info)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "nexmark: ") {
			t.Errorf("NewSource(%+v, %+v) = %v, want an error with %q", tt.cfg, tt.info, err, tt.want)
		}
	}
}

func TestSeekRejectsMalformedStates(t *testing.T) {
	good := (&split{info: connector.SplitInfo{Subtask: 1, Parallelism: 3}, emitted: 5}).encode()
	with := func(i int, v byte) []byte { p := slices.Clone(good); p[i] = v; return p }
	tests := map[string][]byte{
		"empty":                 {},
		"short":                 good[:25],
		"long":                  append(slices.Clone(good), 0),
		"generator state":       append([]byte{1}, good[2:]...),
		"version 2":             with(1, 2),
		"subtask >= parallel":   with(9, 3),
		"negative parallelism":  with(10, 0x80),
		"past a bounded quota":  with(25, 200),
		"negative events count": with(18, 0x80),
	}
	for name, st := range tests {
		src := open(t, Config{Count: 30}, connector.SplitInfo{Subtask: 0, Parallelism: 1})
		err := src.Seek([][]byte{good, st})
		if !errors.Is(err, connector.ErrBadPosition) {
			t.Errorf("%s: Seek = %v, want ErrBadPosition", name, err)
		}
		if pos := position(t, src); len(pos) != 1 || pos[0][9] != 0 {
			t.Errorf("%s: the instance lost its own split after a failed Seek", name)
		}
	}
}

func TestClosedSourceFails(t *testing.T) {
	src := open(t, Config{Count: 10}, connector.SplitInfo{Subtask: 0, Parallelism: 1})
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	var b record.Batch
	for name, err := range map[string]error{
		"Next": src.Next(context.Background(), &b, 1), "Seek": src.Seek(nil), "Close": src.Close(),
	} {
		if !errors.Is(err, connector.ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", name, err)
		}
	}
	if _, err := src.Position(); !errors.Is(err, connector.ErrClosed) {
		t.Errorf("Position after Close = %v, want ErrClosed", err)
	}
}

func TestNextHonoursMaxAndContext(t *testing.T) {
	src := open(t, Config{}, connector.SplitInfo{Subtask: 0, Parallelism: 1})
	var b record.Batch
	if err := src.Next(context.Background(), &b, 0); err == nil {
		t.Error("Next with max 0 succeeded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := src.Next(ctx, &b, 10); !errors.Is(err, context.Canceled) || b.Len() != 0 {
		t.Errorf("Next with a cancelled context = %v with %d records, want context.Canceled and none", err, b.Len())
	}
}

// rec is a record as a test compares it.
type rec struct {
	value string
	ts    int64
}

// drainRecords reads src to io.EOF in batches of at most max and returns
// its records.
func drainRecords(t *testing.T, src connector.Source, max int) []rec {
	t.Helper()
	var out []rec
	var b record.Batch
	for {
		b.Reset()
		err := src.Next(context.Background(), &b, max)
		if b.Len() > max || (err != nil && b.Len() > 0) {
			t.Fatalf("Next returned %d records (max %d) with %v", b.Len(), max, err)
		}
		for _, r := range b.Records {
			out = append(out, rec{string(r.Value), r.Timestamp})
		}
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func open(t *testing.T, cfg Config, info connector.SplitInfo) connector.Source {
	t.Helper()
	src, err := NewSource(cfg, info)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func drain(t *testing.T, cfg Config, info connector.SplitInfo, max int) []string {
	t.Helper()
	got, err := connectortest.Drain(context.Background(), open(t, cfg, info), max)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func position(t *testing.T, src connector.Source) [][]byte {
	t.Helper()
	pos, err := src.Position()
	if err != nil {
		t.Fatal(err)
	}
	return pos
}
