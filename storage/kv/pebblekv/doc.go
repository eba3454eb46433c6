// Package pebblekv is a kv.Store kept in a Pebble LSM, with a write-back
// cache in front so that the hot path of keyed state rarely reaches Pebble.
//
// # Write-back cache
//
// A Get that misses the cache reads Pebble once and caches the answer, a
// missing key included. Set and Delete only change the cached entry and
// mark it dirty. Once MaxDirty entries are dirty they are sorted by key and
// written to Pebble in one batch, which costs far less per key than a
// write each. A cache hit costs tens of nanoseconds, a random Get from
// Pebble microseconds, so a keyed count whose keys fit in the cache runs
// at close to memory speed.
//
// When the cache is full, a clean entry is evicted by the clock algorithm;
// dirty entries are never evicted before they are written back. Scan and
// DeleteRange first write back every dirty entry, so that Pebble holds all
// writes and a scan can run on Pebble alone; DeleteRange then drops the
// cached entries of the deleted keys.
//
// # Key filter
//
// A miss on a key that Pebble lacks would still cost a Pebble Get, which
// searches the memtables and the filter and index blocks of every level:
// microseconds, and most of the time of a keyed count whose new keys
// outnumber the cache. The Store keeps its own Bloom filter of every key
// it has written to Pebble (and, at Open, of every key already there), so
// such a miss reads nothing. The filter grows by parts of doubling
// capacity, about 2.5 bytes per key; past Options.FilterBytes it turns
// off and misses read Pebble again. Deleted keys stay in it, which only
// costs a read.
//
// # Compaction
//
// New keys of keyed state fall all over the key space, so each table
// Pebble flushes to L0 overlaps the whole level below it, and each
// compaction out of L0 rewrites that level. The Store lets 16 files gather
// in L0 (Pebble's default is 4) so that there are a quarter as many such
// rewrites; a read that reaches Pebble may then check more L0 files, each
// behind a bloom filter.
//
// # Sizes
//
// An observed Store (kv.Observable, as the state package observes it to
// report each operator's state size) tells its observer what every write
// adds or removes. A cache entry knows whether its key exists and its
// value's length, so the hot path of read-modify-write state costs one
// comparison; only a Set or Delete of a key that is neither cached nor
// ruled out by the key filter reads Pebble first, and DeleteRange walks
// all of its range.
//
// # Durability
//
// Batches are committed with pebble.NoSync and Pebble's write-ahead log is
// disabled. Durability is the job of checkpoints, which call Flush first:
// Flush writes the dirty entries back and flushes Pebble's memtable to a
// synced table. A crash between checkpoints loses the writes since the
// last one, which recovery replays from the sources anyway, so a WAL would
// only write every batch twice. (With batched write-back the WAL made no
// measurable difference to throughput either; the choice is about not
// keeping a second copy that nothing reads.) Close flushes, so a Store
// reopened on the same directory sees every write.
//
// For incremental checkpoints the cache entries also remember which keys
// were written since the last snapshot (kv.ChangeTracker), and Snapshot
// writes the dirty entries back and takes a Pebble snapshot that another
// goroutine can read (kv.Snapshotter). A changed key evicted before the
// snapshot is clean, so the cache keeps the value it had, which Pebble
// holds, and reports it without reading Pebble: up to a sixteenth of the
// cache's budget of such values per snapshot, past which, and for values
// kept before a DeleteRange, Changes reads Pebble.
//
// # Memory
//
// A Store keeps to Options.MemoryBytes: Pebble's two memtables take an
// eighth each (at most 64 MiB each), its block cache an eighth, and the
// rest is shared by the write-back cache and the key filter, which takes
// from the cache's share as it grows (at most half of it). The cache
// counts its bytes: about 80 bytes per entry plus its key and value
// buffer, so the 160 MiB left of the default 256 MiB budget hold about
// 1.5 million small counters. NB: Pebble reserves its memtables from the block cache,
// so the block cache is made larger by their size; without that a small
// cache would hold no blocks at all. The keys of changed entries evicted
// since the last snapshot, and the values kept of them, are outside the
// cache's count. The budget is of live memory: the Go
// heap's garbage comes on top, which the process's GOGC and memory limit
// bound.
package pebblekv
