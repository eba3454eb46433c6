package generator

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/connectortest"
	"github.com/floe-stream/floe/host/connector/ratelimit"
	"github.com/floe-stream/floe/host/record"
)

// TestSequenceUnionIsExactlyZeroToCount checks, for many counts and
// parallelisms, that the subtasks together emit each of 0..count-1 once and
// that each subtask emits its residue class in increasing order.
func TestSequenceUnionIsExactlyZeroToCount(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, count := range []int64{1, 2, 7, 100, 1001} {
		for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 13, 16, 64, int(count) + 3} {
			seen := make([]int, count)
			for i := range n {
				values := drain(t, Config{Count: count}, connector.SplitInfo{Subtask: i, Parallelism: n}, 1+r.IntN(50))
				checkResidues(t, values, i, n, seen)
			}
			for v, times := range seen {
				if times != 1 {
					t.Fatalf("count %d, parallelism %d: %d emitted %d times", count, n, v, times)
				}
			}
		}
	}
}

// checkResidues checks that values are the increasing numbers congruent to
// i modulo n, starting at i, and counts each in seen.
func checkResidues(t *testing.T, values []string, i, n int, seen []int) {
	t.Helper()
	for k, s := range values {
		v, err := strconv.Atoi(s)
		if err != nil || v != i+k*n || v >= len(seen) {
			t.Fatalf("subtask %d of %d: record %d is %q, want %d below %d", i, n, k, s, i+k*n, len(seen))
		}
		seen[v]++
	}
}

func TestRandomValuesHaveTheirKeysAndSize(t *testing.T) {
	tests := []struct {
		name      string
		cfg       Config
		wantLen   int
		wantWidth int
	}{
		{"padded", Config{Kind: KindRandom, Count: 3000, Keys: 50, Size: 40}, 40, 6},
		{"size below prefix", Config{Kind: KindRandom, Count: 3000, Keys: 50, Size: 3}, 11, 6},
		{"wide keys", Config{Kind: KindRandom, Count: 3000, Keys: 10_000_000, Size: 20}, 20, 7},
	}
	for _, tt := range tests {
		keys := make(map[uint64]bool)
		total := 0
		for i := range 3 {
			for _, v := range drain(t, tt.cfg, connector.SplitInfo{Subtask: i, Parallelism: 3}, 100) {
				keys[parseRandom(t, v, tt.wantWidth, tt.wantLen, uint64(tt.cfg.Keys))] = true
				total++
			}
		}
		if total != int(tt.cfg.Count) {
			t.Errorf("%s: %d records, want %d", tt.name, total, tt.cfg.Count)
		}
		if want := min(tt.cfg.Keys, 50); len(keys) < want*9/10 {
			t.Errorf("%s: only %d distinct keys of %d drawn", tt.name, len(keys), tt.cfg.Keys)
		}
	}
}

// parseRandom checks that v is "key-" + width digits + "," + padding, wantLen
// bytes in all, with a key below keys, and returns the key.
func parseRandom(t *testing.T, v string, width, wantLen int, keys uint64) uint64 {
	t.Helper()
	digits, rest, ok := strings.Cut(strings.TrimPrefix(v, "key-"), ",")
	key, err := strconv.ParseUint(digits, 10, 64)
	if !ok || err != nil || len(digits) != width || key >= keys || len(v) != wantLen || strings.Trim(rest, "abcdefghijklmnopqrstuvwxyz") != "" {
		t.Fatalf("value %q: want key-<%d digits below %d>,<letters>, %d bytes", v, width, keys, wantLen)
	}
	return key
}

func TestRandomStreamsAreDeterministicPerSubtask(t *testing.T) {
	cfg := Config{Kind: KindRandom, Count: 200, Keys: 1000, Seed: 7}
	split := func(i int) connector.SplitInfo { return connector.SplitInfo{Subtask: i, Parallelism: 2} }
	tests := []struct {
		name string
		a, b []string
		same bool
	}{
		{"same subtask twice", drain(t, cfg, split(0), 10), drain(t, cfg, split(0), 33), true},
		{"two subtasks", drain(t, cfg, split(0), 10), drain(t, cfg, split(1), 10), false},
		{"two seeds", drain(t, cfg, split(0), 10), drain(t, Config{Kind: KindRandom, Count: 200, Keys: 1000, Seed: 8}, split(0), 10), false},
	}
	for _, tt := range tests {
		if slices.Equal(tt.a, tt.b) != tt.same {
			t.Errorf("%s: streams equal = %v, want %v", tt.name, !tt.same, tt.same)
		}
	}
}

// TestSeekResumesWithoutLossOrDuplication reads part of each subtask's
// stream, restores its Position into a fresh source and reads the rest.
func TestSeekResumesWithoutLossOrDuplication(t *testing.T) {
	ctx := context.Background()
	for _, cfg := range []Config{{Count: 103}, {Kind: KindRandom, Count: 103, Keys: 10, Size: 16}} {
		for _, calls := range []int{0, 1, 4, 100} {
			for i := range 3 {
				split := connector.SplitInfo{Subtask: i, Parallelism: 3}
				want := drain(t, cfg, split, 7)
				first := open(t, cfg, split)
				got, err := connectortest.Take(ctx, first, 7, calls)
				if err != nil {
					t.Fatal(err)
				}
				second := open(t, cfg, split)
				if err := second.Seek(position(t, first)); err != nil {
					t.Fatal(err)
				}
				rest, err := connectortest.Drain(ctx, second, 5)
				if err != nil {
					t.Fatal(err)
				}
				if got = append(got, rest...); !slices.Equal(got, want) {
					t.Fatalf("kind %q, subtask %d, %d calls before Seek: got %q, want %q", cfg.Kind, i, calls, got, want)
				}
			}
		}
	}
}

// TestRateLimitOnFakeClock runs unbounded generators for simulated seconds
// and checks, after every call, that the records emitted trail the subtask's
// share of the rate times the elapsed time by at most one.
func TestRateLimitOnFakeClock(t *testing.T) {
	tests := []struct {
		rate        float64
		parallelism int
		max         int
	}{
		{1000, 1, 100}, {1000, 4, 100}, {10, 3, 1024}, {50_000, 2, 512},
	}
	for _, tt := range tests {
		start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
		clock := connectortest.NewFakeClock(start)
		src := open(t, Config{Rate: tt.rate, Clock: clock}, connector.SplitInfo{Subtask: 0, Parallelism: tt.parallelism})
		emitted := 0
		var b record.Batch
		for clock.Now().Sub(start) < 10*time.Second {
			b.Reset()
			if err := src.Next(context.Background(), &b, tt.max); err != nil {
				t.Fatal(err)
			}
			emitted += b.Len()
			ideal := clock.Now().Sub(start).Seconds() * tt.rate / float64(tt.parallelism)
			if math.Abs(float64(emitted)-ideal) > 1+1e-6 {
				t.Fatalf("rate %v over %d: %d records after %v, want %.2f", tt.rate, tt.parallelism, emitted, clock.Now().Sub(start), ideal)
			}
		}
	}
}

func TestNewSourceRejectsBadConfigs(t *testing.T) {
	one := connector.SplitInfo{Subtask: 0, Parallelism: 1}
	tests := []struct {
		name    string
		cfg     Config
		split   connector.SplitInfo
		mention string
	}{
		{"negative count", Config{Count: -1}, one, "count -1"},
		{"negative rate", Config{Rate: -2}, one, "rate -2"},
		{"NaN rate", Config{Rate: math.NaN()}, one, "rate NaN"},
		{"unknown kind", Config{Kind: "zipf"}, one, `"zipf"`},
		{"random without keys", Config{Kind: KindRandom}, one, "keys"},
		{"negative size", Config{Kind: KindRandom, Keys: 1, Size: -1}, one, "size -1"},
		{"bad split", Config{}, connector.SplitInfo{Subtask: 3, Parallelism: 3}, "subtask 3"},
		{"rate and schedule", Config{Rate: 5, Schedule: ratelimit.Schedule{{For: time.Second, Rate: 1}}}, one, "not both"},
		{"step without rate", Config{Schedule: ratelimit.Schedule{{For: time.Second}}}, one, "rate > 0"},
	}
	for _, tt := range tests {
		if _, err := NewSource(tt.cfg, tt.split); err == nil || !strings.Contains(err.Error(), tt.mention) {
			t.Errorf("%s: NewSource() error = %v, want one mentioning %q", tt.name, err, tt.mention)
		}
	}
}

func TestSeekRejectsMalformedSplitStates(t *testing.T) {
	cfg := Config{Count: 10}
	state := func(sub, par, emitted uint64) []byte {
		p := []byte{stateVersion}
		for _, v := range []uint64{sub, par, emitted} {
			p = binary.BigEndian.AppendUint64(p, v)
		}
		return p
	}
	tests := []struct {
		name   string
		states [][]byte
	}{
		{"nil state", [][]byte{nil}},
		{"short state", [][]byte{{1, 2, 3}}},
		{"version 0 position", [][]byte{{0, 0, 0, 0, 0, 0, 0, 3}}},
		{"unknown version", [][]byte{append([]byte{9}, state(0, 1, 0)[1:]...)}},
		{"zero parallelism", [][]byte{state(0, 0, 0)}},
		{"subtask out of range", [][]byte{state(2, 2, 0)}},
		{"huge parallelism", [][]byte{state(0, 1<<63, 0)}},
		{"beyond the quota", [][]byte{state(0, 2, 6)}},
		{"negative count", [][]byte{state(0, 2, 1<<63)}},
		{"good then bad", [][]byte{state(0, 2, 1), nil}},
	}
	for _, tt := range tests {
		src := open(t, cfg, connector.SplitInfo{Subtask: 0, Parallelism: 2})
		if err := src.Seek(tt.states); !errors.Is(err, connector.ErrBadPosition) {
			t.Errorf("%s: Seek(%x) = %v, want ErrBadPosition", tt.name, tt.states, err)
		}
		// A failed Seek leaves the source with its own split.
		got, err := connectortest.Drain(context.Background(), src, 3)
		if err != nil || !slices.Equal(got, []string{"0", "2", "4", "6", "8"}) {
			t.Errorf("%s: after the failed Seek got %q, %v", tt.name, got, err)
		}
	}
}

func TestUnboundedGeneratorNeverEnds(t *testing.T) {
	src := open(t, Config{}, connector.SplitInfo{Subtask: 1, Parallelism: 2})
	got, err := connectortest.Take(context.Background(), src, 1000, 50)
	if err != nil || len(got) != 50_000 || got[len(got)-1] != fmt.Sprint(2*49_999+1) {
		t.Errorf("50 calls of 1000 gave %d records ending %q, %v; want 50000 ending %d", len(got), got[len(got)-1:], err, 2*49_999+1)
	}
}

func TestQuota(t *testing.T) {
	tests := []struct {
		count   int64
		subtask int
		n       int
		want    int64
	}{
		{0, 0, 1, -1}, {10, 0, 3, 4}, {10, 1, 3, 3}, {10, 2, 3, 3}, {2, 5, 8, 0},
	}
	for _, tt := range tests {
		if got := quota(tt.count, connector.SplitInfo{Subtask: tt.subtask, Parallelism: tt.n}); got != tt.want {
			t.Errorf("quota(%d, %d of %d) = %d, want %d", tt.count, tt.subtask, tt.n, got, tt.want)
		}
	}
}

// open returns a new source of split of cfg, closed when the test ends.
func open(t *testing.T, cfg Config, split connector.SplitInfo) connector.Source {
	t.Helper()
	src, err := NewSource(cfg, split)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

// drain returns all values of split of cfg, read in batches of max.
func drain(t *testing.T, cfg Config, split connector.SplitInfo, max int) []string {
	t.Helper()
	values, err := connectortest.Drain(context.Background(), open(t, cfg, split), max)
	if err != nil {
		t.Fatal(err)
	}
	return values
}

// position returns src's Position.
func position(t *testing.T, src connector.Source) [][]byte {
	t.Helper()
	pos, err := src.Position()
	if err != nil {
		t.Fatal(err)
	}
	return pos
}

// TestSplitsFollowTheSplitsHeld: a fresh subtask holds one split of the
// stream, and after a rescale the splits Seek gave it; the stage never
// has more splits than its first parallelism, which the autoscaler uses as
// a bound.
func TestSplitsFollowTheSplitsHeld(t *testing.T) {
	cfg := Config{Count: 100, Kind: KindRandom, Keys: 4, Size: 8}
	var all [][]byte
	for i := range 3 {
		src, err := NewSource(cfg, connector.SplitInfo{Subtask: i, Parallelism: 3})
		if err != nil {
			t.Fatal(err)
		}
		if n, fixed := src.(connector.Splitted).Splits(); n != 1 || !fixed {
			t.Errorf("fresh subtask %d of 3: Splits() = %d, %t, want 1, true", i, n, fixed)
		}
		all = append(all, position(t, src)...)
	}
	for _, tc := range []struct {
		states [][]byte
		want   int
	}{{all, 3}, {all[1:], 2}, {nil, 0}} {
		src, err := NewSource(cfg, connector.SplitInfo{Subtask: 0, Parallelism: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := src.Seek(tc.states); err != nil {
			t.Fatal(err)
		}
		if n, fixed := src.(connector.Splitted).Splits(); n != tc.want || !fixed {
			t.Errorf("after Seek of %d splits: Splits() = %d, %t, want %d, true", len(tc.states), n, fixed, tc.want)
		}
	}
}
