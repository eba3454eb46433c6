package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"math/big"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/floe-stream/floe/host/record"
)

// envs are the envs of the package's tests and benchmarks, by
// Config.Uninterruptible; modules are built once per env.
var envs = map[bool]*env{}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, e := range envs {
		if err := e.close(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// envFor returns the shared env of the given interruptibility.
func envFor(tb testing.TB, uninterruptible bool) *env {
	if e, ok := envs[uninterruptible]; ok {
		return e
	}
	e, err := newEnv(context.Background(), Config{Runs: 1, Uninterruptible: uninterruptible, Log: io.Discard})
	if err != nil {
		tb.Fatal(err)
	}
	envs[uninterruptible] = e
	return e
}

func TestQ1WasmMatchesNative(t *testing.T) {
	w := &workload{pool: bids(500, 7), batches: 1}
	if err := compare(context.Background(), w, 1, openWasm(envFor(t, false), "q1", q1Config(), false), openQ1Native); err != nil {
		t.Fatal(err)
	}
	// One bid worked by hand: $587.31 is €533.27 (rounded toward zero).
	var in, out record.Batch
	in.Append(nil, []byte("1007,2001,58731,channel-3,https://www.nexmark.com/item.htm?query=1&channel_id=3,2026-11-29 10:15:42.123"), 1)
	op := &q1Native{}
	if err := op.Process(context.Background(), &in, &out); err != nil {
		t.Fatal(err)
	}
	want := "1007,2001,53327,channel-3,https://www.nexmark.com/item.htm?query=1&channel_id=3,2026-11-29 10:15:42.123"
	if got := string(out.Records[0].Value); got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestQ1RejectsMalformedBids(t *testing.T) {
	for _, bid := range []string{"1,2,3,4,5", "1,2,3,4,5,6,7", "1,2,,4,5,6", "1,2,-3,4,5,6", "1,2,1234567890123456789,4,5,6"} {
		var in, out record.Batch
		in.Append(nil, []byte(bid), 1)
		op := &q1Native{}
		if err := op.Process(context.Background(), &in, &out); err == nil {
			t.Errorf("native q1 accepted %q", bid)
		}
		wasm, err := openWasm(envFor(t, false), "q1", q1Config(), false)(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if err := wasm.Process(context.Background(), &in, &out); err == nil {
			t.Errorf("wasm q1 accepted %q", bid)
		}
		wasm.Close()
	}
}

func TestToEurosIsExact(t *testing.T) {
	for _, p := range []int64{0, 1, 999, 1000, 1001, 58731, 100_000_000, 999_999_999_999_999_999} {
		want := new(big.Int).Div(new(big.Int).Mul(big.NewInt(p), big.NewInt(908)), big.NewInt(1000))
		if got := toEuros(p); got != want.Int64() {
			t.Errorf("toEuros(%d) = %d, want %s", p, got, want)
		}
	}
}

func TestKeyedCountMatchesGoMap(t *testing.T) {
	w := countWorkload(20_000, 2_000, 3)
	want := map[string]int64{}
	for i := range w.batches {
		for _, r := range w.batch(i).Records {
			want[string(r.Key)]++
		}
	}
	for name, open := range map[string]opener{"wasm": openCountWasm(envFor(t, false)), "native": openCountNative(envFor(t, false))} {
		out, err := collect(context.Background(), w, w.batches, open)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := map[string]int64{}
		for _, r := range out.Records {
			k, n, _ := bytes.Cut(r.Value, []byte(","))
			c, err := strconv.ParseInt(string(n), 10, 64)
			if err != nil || c != got[string(k)]+1 {
				t.Fatalf("%s: %q follows count %d", name, r.Value, got[string(k)])
			}
			got[string(k)] = c
		}
		if !maps.Equal(got, want) {
			t.Errorf("%s: final counts differ from a Go map's", name)
		}
	}
}

func TestKeysAreDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range distinctKeys(rand.New(rand.NewPCG(1, 2)), 50_000) {
		if len(k) < 8 || len(k) > 16 || seen[string(k)] {
			t.Fatalf("key %q repeated or not 8 to 16 bytes", k)
		}
		seen[string(k)] = true
	}
}

// BenchmarkQ1Wasm is the Wasm side of the q1-map row.
func BenchmarkQ1Wasm(b *testing.B) {
	forEachMode(b, func(b *testing.B, e *env) {
		benchOperator(b, q1Workload(q1PoolRecords), openWasm(e, "q1", q1Config(), false))
	})
}

// BenchmarkQ1Native is the native side of the q1-map row.
func BenchmarkQ1Native(b *testing.B) { benchOperator(b, q1Workload(q1PoolRecords), openQ1Native) }

// BenchmarkKeyedCountWasm is the Wasm side of the keyed-count-pebble row,
// over a fresh store and without the final flush.
func BenchmarkKeyedCountWasm(b *testing.B) {
	forEachMode(b, func(b *testing.B, e *env) {
		benchOperator(b, countWorkload(1<<20, 1_000_000, 1), openCountWasm(e))
	})
}

// BenchmarkKeyedCountNative is the native side of the keyed-count-pebble
// row, over a fresh store and without the final flush.
func BenchmarkKeyedCountNative(b *testing.B) {
	benchOperator(b, countWorkload(1<<20, 1_000_000, 1), openCountNative(envFor(b, false)))
}

// forEachMode runs fn as a sub-benchmark with interruptible and with
// uninterruptible guests.
func forEachMode(b *testing.B, fn func(b *testing.B, e *env)) {
	for _, unint := range []bool{false, true} {
		name := map[bool]string{false: "interruptible", true: "uninterruptible"}[unint]
		b.Run(name, func(b *testing.B) { fn(b, envFor(b, unint)) })
	}
}

// benchOperator runs one operator over w's batches, one batch per
// iteration, and reports records/s.
func benchOperator(b *testing.B, w *workload, open opener) {
	ctx := context.Background()
	op, err := open(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer op.Close()
	var out record.Batch
	records := 0
	for i := 0; b.Loop(); i++ {
		in := w.batch(i)
		out.Reset()
		if err := op.Process(ctx, in, &out); err != nil {
			b.Fatal(err)
		}
		records += in.Len()
	}
	b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
}
