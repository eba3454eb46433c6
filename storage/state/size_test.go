package state_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/pebble/vfs"

	"github.com/floe-stream/floe/storage/keygroup"
	"github.com/floe-stream/floe/storage/kv"
	"github.com/floe-stream/floe/storage/kv/pebblekv"
	"github.com/floe-stream/floe/storage/snapshot"
	"github.com/floe-stream/floe/storage/state"
)

// TestSizeOf checks the size of each operator's state after scripted
// writes against sizes worked out by hand from the key layout: a store key
// is 2 bytes of key group, 1 of namespace length, the namespace, a uvarint
// length of the user key, the user key and the map key.
func TestSizeOf(t *testing.T) {
	// Store keys of value and list state of user key "k" (1 byte): 2+1+len(ns)+1+1.
	const kOpV = 2 + 1 + 3 + 1 + 1 // namespace "a/v"
	tests := []struct {
		name string
		run  func(t *testing.T, b *state.Backend)
		want map[string]state.Size
	}{
		{"insert", func(t *testing.T, b *state.Backend) {
			v := mustValue(t, b, "a/v")
			must(t, v.Put(1, []byte("k"), []byte("12")))
			must(t, v.Put(2, []byte("j"), []byte("123")))
		}, map[string]state.Size{"a": {2, kOpV + 2 + kOpV + 3}, "b": {}}},
		{"overwrite longer and shorter", func(t *testing.T, b *state.Backend) {
			v := mustValue(t, b, "a/v")
			must(t, v.Put(1, []byte("k"), []byte("12")))
			must(t, v.Put(1, []byte("k"), []byte("12345")))
			must(t, v.Put(1, []byte("k"), []byte("1")))
		}, map[string]state.Size{"a": {1, kOpV + 1}}},
		{"delete present and absent", func(t *testing.T, b *state.Backend) {
			v := mustValue(t, b, "a/v")
			must(t, v.Put(1, []byte("k"), []byte("12")))
			must(t, v.Put(1, []byte("j"), []byte("12")))
			must(t, v.Delete(1, []byte("k")))
			must(t, v.Delete(1, []byte("k")))
			must(t, v.Delete(1, []byte("never")))
		}, map[string]state.Size{"a": {1, kOpV + 2}}},
		{"list is one entry", func(t *testing.T, b *state.Backend) {
			l := mustList(t, b, "a/l")
			must(t, l.Append(1, []byte("k"), []byte("x")))
			must(t, l.Append(1, []byte("k"), []byte("yz")))
		}, map[string]state.Size{"a": {1, kOpV + (1 + 1) + (1 + 2)}}},
		{"map entries and clear", func(t *testing.T, b *state.Backend) {
			m := mustMap(t, b, "b/m")
			must(t, m.Put(1, []byte("k"), []byte("m1"), []byte("v")))
			must(t, m.Put(1, []byte("k"), []byte("m2"), []byte("v")))
			must(t, m.Put(1, []byte("j"), []byte("m1"), []byte("v")))
			must(t, m.Clear(1, []byte("k")))
		}, map[string]state.Size{"b": {1, kOpV + 2 + 1}}},
		{"host namespaces count, a prefix is not a uid", func(t *testing.T, b *state.Backend) {
			must(t, mustValue(t, b, "a#t").Put(1, []byte("k"), []byte("1")))
			must(t, mustValue(t, b, "ab#t").Put(1, []byte("k"), []byte("1")))
			must(t, mustValue(t, b, "a").Put(1, []byte("k"), []byte("1")))
		}, map[string]state.Size{"a": {1, kOpV + 1}, "ab": {1, kOpV + 2}, "": {}}},
		{"operators apart, a prefix is not a uid", func(t *testing.T, b *state.Backend) {
			must(t, mustValue(t, b, "a/v").Put(1, []byte("k"), []byte("1")))
			must(t, mustValue(t, b, "a/w").Put(1, []byte("k"), []byte("1")))
			must(t, mustValue(t, b, "ab/v").Put(1, []byte("k"), []byte("1")))
			must(t, mustValue(t, b, "b/v").Put(1, []byte("k"), []byte("1")))
		}, map[string]state.Size{"a": {2, 2 * (kOpV + 1)}, "ab": {1, kOpV + 2}, "b": {1, kOpV + 1}, "": {}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runOnAllStores(t, func(t *testing.T, b *state.Backend) {
				must(t, b.TrackSizes())
				tt.run(t, b)
				for uid, want := range tt.want {
					if got := b.SizeOf(uid); got != want {
						t.Errorf("SizeOf(%q) = %+v, want %+v", uid, got, want)
					}
				}
			})
		})
	}
}

// TestSizeOfMatchesScan makes random writes, many more keys than the tiny
// caches hold so that entries are evicted to Pebble and overwritten and
// deleted blindly there, and checks SizeOf against a scan of the store
// after every round, after a snapshot is restored into a fresh store, and
// after a store is reopened on its files.
func TestSizeOfMatchesScan(t *testing.T) {
	for _, s := range stores {
		t.Run(s.name, func(t *testing.T) {
			store := s.open(t)
			b := state.New(store)
			defer b.Close()
			must(t, b.TrackSizes())
			r := rand.New(rand.NewPCG(1, 2))
			val, lst, mp := mustValue(t, b, "a/v"), mustList(t, b, "a/l"), mustMap(t, b, "b/m")
			for round := range 5 {
				for i := range 400 {
					key := fmt.Appendf(nil, "k%d", r.IntN(120))
					kg := keygroup.Of(key, 16)
					switch r.IntN(7) {
					case 0, 1:
						must(t, val.Put(kg, key, bytes.Repeat([]byte("v"), r.IntN(20))))
					case 2:
						must(t, val.Delete(kg, key))
					case 3:
						must(t, lst.Append(kg, key, fmt.Append(nil, i)))
					case 4:
						must(t, mp.Put(kg, key, fmt.Appendf(nil, "mk%d", r.IntN(5)), fmt.Append(nil, i)))
					case 5:
						must(t, mp.Clear(kg, key))
					case 6:
						must(t, mp.Delete(kg, key, fmt.Appendf(nil, "mk%d", r.IntN(5))))
					}
				}
				wantSizes(t, fmt.Sprint("round ", round), b, store)
			}

			var buf bytes.Buffer
			w := snapshot.NewWriter(&buf)
			must(t, b.WriteSnapshot(w, true))
			must(t, w.Close())
			dstStore := s.open(t)
			dst := state.New(dstStore)
			defer dst.Close()
			must(t, dst.TrackSizes())
			if _, err := dst.Restore(bytes.NewReader(buf.Bytes()), int64(buf.Len()), keygroup.Range{Start: 0, End: 16}); err != nil {
				t.Fatal(err)
			}
			for _, uid := range []string{"a", "b"} {
				if got, want := dst.SizeOf(uid), b.SizeOf(uid); got != want {
					t.Errorf("restored SizeOf(%q) = %+v, want the source's %+v", uid, got, want)
				}
			}
			wantSizes(t, "restored", dst, dstStore)
		})
	}
}

// TestSizeOfAfterReopen checks that TrackSizes counts what a reopened
// pebble store already holds.
func TestSizeOfAfterReopen(t *testing.T) {
	fs := vfs.NewMem()
	b := state.New(openPebble(t, "db", pebblekv.Options{FS: fs}))
	v := mustValue(t, b, "a/v")
	for i := range 10 {
		must(t, v.Put(uint16(i), fmt.Append(nil, i), []byte("x")))
	}
	must(t, b.Close())
	store := openPebble(t, "db", pebblekv.Options{FS: fs})
	b = state.New(store)
	defer b.Close()
	must(t, b.TrackSizes())
	// Ten keys of one digit: 2+1+3+1+1 bytes of store key and 1 of value.
	if got, want := b.SizeOf("a"), (state.Size{Keys: 10, Bytes: 10 * 9}); got != want {
		t.Errorf("SizeOf after reopening = %+v, want %+v", got, want)
	}
	wantSizes(t, "reopened", b, store)
}

// wantSizes checks SizeOf of operators "a" and "b" against a scan of
// store, which counts the entries whose namespace starts with the uid and a
// slash, and their key and value bytes.
func wantSizes(t *testing.T, when string, b *state.Backend, store kv.Store) {
	t.Helper()
	want := map[string]state.Size{}
	must(t, store.Scan(nil, nil, func(k, v []byte) error {
		uid, _, _ := bytes.Cut(k[3:3+int(k[2])], []byte("/"))
		sz := want[string(uid)]
		sz.Keys++
		sz.Bytes += int64(len(k) + len(v))
		want[string(uid)] = sz
		return nil
	}))
	for _, uid := range []string{"a", "b"} {
		if got := b.SizeOf(uid); got != want[uid] {
			t.Errorf("%s: SizeOf(%q) = %+v, want %+v from a scan", when, uid, got, want[uid])
		}
	}
}
