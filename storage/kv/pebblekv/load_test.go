package pebblekv_test

import (
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/vfs"

	"github.com/floe-stream/floe/storage/kv"
	"github.com/floe-stream/floe/storage/kv/pebblekv"
)

// TestLoadThenGetEveryKey loads writes into a store whose tiny cache holds
// entries for some of the keys, present, absent and dirty, and checks every
// key against a model, before and after reopening: a stale cache entry or a
// loaded key missing from the key filter would make a Get wrong.
func TestLoadThenGetEveryKey(t *testing.T) {
	const n = 3000
	opts := pebblekv.Options{FS: vfs.NewMem(), CacheEntries: 16, MaxDirty: 8}
	s := mustOpen(t, "db", opts)
	model := map[int]string{}
	for i := 0; i < n; i += 3 {
		must(t, s.Set(key(i), []byte("old")))
		model[i] = "old"
	}
	for i := n - 10; i < n; i++ {
		wantGet(t, s, i, model[i], model[i] != "") // Caches these keys, absent ones too.
	}
	must(t, s.Set(key(n-1), []byte("dirty")))
	model[n-1] = "dirty"
	must(t, s.Load(func(w kv.Writer) error {
		for i := range n {
			var err error
			switch {
			case i%5 == 0:
				err = w.Delete(key(i))
				delete(model, i)
			case i == 100:
				// A range deletion, then a write at its start.
				err = w.DeleteRange(key(100), key(200))
				for j := 100; j < 200; j++ {
					delete(model, j)
				}
				if err == nil {
					err = w.Set(key(i), []byte("new"))
					model[i] = "new"
				}
			case i%2 == 0 || i >= n-10:
				err = w.Set(key(i), fmt.Append(nil, "new", i))
				model[i] = fmt.Sprint("new", i)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}))
	if st := s.Stats(); st.Cached > 16 {
		t.Errorf("Load left %d keys cached; the cache holds 16", st.Cached)
	}
	for reopen := range 2 {
		// NB: backwards, so the keys cached before the load are read
		// before reading others evicts them.
		for i := n + 9; i >= 0; i-- {
			want, ok := model[i]
			wantGet(t, s, i, want, ok)
		}
		t.Logf("reopen=%d: %+v", reopen, s.Stats())
		must(t, s.Close())
		s = mustOpen(t, "db", opts)
	}
	must(t, s.Close())
}

// TestLoadWhileTrackingReportsChanges checks that a Load into a store that
// tracks its changes reports the loaded keys in the next Changes.
func TestLoadWhileTrackingReportsChanges(t *testing.T) {
	s := mustOpen(t, "db", pebblekv.Options{FS: vfs.NewMem(), CacheEntries: 4, MaxDirty: 2})
	defer s.Close()
	must(t, s.Set(key(9), []byte("x")))
	s.TrackChanges()
	must(t, s.Load(func(w kv.Writer) error {
		for i := range 8 {
			if err := w.Set(key(i), []byte("v")); err != nil {
				return err
			}
		}
		return w.Delete(key(9))
	}))
	want := map[string]string{"key000009": "-"}
	for i := range 8 {
		want[string(key(i))] = "v"
	}
	checkChanges(t, s, want)
}
