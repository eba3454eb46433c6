package pebblekv_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/cockroachdb/pebble/vfs"
	"github.com/cockroachdb/pebble/vfs/errorfs"

	"github.com/floe-stream/floe/storage/kv"
	"github.com/floe-stream/floe/storage/kv/kvtest"
	"github.com/floe-stream/floe/storage/kv/pebblekv"
)

func TestConformance(t *testing.T) {
	configs := []struct {
		name     string
		opts     pebblekv.Options
		disk     bool
		noFilter bool
	}{
		{name: "defaults"},
		{name: "no-filter", noFilter: true},
		{name: "disk", disk: true},
		{name: "cache=1", opts: pebblekv.Options{CacheEntries: 1}},
		{name: "cache=2", opts: pebblekv.Options{CacheEntries: 2}},
		{name: "cache=7,dirty=3", opts: pebblekv.Options{CacheEntries: 7, MaxDirty: 3}},
		{name: "cache=100,dirty=1", opts: pebblekv.Options{CacheEntries: 100, MaxDirty: 1}},
	}
	for _, c := range configs {
		t.Run(c.name, func(t *testing.T) {
			kvtest.RunSuite(t, func(t *testing.T) kv.Store {
				dir, opts := "db", c.opts
				if c.disk {
					dir = t.TempDir()
				} else {
					opts.FS = vfs.NewMem()
				}
				s := mustOpen(t, dir, opts)
				if c.noFilter {
					pebblekv.DisableFilter(s)
				}
				return s
			})
		})
	}
}

func TestReopenSeesData(t *testing.T) {
	for _, disk := range []bool{false, true} {
		t.Run(fmt.Sprintf("disk=%v", disk), func(t *testing.T) {
			dir, opts := t.TempDir(), pebblekv.Options{CacheEntries: 10}
			if !disk {
				dir, opts.FS = "db", vfs.NewMem()
			}
			s := mustOpen(t, dir, opts)
			for i := range 1000 {
				must(t, s.Set(key(i), []byte(fmt.Sprint(i))))
			}
			must(t, s.Delete(key(7)))
			must(t, s.DeleteRange(key(500), key(600)))
			must(t, s.Close())

			s = mustOpen(t, dir, opts)
			defer s.Close()
			for i := range 1000 {
				if i == 7 || (i >= 500 && i < 600) {
					wantGet(t, s, i, "", false)
				} else {
					wantGet(t, s, i, fmt.Sprint(i), true)
				}
			}
		})
	}
}

func TestCacheBounds(t *testing.T) {
	const capacity, maxDirty, n = 50, 10, 1000
	s := mustOpen(t, "db", pebblekv.Options{FS: vfs.NewMem(), CacheEntries: capacity, MaxDirty: maxDirty})
	defer s.Close()
	for i := range n {
		must(t, s.Set(key(i), []byte(fmt.Sprint(i))))
		if st := s.Stats(); st.Cached > capacity || st.Dirty >= maxDirty {
			t.Fatalf("after %d sets: %+v exceeds capacity %d or max dirty %d", i+1, st, capacity, maxDirty)
		}
	}
	if st := s.Stats(); st.WriteBacks != n/maxDirty {
		t.Errorf("WriteBacks = %d, want %d", st.WriteBacks, n/maxDirty)
	}
	for i := range n {
		wantGet(t, s, i, fmt.Sprint(i), true)
	}
	before := s.Stats()
	wantGet(t, s, n-1, fmt.Sprint(n-1), true)
	if st := s.Stats(); st.Hits != before.Hits+1 {
		t.Errorf("Get of a just-read key missed the cache: %+v then %+v", before, st)
	}
}

func TestMissesAreCached(t *testing.T) {
	opts := pebblekv.Options{FS: vfs.NewMem()}
	s := mustOpen(t, "db", opts)
	must(t, s.Set(key(0), []byte("v")))
	must(t, s.Close())
	s = mustOpen(t, "db", opts)
	defer s.Close()
	pebblekv.DisableFilter(s)
	for range 3 {
		wantGet(t, s, 1, "", false)
	}
	if st := s.Stats(); st.Misses != 1 || st.Reads != 1 || st.Hits != 2 {
		t.Errorf("Stats = %+v, want 1 miss that read Pebble and 2 hits", st)
	}
}

// TestFilterSkipsReadsOfAbsentKeys checks that a miss on a key that was
// never written reads Pebble only when the key filter is wrong, which it
// rarely is, both before and after the store is reopened, while keys that
// were written and evicted are read back.
func TestFilterSkipsReadsOfAbsentKeys(t *testing.T) {
	const n = 2000
	opts := pebblekv.Options{FS: vfs.NewMem(), CacheEntries: 10, MaxDirty: 5}
	s := mustOpen(t, "db", opts)
	for i := range n {
		must(t, s.Set(key(i), []byte("v"))) // Writes back and evicts.
	}
	for reopen := range 2 {
		before := s.Stats()
		for i := n; i < 2*n; i++ {
			wantGet(t, s, i, "", false)
		}
		if st := s.Stats(); st.Reads-before.Reads > n/20 {
			t.Errorf("reopen=%d: %d of %d misses on absent keys read Pebble", reopen, st.Reads-before.Reads, n)
		}
		before = s.Stats()
		for i := range n {
			wantGet(t, s, i, "v", true)
		}
		if st := s.Stats(); st.Reads-before.Reads < n/2 {
			t.Errorf("reopen=%d: %d reads for %d evicted keys", reopen, st.Reads-before.Reads, n)
		}
		must(t, s.Close())
		s = mustOpen(t, "db", opts)
	}
	must(t, s.Close())
}

// TestFilterMatchesModel applies random writes, deletes, range deletes
// and reopens to a store whose cache is far smaller than its keys, and
// checks every read against a map: a key filter that reported a present
// key absent would make a Get miss it.
func TestFilterMatchesModel(t *testing.T) {
	const keys, ops = 5000, 60000
	opts := pebblekv.Options{FS: vfs.NewMem(), CacheEntries: 64, MaxDirty: 16}
	s := mustOpen(t, "db", opts)
	model := map[int]string{}
	rng := rand.New(rand.NewPCG(5, 8))
	for op := range ops {
		i := rng.IntN(keys)
		switch r := rng.IntN(1000); {
		case r < 450:
			v := fmt.Sprint(op)
			must(t, s.Set(key(i), []byte(v)))
			model[i] = v
		case r < 550:
			must(t, s.Delete(key(i)))
			delete(model, i)
		case r < 553:
			j := min(keys, i+rng.IntN(300))
			must(t, s.DeleteRange(key(i), key(j)))
			for k := i; k < j; k++ {
				delete(model, k)
			}
		case r < 555:
			must(t, s.Close()) // As a restart that restores the same files.
			s = mustOpen(t, "db", opts)
		default:
			v, ok := model[i]
			wantGet(t, s, i, v, ok)
		}
	}
	for i := range keys {
		v, ok := model[i]
		wantGet(t, s, i, v, ok)
	}
	must(t, s.Close())
}

// TestDeleteRangeDropsCachedKeys covers both ways DeleteRange drops cached
// entries: key by key, and by sweeping the cache when the range holds more
// keys than the cache.
func TestDeleteRangeDropsCachedKeys(t *testing.T) {
	tests := []struct {
		name     string
		capacity int
		from, to int
	}{
		{"point deletes", 1000, 10, 20},
		{"range tombstone", 1000, 100, 900},
		{"cache sweep", 50, 100, 900},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustOpen(t, "db", pebblekv.Options{FS: vfs.NewMem(), CacheEntries: tt.capacity})
			defer s.Close()
			for i := range 1000 {
				must(t, s.Set(key(i), []byte("v")))
			}
			for i := range 1000 {
				wantGet(t, s, i, "v", true) // Cache as many as fit.
			}
			must(t, s.DeleteRange(key(tt.from), key(tt.to)))
			for i := range 1000 {
				if i >= tt.from && i < tt.to {
					wantGet(t, s, i, "", false)
				} else {
					wantGet(t, s, i, "v", true)
				}
			}
		})
	}
}

func TestGetReportsReadErrors(t *testing.T) {
	var failReads atomic.Bool
	fs := errorfs.Wrap(vfs.NewMem(), errorfs.InjectorFunc(func(op errorfs.Op, _ string) error {
		if failReads.Load() && op.OpKind() == errorfs.OpKindRead {
			return errorfs.ErrInjected
		}
		return nil
	}))
	opts := pebblekv.Options{FS: fs, CacheBytes: 1}
	s := mustOpen(t, "db", opts)
	must(t, s.Set(key(1), []byte("v")))
	must(t, s.Close())
	s = mustOpen(t, "db", opts)
	defer s.Close()
	failReads.Store(true)
	_, _, err := s.Get(key(1))
	failReads.Store(false)
	if !errors.Is(err, errorfs.ErrInjected) {
		t.Fatalf("Get with failing reads = %v, want the injected error", err)
	}
}

func TestSetOfExistingKeyDoesNotAllocate(t *testing.T) {
	s := mustOpen(t, "db", pebblekv.Options{FS: vfs.NewMem()})
	defer s.Close()
	k, v := key(1), []byte("12345678")
	must(t, s.Set(k, v))
	allocs := testing.AllocsPerRun(100, func() {
		if _, _, err := s.Get(k); err != nil {
			t.Fatal(err)
		}
		if err := s.Set(k, v); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Get and Set of a cached key allocate %v times", allocs)
	}
}

// key returns the i-th test key; keys sort in the order of i.
func key(i int) []byte {
	return fmt.Appendf(nil, "key%06d", i)
}

func mustOpen(t *testing.T, dir string, opts pebblekv.Options) *pebblekv.Store {
	t.Helper()
	s, err := pebblekv.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// wantGet checks what Get returns for key(i).
func wantGet(t *testing.T, s kv.Store, i int, want string, wantOK bool) {
	t.Helper()
	got, ok, err := s.Get(key(i))
	must(t, err)
	if ok != wantOK || string(got) != want {
		t.Fatalf("Get(%s) = %q, %v; want %q, %v", key(i), got, ok, want, wantOK)
	}
}

// TestShortLivedKeysWriteNothing checks that a key set and deleted between
// two write-backs reaches Pebble not even as a delete, while the delete
// of a key Pebble has, or may have, is written, and reads stay right
// after a reopen.
func TestShortLivedKeysWriteNothing(t *testing.T) {
	opts := pebblekv.Options{FS: vfs.NewMem()}
	s := mustOpen(t, "db", opts)
	must(t, s.Set(key(1), []byte("v")))
	must(t, s.Delete(key(1)))
	must(t, s.Flush())
	if st := s.Stats(); st.Written != 0 {
		t.Fatalf("a key set and deleted before a write-back wrote %d entries", st.Written)
	}
	must(t, s.Set(key(2), []byte("v")))
	must(t, s.Flush())
	must(t, s.Delete(key(2)))
	must(t, s.Set(key(3), []byte("w")))
	must(t, s.Flush())
	if st := s.Stats(); st.Written != 3 {
		t.Fatalf("wrote %d entries, want 3: key 2's set and delete, key 3's set", st.Written)
	}
	must(t, s.Close())
	s = mustOpen(t, "db", opts)
	pebblekv.DisableFilter(s)
	wantGet(t, s, 1, "", false)
	wantGet(t, s, 2, "", false)
	wantGet(t, s, 3, "w", true)
	must(t, s.Close())
}
