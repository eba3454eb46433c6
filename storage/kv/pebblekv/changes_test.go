package pebblekv_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/floe-stream/floe/storage/kv/pebblekv"
)

// TestChangesReportsEachWrittenKeyOnce writes keys through a cache of four
// entries, so that most changed keys are evicted, deleted or cached again
// before Changes runs, and checks that Changes reports every key written
// since TrackChanges exactly once, with its current value, and nothing
// else; and that a second Changes reports only the writes after the first.
func TestChangesReportsEachWrittenKeyOnce(t *testing.T) {
	s, err := pebblekv.Open(t.TempDir(), pebblekv.Options{CacheEntries: 4, MaxDirty: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	set := func(k, v string) {
		if err := s.Set([]byte(k), []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 10 {
		set(fmt.Sprint("old", i), "x")
	}
	s.TrackChanges()
	set("a", "1")
	set("b", "1")
	for i := range 6 {
		set(fmt.Sprint("c", i), "1")
	}
	set("a", "2") // evicted, then cached and changed again
	if err := s.Delete([]byte("old3")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Get([]byte("b")); err != nil { // evicted, then cached clean
		t.Fatal(err)
	}
	want := map[string]string{"a": "2", "b": "1", "old3": "-"}
	for i := range 6 {
		want[fmt.Sprint("c", i)] = "1"
	}
	checkChanges(t, s, want)
	set("b", "3")
	checkChanges(t, s, map[string]string{"b": "3"})
	checkChanges(t, s, map[string]string{})
}

// checkChanges checks that Changes reports exactly want, "-" meaning
// absent, each key once.
func checkChanges(t *testing.T, s *pebblekv.Store, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	err := s.Changes(func(k, v []byte, present bool) error {
		if _, dup := got[string(k)]; dup {
			t.Errorf("key %q reported twice", k)
		}
		got[string(k)] = "-"
		if present {
			got[string(k)] = string(v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(got, want) {
		t.Errorf("Changes reported %s, want %s", render(got), render(want))
	}
}

func render(m map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "%s=%s ", k, m[k])
	}
	return b.String()
}

// TestChangesAfterDeleteRange evicts changed keys, whose values the cache
// keeps for Changes, then deletes a range over some of them: those must be
// reported absent, not with the values kept before the deletion, or a
// delta would put them back after its range deletion. A key set again
// after the deletion and evicted is reported with its new value.
func TestChangesAfterDeleteRange(t *testing.T) {
	s, err := pebblekv.Open(t.TempDir(), pebblekv.Options{CacheEntries: 4, MaxDirty: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.TrackChanges()
	want := map[string]string{}
	for i := range 20 {
		k := fmt.Sprintf("k%02d", i)
		if err := s.Set([]byte(k), []byte("v")); err != nil {
			t.Fatal(err)
		}
		want[k] = "v"
	}
	if err := s.DeleteRange([]byte("k05"), []byte("k10")); err != nil {
		t.Fatal(err)
	}
	for i := 5; i < 10; i++ {
		want[fmt.Sprintf("k%02d", i)] = "-"
	}
	if err := s.Set([]byte("k07"), []byte("again")); err != nil {
		t.Fatal(err)
	}
	want["k07"] = "again"
	for i := range 8 { // evict k07 again
		k := fmt.Sprintf("z%d", i)
		if err := s.Set([]byte(k), []byte("z")); err != nil {
			t.Fatal(err)
		}
		want[k] = "z"
	}
	checkChanges(t, s, want)
}

// TestChangesPastKeptValues changes more evicted values than the cache
// keeps for Changes (a sixteenth of its 8 MiB share of a small budget), so
// that some are read back from Pebble, and checks that every key is
// reported with its value.
func TestChangesPastKeptValues(t *testing.T) {
	s, err := pebblekv.Open(t.TempDir(), pebblekv.Options{MemoryBytes: 1 << 20, CacheEntries: 4, MaxDirty: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.TrackChanges()
	want := map[string]string{}
	for i := range 2000 {
		k, v := fmt.Sprintf("k%04d", i), strings.Repeat(fmt.Sprint(i%10), 1000)
		if err := s.Set([]byte(k), []byte(v)); err != nil {
			t.Fatal(err)
		}
		want[k] = v
	}
	checkChanges(t, s, want)
}
