package pebblekv

import (
	"fmt"
	"log/slog"
	"math"

	"github.com/cockroachdb/pebble"
	"github.com/cockroachdb/pebble/bloom"
	"github.com/cockroachdb/pebble/vfs"
)

// Defaults for the zero values of Options.
const (
	// DefaultMemoryBytes is the memory budget of a store when neither
	// Options.MemoryBytes nor its owner says otherwise: about 1.5 million
	// small counters cached, or fewer as the key filter grows, up to
	// about 30 million keys in state.
	DefaultMemoryBytes = 256 << 20
	// MaxBudget is the most Budget gives a store. NB: the cache and the
	// filter live on the Go heap, which GOGC 400 lets grow to five times
	// what is live; a larger budget is for --state-memory to ask.
	MaxBudget = 512 << 20
	// DefaultMaxDirty is how many dirty entries trigger a write to Pebble.
	DefaultMaxDirty = 64 << 10
)

// Bounds of Pebble's memtable size, which is an eighth of the budget.
// Larger than Pebble's 4 MiB default so that a write-back of
// DefaultMaxDirty small entries fits many times over and memtable flushes
// are rare.
const (
	minMemTableSize = 4 << 20
	maxMemTableSize = 64 << 20
)

// l0CompactionThreshold is how many L0 files (sublevels) make Pebble
// compact L0, tuned for keyed state: see pebbleOptions.
const l0CompactionThreshold = 16

// minWriteBackBytes is the least the write-back cache and key filter get,
// however small the budget.
const minWriteBackBytes = 8 << 20

// Options configure Open. The zero value is usable.
type Options struct {
	// FS is the file system Pebble uses; nil means the operating system's.
	// Tests pass vfs.NewMem() or an error-injecting file system.
	FS vfs.FS
	// MemoryBytes is the store's memory budget: Pebble's two memtables
	// (an eighth each, at most 64 MiB each) and block cache (an eighth),
	// and the rest for the write-back cache and the key filter, which
	// takes from the cache's share as it grows. 0 means
	// DefaultMemoryBytes. See Budget for a task manager's share.
	MemoryBytes int64
	// CacheBytes overrides the size of Pebble's block cache; 0 means an
	// eighth of MemoryBytes.
	CacheBytes int64
	// CacheEntries also bounds the write-back cache in keys; 0 means that
	// only its bytes do. Reads of keys that it holds never reach Pebble.
	CacheEntries int
	// FilterBytes caps the memory of the key filter, which lets a Get of a
	// key that Pebble lacks skip reading Pebble (see the package
	// documentation); 0 means half of the write-back share of MemoryBytes.
	// The filter takes about 2.5 bytes per key written; past the cap it
	// turns off.
	FilterBytes int64
	// MaxDirty is how many dirty entries the cache holds before it writes
	// them to Pebble in one batch; 0 means DefaultMaxDirty. It is capped at
	// CacheEntries.
	MaxDirty int
	// Logger receives Pebble's informational messages; nil discards them.
	Logger *slog.Logger
	// tune, when set, edits the Pebble options last: for benchmarks that
	// compare Pebble configurations.
	tune func(*pebble.Options)
}

// budget is how Options.MemoryBytes is shared out.
type budget struct {
	memTable   int64 // memTable is the size of one memtable.
	blockCache int64
	// writeBack is shared by the write-back cache and the key filter.
	writeBack int64
}

// withDefaults returns o with zero fields replaced by the defaults, and
// how its memory is shared out.
func (o Options) withDefaults() (Options, budget) {
	if o.FS == nil {
		o.FS = vfs.Default
	}
	if o.MemoryBytes <= 0 {
		o.MemoryBytes = DefaultMemoryBytes
	}
	b := budget{memTable: min(max(o.MemoryBytes/8, minMemTableSize), maxMemTableSize)}
	if o.CacheBytes <= 0 {
		o.CacheBytes = o.MemoryBytes / 8
	}
	b.blockCache = o.CacheBytes
	b.writeBack = max(o.MemoryBytes-2*b.memTable-b.blockCache, minWriteBackBytes)
	if o.CacheEntries <= 0 {
		o.CacheEntries = math.MaxInt32
	}
	if o.FilterBytes <= 0 {
		o.FilterBytes = b.writeBack / 2
	}
	if o.MaxDirty <= 0 {
		o.MaxDirty = DefaultMaxDirty
	}
	o.MaxDirty = min(o.MaxDirty, o.CacheEntries)
	return o, b
}

// Budget returns the memory budget of one store of a process that runs
// stores keyed state stores at once within memLimit bytes (the Go
// runtime's memory limit, of which the task manager sets three quarters of
// the machine's memory): an eighth of the limit shared between them, at
// least 64 MiB and at most MaxBudget each. An eighth because the budget is of
// live memory and a task manager's GOGC of 400 lets the heap grow to five
// times what is live before it collects: the stores' share then stays
// under the limit. Without a limit (math.MaxInt64) it is
// DefaultMemoryBytes.
func Budget(memLimit int64, stores int) int64 {
	if memLimit <= 0 || memLimit == math.MaxInt64 || stores < 1 {
		return DefaultMemoryBytes
	}
	return min(max(memLimit/8/int64(stores), 64<<20), MaxBudget)
}

// pebbleOptions returns the Pebble configuration for o, whose defaults are
// filled in, and its budget b, using block cache c.
func (o Options) pebbleOptions(b budget, c *pebble.Cache) *pebble.Options {
	po := &pebble.Options{
		FS:           o.FS,
		Cache:        c,
		DisableWAL:   true,
		MemTableSize: uint64(b.memTable),
		// Bloom filters let a Get of a key that is not in a table skip
		// reading its blocks; new keys are common in keyed state.
		Levels: []pebble.LevelOptions{{FilterPolicy: bloom.FilterPolicy(10)}},
		Logger: pebbleLogger{o.Logger},
		// Keyed state takes new keys all over its key space, so every
		// L0 file overlaps the whole base level, and each compaction out
		// of L0 rewrites all of it. Letting 16 files gather in L0 rather
		// than Pebble's 4 makes a quarter as many such rewrites: at 10M
		// new keys, 16 bytes compacted per key rather than 62 and 40% less
		// CPU per record (BenchmarkDistinctConfigs; RATIONALE.md). Writes
		// stop at three times the threshold, as with Pebble's defaults.
		// The base level keeps Pebble's 64 MiB: a larger one, which every
		// L0 compaction also rewrites, makes the bytes compacted per key
		// grow with the state.
		L0CompactionThreshold: l0CompactionThreshold,
		L0StopWritesThreshold: 3 * l0CompactionThreshold,
	}
	if o.tune != nil {
		o.tune(po)
	}
	return po
}

// pebbleLogger adapts a slog.Logger, possibly nil, to Pebble's Logger.
type pebbleLogger struct {
	l *slog.Logger
}

// Infof logs an informational message at debug level: Pebble reports
// routine events such as WAL replay there.
func (p pebbleLogger) Infof(format string, args ...any) {
	if p.l != nil {
		p.l.Debug(fmt.Sprintf(format, args...), "component", "pebble")
	}
}

// Fatalf logs Pebble's report of a broken invariant and exits, as Pebble's
// own logger does: Pebble does not expect Fatalf to return.
func (p pebbleLogger) Fatalf(format string, args ...any) {
	if p.l != nil {
		p.l.Error(fmt.Sprintf(format, args...), "component", "pebble")
	}
	pebble.DefaultLogger.Fatalf(format, args...)
}
