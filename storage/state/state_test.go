package state_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/vfs"

	"github.com/floe-stream/floe/storage/keygroup"
	"github.com/floe-stream/floe/storage/kv"
	"github.com/floe-stream/floe/storage/kv/memkv"
	"github.com/floe-stream/floe/storage/kv/pebblekv"
	"github.com/floe-stream/floe/storage/state"
)

// stores are the kv.Store configurations every state test runs on.
var stores = []struct {
	name string
	open func(t *testing.T) kv.Store
}{
	{"memkv", func(*testing.T) kv.Store { return memkv.New() }},
	{"pebble-mem", func(t *testing.T) kv.Store {
		return openPebble(t, "db", pebblekv.Options{FS: vfs.NewMem()})
	}},
	{"pebble-mem-tiny-cache", func(t *testing.T) kv.Store {
		return openPebble(t, "db", pebblekv.Options{FS: vfs.NewMem(), CacheEntries: 3, MaxDirty: 2})
	}},
	{"pebble-disk", func(t *testing.T) kv.Store {
		return openPebble(t, t.TempDir(), pebblekv.Options{})
	}},
}

func openPebble(t *testing.T, dir string, opts pebblekv.Options) kv.Store {
	t.Helper()
	s, err := pebblekv.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// runOnAllStores runs test as a subtest on a fresh Backend over each store.
func runOnAllStores(t *testing.T, test func(t *testing.T, b *state.Backend)) {
	for _, s := range stores {
		t.Run(s.name, func(t *testing.T) {
			b := state.New(s.open(t))
			defer func() {
				if err := b.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			}()
			test(t, b)
		})
	}
}

func TestState(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, b *state.Backend)
	}{
		{"ValueBasics", testValueBasics},
		{"KeyGroupsDoNotCollide", testKeyGroupsDoNotCollide},
		{"NamespacesAreIndependent", testNamespacesAreIndependent},
		{"ListBasics", testListBasics},
		{"ListCallbackMayUseBackend", testListCallbackMayUseBackend},
		{"MapBasics", testMapBasics},
		{"MapIterOnlyThatKey", testMapIterOnlyThatKey},
		{"MapIterCallbackMayUseBackend", testMapIterCallbackMayUseBackend},
		{"ScanRangeExactGroups", testScanRangeExactGroups},
		{"KeyLayout", testKeyLayout},
		{"MatchesModel", testMatchesModel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { runOnAllStores(t, tt.run) })
	}
}

func testValueBasics(t *testing.T, b *state.Backend) {
	v := mustValue(t, b, "op/count")
	wantValue(t, v, 1, "k", "", false)
	must(t, v.Put(1, []byte("k"), []byte("one")))
	wantValue(t, v, 1, "k", "one", true)
	must(t, v.Put(1, []byte("k"), []byte("")))
	wantValue(t, v, 1, "k", "", true)
	must(t, b.Flush())
	must(t, v.Delete(1, []byte("k")))
	wantValue(t, v, 1, "k", "", false)
	must(t, v.Put(1, nil, []byte("empty key")))
	wantValue(t, v, 1, "", "empty key", true)
}

func testKeyGroupsDoNotCollide(t *testing.T, b *state.Backend) {
	v := mustValue(t, b, "op/v")
	kgs := []uint16{0, 1, 255, 256, keygroup.MaxParallelismLimit - 1}
	for _, kg := range kgs {
		must(t, v.Put(kg, []byte("k"), fmt.Appendf(nil, "kg%d", kg)))
	}
	for _, kg := range kgs {
		wantValue(t, v, kg, "k", fmt.Sprintf("kg%d", kg), true)
	}
	must(t, v.Delete(256, []byte("k")))
	wantValue(t, v, 255, "k", "kg255", true)
	wantValue(t, v, 256, "k", "", false)
}

func testNamespacesAreIndependent(t *testing.T, b *state.Backend) {
	a, c := mustValue(t, b, "op/a"), mustValue(t, b, "op/ab")
	m := mustMap(t, b, "op/m")
	must(t, a.Put(3, []byte("k"), []byte("from a")))
	must(t, c.Put(3, []byte("k"), []byte("from ab")))
	must(t, m.Put(3, []byte("k"), []byte("mk"), []byte("from m")))
	wantValue(t, a, 3, "k", "from a", true)
	wantValue(t, c, 3, "k", "from ab", true)
	must(t, a.Delete(3, []byte("k")))
	wantValue(t, c, 3, "k", "from ab", true)
	if got := mapEntries(t, m, 3, "k"); got != "mk=from m" {
		t.Errorf("map entries = %q", got)
	}
}

func testListBasics(t *testing.T, b *state.Backend) {
	l := mustList(t, b, "op/list")
	wantList(t, l, 2, "k", "")
	for _, e := range []string{"a", "", "ccc"} {
		must(t, l.Append(2, []byte("k"), []byte(e)))
	}
	must(t, l.Append(2, []byte("other"), []byte("x")))
	wantList(t, l, 2, "k", `"a","","ccc"`)
	wantList(t, l, 2, "other", `"x"`)
	must(t, l.Replace(2, []byte("k"), [][]byte{[]byte("z"), []byte("y")}))
	wantList(t, l, 2, "k", `"z","y"`)
	must(t, l.Clear(2, []byte("k")))
	wantList(t, l, 2, "k", "")
	must(t, l.Append(2, []byte("k"), []byte("again")))
	must(t, l.Replace(2, []byte("other"), nil))
	wantList(t, l, 2, "k", `"again"`)
	wantList(t, l, 2, "other", "")
	stop := errors.New("stop")
	if err := l.Get(2, []byte("k"), func([]byte) error { return stop }); err != stop {
		t.Errorf("Get returned %v, want the callback's error", err)
	}
}

// testListCallbackMayUseBackend writes and reads other state from inside a
// list iteration, which on a tiny cache evicts the list's cache entry.
func testListCallbackMayUseBackend(t *testing.T, b *state.Backend) {
	l, v := mustList(t, b, "op/l"), mustValue(t, b, "op/v")
	for i := range 5 {
		must(t, l.Append(0, []byte("k"), fmt.Appendf(nil, "e%d", i)))
	}
	var got []string
	must(t, l.Get(0, []byte("k"), func(elem []byte) error {
		got = append(got, string(elem))
		for i := range 5 {
			if err := v.Put(0, fmt.Appendf(nil, "v%d", i), elem); err != nil {
				return err
			}
		}
		return l.Append(0, []byte("k2"), elem)
	}))
	if want := []string{"e0", "e1", "e2", "e3", "e4"}; !slices.Equal(got, want) {
		t.Errorf("elements = %q, want %q", got, want)
	}
	wantList(t, l, 0, "k2", `"e0","e1","e2","e3","e4"`)
}

func testMapBasics(t *testing.T, b *state.Backend) {
	m := mustMap(t, b, "op/map")
	k := []byte("k")
	wantMapGet(t, m, 1, "k", "x", "", false)
	must(t, m.Put(1, k, []byte("x"), []byte("1")))
	must(t, m.Put(1, k, []byte(""), []byte("empty")))
	must(t, m.Put(1, k, []byte("x"), []byte("2")))
	wantMapGet(t, m, 1, "k", "x", "2", true)
	wantMapGet(t, m, 1, "k", "", "empty", true)
	must(t, m.Delete(1, k, []byte("x")))
	wantMapGet(t, m, 1, "k", "x", "", false)
	must(t, m.Put(1, k, []byte("y"), []byte("3")))
	must(t, m.Clear(1, k))
	if got := mapEntries(t, m, 1, "k"); got != "" {
		t.Errorf("entries after Clear = %q", got)
	}
	must(t, m.Put(1, k, []byte("z"), []byte("4")))
	if got := mapEntries(t, m, 1, "k"); got != "z=4" {
		t.Errorf("entries after Clear and Put = %q", got)
	}
}

func testMapIterOnlyThatKey(t *testing.T, b *state.Backend) {
	m, other := mustMap(t, b, "op/m"), mustMap(t, b, "op/m2")
	put := func(mm *state.Map, kg uint16, key, mk string) {
		must(t, mm.Put(kg, []byte(key), []byte(mk), []byte(key)))
	}
	for _, mk := range []string{"b", "a", "\xff", ""} {
		put(m, 5, "a", mk)
	}
	put(m, 5, "", "x")
	put(m, 5, "ab", "x")
	put(m, 5, "a\x00", "x")
	put(m, 5, "b", "x")
	put(m, 4, "a", "x")
	put(m, 6, "a", "x")
	put(other, 5, "a", "x")
	want := "=a,a=a,b=a,\xff=a"
	if got := mapEntries(t, m, 5, "a"); got != want {
		t.Errorf("entries of (5, a) = %q, want %q", got, want)
	}
	must(t, m.Clear(5, []byte("a")))
	for _, c := range []struct {
		m    *state.Map
		kg   uint16
		key  string
		want string
	}{
		{m, 5, "a", ""}, {m, 5, "", "x="}, {m, 5, "ab", "x=ab"}, {m, 5, "a\x00", "x=a\x00"},
		{m, 5, "b", "x=b"}, {m, 4, "a", "x=a"}, {m, 6, "a", "x=a"}, {other, 5, "a", "x=a"},
	} {
		if got := mapEntries(t, c.m, c.kg, c.key); got != c.want {
			t.Errorf("after Clear, entries of (%d, %q) = %q, want %q", c.kg, c.key, got, c.want)
		}
	}
}

func testMapIterCallbackMayUseBackend(t *testing.T, b *state.Backend) {
	m := mustMap(t, b, "op/m")
	k := []byte("k")
	for _, mk := range []string{"a", "b", "c"} {
		must(t, m.Put(0, k, []byte(mk), []byte(mk)))
	}
	var seen []string
	must(t, m.Iter(0, k, func(mk, _ []byte) error {
		seen = append(seen, string(mk)+":"+mapEntries(t, m, 0, "k"))
		return m.Delete(0, k, mk)
	}))
	want := []string{"a:a=a,b=b,c=c", "b:b=b,c=c", "c:c=c"}
	if !slices.Equal(seen, want) {
		t.Errorf("iteration saw %q, want %q", seen, want)
	}
}

func testScanRangeExactGroups(t *testing.T, b *state.Backend) {
	v, l, m := mustValue(t, b, "op/v"), mustList(t, b, "op/l"), mustMap(t, b, "op/m")
	const maxPar = 16
	for kg := range uint16(maxPar) {
		key := fmt.Appendf(nil, "key%d", kg)
		must(t, v.Put(kg, key, []byte("v")))
		must(t, l.Append(kg, key, []byte("e")))
		must(t, m.Put(kg, key, []byte("mk"), []byte("m")))
	}
	for par := 1; par <= 5; par++ {
		for i := range par {
			r := keygroup.RangeFor(maxPar, par, i)
			counts := map[string]int{}
			must(t, b.ScanRange(r, func(kg uint16, ns string, key, rest, _ []byte) error {
				if !r.Contains(int(kg)) || string(key) != fmt.Sprintf("key%d", kg) {
					return fmt.Errorf("range %v: got kg %d key %q", r, kg, key)
				}
				counts[ns+"/"+string(rest)]++
				return nil
			}))
			want := map[string]int{"op/v/": r.Len(), "op/l/": r.Len(), "op/m/mk": r.Len()}
			if fmt.Sprint(counts) != fmt.Sprint(want) {
				t.Errorf("range %v: entries %v, want %v", r, counts, want)
			}
		}
	}
}

// testKeyLayout pins the documented on-disk key format.
func testKeyLayout(t *testing.T, b *state.Backend) {
	m := mustMap(t, b, state.Namespace("op", "s"))
	must(t, m.Put(0x0102, []byte("key"), []byte("mk"), []byte("v")))
	start, end := state.KeyGroupSpan(keygroup.Range{Start: 0x0102, End: 0x0103})
	if string(start) != "\x01\x02" || string(end) != "\x01\x03" {
		t.Errorf("KeyGroupSpan = %x, %x", start, end)
	}
	var got []string
	must(t, b.ScanRange(keygroup.Range{Start: 0, End: keygroup.MaxParallelismLimit},
		func(kg uint16, ns string, key, rest, val []byte) error {
			got = append(got, fmt.Sprintf("%#x %s %s %s %s", kg, ns, key, rest, val))
			return nil
		}))
	if want := []string{"0x102 op/s key mk v"}; !slices.Equal(got, want) {
		t.Errorf("ScanRange = %q, want %q", got, want)
	}
}

func TestNamespaceErrors(t *testing.T) {
	b := state.New(memkv.New())
	defer b.Close()
	if _, err := b.Value("op/v"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		open func() error
	}{
		{"empty", func() error { _, err := b.Value(""); return err }},
		{"too long", func() error { _, err := b.Map(strings.Repeat("n", 256)); return err }},
		{"other kind", func() error { _, err := b.List("op/v"); return err }},
	}
	for _, tt := range tests {
		if err := tt.open(); !errors.Is(err, state.ErrInvalidNamespace) {
			t.Errorf("%s: error %v, want ErrInvalidNamespace", tt.name, err)
		}
	}
	if _, err := b.Value(strings.Repeat("n", 255)); err != nil {
		t.Errorf("255-byte namespace: %v", err)
	}
	if _, err := b.Value("op/v"); err != nil {
		t.Errorf("reopening a value state: %v", err)
	}
}

func TestCorruptState(t *testing.T) {
	store := memkv.New()
	b := state.New(store)
	defer b.Close()
	l := mustList(t, b, "op/l")
	must(t, l.Append(0, []byte("k"), []byte("elem")))
	var listKey []byte
	must(t, store.Scan(nil, nil, func(k, _ []byte) error { listKey = slices.Clone(k); return nil }))
	must(t, store.Set(listKey, []byte{0x05, 'a'}))
	must(t, store.Set([]byte{0, 1, 9, 'x'}, []byte("bad key")))
	if err := l.Get(0, []byte("k"), func([]byte) error { return nil }); !errors.Is(err, state.ErrCorrupt) {
		t.Errorf("Get of a malformed list = %v, want ErrCorrupt", err)
	}
	err := b.ScanRange(keygroup.Range{Start: 0, End: 2}, func(uint16, string, []byte, []byte, []byte) error { return nil })
	if !errors.Is(err, state.ErrCorrupt) {
		t.Errorf("ScanRange over a malformed key = %v, want ErrCorrupt", err)
	}
}

func TestHotPathDoesNotAllocate(t *testing.T) {
	for _, s := range stores[:2] {
		t.Run(s.name, func(t *testing.T) {
			b := state.New(s.open(t))
			defer b.Close()
			must(t, b.TrackSizes())
			v, m, l := mustValue(t, b, "op/v"), mustMap(t, b, "op/m"), mustList(t, b, "op/l")
			key, val := []byte("some key"), []byte("12345678")
			must(t, v.Put(7, key, val))
			must(t, m.Put(7, key, key, val))
			must(t, l.Append(7, key, val))
			noop := func([]byte) error { return nil }
			allocs := testing.AllocsPerRun(100, func() {
				_, _, _ = v.Get(7, key)
				_ = v.Put(7, key, val)
				_, _, _ = m.Get(7, key, key)
				_ = m.Put(7, key, key, val)
				_ = l.Get(7, key, noop)
			})
			if allocs != 0 {
				t.Errorf("value, map and list reads and writes allocate %v times", allocs)
			}
		})
	}
}

func mustValue(t *testing.T, b *state.Backend, ns string) *state.Value {
	t.Helper()
	v, err := b.Value(ns)
	must(t, err)
	return v
}

func mustList(t *testing.T, b *state.Backend, ns string) *state.List {
	t.Helper()
	l, err := b.List(ns)
	must(t, err)
	return l
}

func mustMap(t *testing.T, b *state.Backend, ns string) *state.Map {
	t.Helper()
	m, err := b.Map(ns)
	must(t, err)
	return m
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantValue(t *testing.T, v *state.Value, kg uint16, key, want string, wantOK bool) {
	t.Helper()
	got, ok, err := v.Get(kg, []byte(key))
	must(t, err)
	if ok != wantOK || string(got) != want {
		t.Errorf("Value.Get(%d, %q) = %q, %v; want %q, %v", kg, key, got, ok, want, wantOK)
	}
}

func wantMapGet(t *testing.T, m *state.Map, kg uint16, key, mk, want string, wantOK bool) {
	t.Helper()
	got, ok, err := m.Get(kg, []byte(key), []byte(mk))
	must(t, err)
	if ok != wantOK || string(got) != want {
		t.Errorf("Map.Get(%d, %q, %q) = %q, %v; want %q, %v", kg, key, mk, got, ok, want, wantOK)
	}
}

// wantList checks the list's elements, formatted as quoted strings joined
// by commas.
func wantList(t *testing.T, l *state.List, kg uint16, key, want string) {
	t.Helper()
	var got []string
	must(t, l.Get(kg, []byte(key), func(e []byte) error {
		got = append(got, fmt.Sprintf("%q", e))
		return nil
	}))
	if s := strings.Join(got, ","); s != want {
		t.Errorf("List.Get(%d, %q) = %s, want %s", kg, key, s, want)
	}
}

// mapEntries formats the map of key as "mk=v,mk=v".
func mapEntries(t *testing.T, m *state.Map, kg uint16, key string) string {
	t.Helper()
	var got []string
	must(t, m.Iter(kg, []byte(key), func(mk, v []byte) error {
		got = append(got, string(mk)+"="+string(v))
		return nil
	}))
	return strings.Join(got, ",")
}
