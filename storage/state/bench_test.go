package state_test

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/floe-stream/floe/storage/keygroup"
	"github.com/floe-stream/floe/storage/kv"
	"github.com/floe-stream/floe/storage/kv/memkv"
	"github.com/floe-stream/floe/storage/kv/pebblekv"
	"github.com/floe-stream/floe/storage/state"
)

// benchKeys is the number of distinct keys BenchmarkKeyedCount counts.
const benchKeys = 1_000_000

// BenchmarkKeyedCount counts records per key, as word count does: for each
// record it computes the key group, gets the 8-byte counter and puts it
// back incremented. Records visit the keys in a random order, each key
// once per pass, so the first pass inserts and later passes update. Run it
// with -benchtime=3000000x for three passes. sizes=true keeps the state's
// size (Backend.TrackSizes), as tasks do.
func BenchmarkKeyedCount(b *testing.B) {
	keys := benchKeySet(benchKeys)
	stores := []struct {
		name string
		open func(b *testing.B) kv.Store
	}{
		{"memkv", func(*testing.B) kv.Store { return memkv.New() }},
		{"pebblekv", func(b *testing.B) kv.Store { return openBenchPebble(b, pebblekv.Options{}) }},
		{"pebblekv-cache=256K", func(b *testing.B) kv.Store {
			return openBenchPebble(b, pebblekv.Options{CacheEntries: 256 << 10})
		}},
	}
	for _, s := range stores {
		for _, sizes := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/sizes=%v", s.name, sizes), func(b *testing.B) {
				be := state.New(s.open(b))
				if sizes {
					if err := be.TrackSizes(); err != nil {
						b.Fatal(err)
					}
				}
				runKeyedCount(b, be, keys)
			})
		}
	}
}

// runKeyedCount counts b.N records over keys and reports records/s,
// including the final flush.
func runKeyedCount(b *testing.B, be *state.Backend, keys [][]byte) {
	defer be.Close()
	v, err := be.Value("count/counts")
	if err != nil {
		b.Fatal(err)
	}
	var counter [8]byte
	for i := 0; b.Loop(); i++ {
		key := keys[i%len(keys)]
		kg := keygroup.Of(key, keygroup.DefaultMaxParallelism)
		cur, ok, err := v.Get(kg, key)
		if err != nil {
			b.Fatal(err)
		}
		var n uint64
		if ok {
			n = binary.LittleEndian.Uint64(cur)
		}
		binary.LittleEndian.PutUint64(counter[:], n+1)
		if err := v.Put(kg, key, counter[:]); err != nil {
			b.Fatal(err)
		}
	}
	if err := be.Flush(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// benchKeySet returns n distinct keys in a random order.
func benchKeySet(n int) [][]byte {
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "user-%07d", i)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(n, func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	return keys
}

func openBenchPebble(b *testing.B, opts pebblekv.Options) kv.Store {
	s, err := pebblekv.Open(b.TempDir(), opts)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkKeyedCountDistinct counts records whose keys are all distinct,
// as a keyed count over a key space much larger than the write-back cache
// does: every record inserts a new key. Each sub-benchmark is one pass
// over a fresh store, flush included; compare the records/s of its sizes
// in one run (-benchtime=1x).
func BenchmarkKeyedCountDistinct(b *testing.B) {
	for _, n := range []int{1_000_000, 5_000_000} {
		b.Run(fmt.Sprintf("keys=%dM", n/1_000_000), func(b *testing.B) {
			keys := distinctHexKeys(n)
			for b.Loop() {
				b.StopTimer()
				be := state.New(openBenchPebble(b, pebblekv.Options{}))
				b.StartTimer()
				countOnce(b, be, keys)
				b.StopTimer()
				if err := be.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// countOnce counts each of keys once and flushes.
func countOnce(b *testing.B, be *state.Backend, keys [][]byte) {
	v, err := be.Value("count/counts")
	if err != nil {
		b.Fatal(err)
	}
	var counter [8]byte
	for _, key := range keys {
		kg := keygroup.Of(key, keygroup.DefaultMaxParallelism)
		cur, ok, err := v.Get(kg, key)
		if err != nil {
			b.Fatal(err)
		}
		var n uint64
		if ok {
			n = binary.LittleEndian.Uint64(cur)
		}
		binary.LittleEndian.PutUint64(counter[:], n+1)
		if err := v.Put(kg, key, counter[:]); err != nil {
			b.Fatal(err)
		}
	}
	if err := be.Flush(); err != nil {
		b.Fatal(err)
	}
}

// distinctHexKeys returns n distinct keys "w<8 hex digits>" in a random
// order, the keys of the measurement.
func distinctHexKeys(n int) [][]byte {
	rng := rand.New(rand.NewPCG(3, 4))
	seen := make(map[uint32]struct{}, n)
	keys := make([][]byte, 0, n)
	for len(keys) < n {
		x := rng.Uint32()
		if _, dup := seen[x]; !dup {
			seen[x] = struct{}{}
			keys = append(keys, fmt.Appendf(nil, "w%08x", x))
		}
	}
	return keys
}
