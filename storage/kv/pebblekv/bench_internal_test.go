package pebblekv

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble"
)

// BenchmarkDistinctConfigs counts keys that are all distinct, as a keyed
// count over a key space larger than the cache does, under Pebble
// configurations to compare: Floe's, Pebble's default compaction triggers,
// a large base level, a higher L0 threshold, a larger memtable (beyond
// the budget) and no compression. Besides records/s it reports the
// process's CPU per record, Pebble's background work included, the bytes compacted per key
// and how long writes stalled. To interleave the configurations, run each
// on its own in turn (-bench 'DistinctConfigs/^floe$', ...), since -count
// repeats one sub-benchmark before the next.
func BenchmarkDistinctConfigs(b *testing.B) {
	configs := []struct {
		name string
		tune func(*pebble.Options)
	}{
		{"floe", nil},
		{"pebble-l0-lbase", func(o *pebble.Options) {
			o.L0CompactionThreshold, o.L0StopWritesThreshold, o.LBaseMaxBytes = 4, 12, 64<<20
		}},
		{"l0=8,lbase=512M", func(o *pebble.Options) {
			o.L0CompactionThreshold, o.L0StopWritesThreshold, o.LBaseMaxBytes = 8, 24, 512<<20
		}},
		{"l0=32", func(o *pebble.Options) {
			o.L0CompactionThreshold, o.L0StopWritesThreshold = 32, 96
		}},
		{"memtable=64M", func(o *pebble.Options) { o.MemTableSize = 64 << 20 }},
		{"no-compression", func(o *pebble.Options) {
			o.Levels = []pebble.LevelOptions{{FilterPolicy: o.Levels[0].FilterPolicy, Compression: pebble.NoCompression}}
		}},
	}
	n := benchDistinctKeys
	keys := hexKeys(n)
	for _, c := range configs {
		b.Run(fmt.Sprintf("%s/keys=%dM", c.name, n/1_000_000), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				var stalled time.Duration
				var stallStart time.Time
				tune := func(o *pebble.Options) {
					if c.tune != nil {
						c.tune(o)
					}
					o.EventListener = &pebble.EventListener{
						WriteStallBegin: func(pebble.WriteStallBeginInfo) { stallStart = time.Now() },
						WriteStallEnd:   func() { stalled += time.Since(stallStart) },
					}
				}
				s, err := Open(b.TempDir(), Options{tune: tune})
				if err != nil {
					b.Fatal(err)
				}
				cpu0 := cpuTime()
				b.StartTimer()
				countDistinct(b, s, keys)
				b.StopTimer()
				cpu := cpuTime() - cpu0
				m := s.db.Metrics().Total()
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/record")
				b.ReportMetric(float64(m.BytesCompacted)/float64(n), "compacted-B/key")
				b.ReportMetric(stalled.Seconds(), "stalled-s")
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// benchDistinctKeys is the number of keys BenchmarkDistinctConfigs counts.
const benchDistinctKeys = 10_000_000

// countDistinct reads, increments and writes the counter of each key, then
// flushes.
func countDistinct(b *testing.B, s *Store, keys [][]byte) {
	var counter [8]byte
	for _, k := range keys {
		cur, ok, err := s.Get(k)
		if err != nil {
			b.Fatal(err)
		}
		var c uint64
		if ok {
			c = binary.LittleEndian.Uint64(cur)
		}
		binary.LittleEndian.PutUint64(counter[:], c+1)
		if err := s.Set(k, counter[:]); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Flush(); err != nil {
		b.Fatal(err)
	}
}

// hexKeys returns n keys as the state package lays them out: a 2-byte key
// group, the state's name and "w<8 hex digits>", distinct and in a random
// order.
func hexKeys(n int) [][]byte {
	rng := rand.New(rand.NewPCG(3, 4))
	keys := make([][]byte, 0, n)
	for i := range n {
		x := uint32(i) * 0x9e3779b1
		kg := rng.Uint32() % 128
		keys = append(keys, fmt.Appendf([]byte{byte(kg >> 8), byte(kg)}, "\x0ccount/counts\x09w%08x", x))
	}
	return keys
}

// cpuTime returns the user and system CPU time of the process.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
