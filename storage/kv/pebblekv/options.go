package pebblekv

import (
	"fmt"
	"log/slog"

	"github.com/cockroachdb/pebble"
	"github.com/cockroachdb/pebble/bloom"
	"github.com/cockroachdb/pebble/vfs"
)

// Defaults for the zero values of Options.
const (
	// DefaultCacheBytes is the size of Pebble's block cache.
	DefaultCacheBytes = 64 << 20
	// DefaultCacheEntries is the capacity of the write-back cache. At about
	// 150 bytes per entry for small keys and values, it holds a million
	// counters in roughly 150 MiB.
	DefaultCacheEntries = 1 << 20
	// DefaultFilterBytes caps the key filter at about 200 million keys.
	DefaultFilterBytes = 256 << 20
	// DefaultMaxDirty is how many dirty entries trigger a write to Pebble.
	DefaultMaxDirty = 64 << 10
)

// memTableSize is Pebble's memtable size. Larger than Pebble's 4 MiB
// default so that a write-back of DefaultMaxDirty small entries fits many
// times over and memtable flushes are rare.
const memTableSize = 64 << 20

// memTableReserve is added to the block cache because Pebble reserves the
// memory of its memtables, the mutable one and one being flushed, from it.
// NB: without it, two 64 MiB memtables would leave a 64 MiB cache no room
// at all, and every read would go to disk.
const memTableReserve = 2 * memTableSize

// Options configure Open. The zero value is usable.
type Options struct {
	// FS is the file system Pebble uses; nil means the operating system's.
	// Tests pass vfs.NewMem() or an error-injecting file system.
	FS vfs.FS
	// CacheBytes is the size of Pebble's block cache; 0 means
	// DefaultCacheBytes.
	CacheBytes int64
	// CacheEntries is the capacity of the write-back cache in keys; 0 means
	// DefaultCacheEntries. Reads of keys that it holds never reach Pebble.
	CacheEntries int
	// FilterBytes caps the memory of the key filter, which lets a Get of a
	// key that Pebble lacks skip reading Pebble (see the package
	// documentation); 0 means DefaultFilterBytes. The filter takes about
	// 1.25 bytes per key written; past the cap it turns off.
	FilterBytes int64
	// MaxDirty is how many dirty entries the cache holds before it writes
	// them to Pebble in one batch; 0 means DefaultMaxDirty. It is capped at
	// CacheEntries.
	MaxDirty int
	// Logger receives Pebble's informational messages; nil discards them.
	Logger *slog.Logger
}

// withDefaults returns o with zero fields replaced by the defaults.
func (o Options) withDefaults() Options {
	if o.FS == nil {
		o.FS = vfs.Default
	}
	if o.CacheBytes <= 0 {
		o.CacheBytes = DefaultCacheBytes
	}
	if o.CacheEntries <= 0 {
		o.CacheEntries = DefaultCacheEntries
	}
	if o.FilterBytes <= 0 {
		o.FilterBytes = DefaultFilterBytes
	}
	if o.MaxDirty <= 0 {
		o.MaxDirty = DefaultMaxDirty
	}
	o.MaxDirty = min(o.MaxDirty, o.CacheEntries)
	return o
}

// pebbleOptions returns the Pebble configuration for o, whose defaults are
// filled in, using block cache c.
func (o Options) pebbleOptions(c *pebble.Cache) *pebble.Options {
	return &pebble.Options{
		FS:           o.FS,
		Cache:        c,
		DisableWAL:   true,
		MemTableSize: memTableSize,
		// Bloom filters let a Get of a key that is not in a table skip
		// reading its blocks; new keys are common in keyed state.
		Levels: []pebble.LevelOptions{{FilterPolicy: bloom.FilterPolicy(10)}},
		Logger: pebbleLogger{o.Logger},
	}
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
