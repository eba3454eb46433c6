package state_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/floe-stream/floe/storage/keygroup"
	"github.com/floe-stream/floe/storage/kv"
	"github.com/floe-stream/floe/storage/kv/memkv"
	"github.com/floe-stream/floe/storage/kv/pebblekv"
	"github.com/floe-stream/floe/storage/snapshot"
	"github.com/floe-stream/floe/storage/state"
)

// dump renders every entry of the key groups in r.
func dump(t *testing.T, b *state.Backend, r keygroup.Range) string {
	t.Helper()
	var sb bytes.Buffer
	err := b.ScanRange(r, func(kg uint16, ns string, key, rest, val []byte) error {
		fmt.Fprintf(&sb, "%d/%s/%s/%s=%x\n", kg, ns, key, rest, val)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

// TestSnapshotChainsRestoreEveryCheckpoint changes state at random, takes a
// full snapshot and then deltas (a full one again at the sixth), each
// written only after more changes, and checks that restoring the chain up
// to each snapshot, for any range of key groups, gives exactly the state
// of those key groups when the snapshot was taken.
//
// It runs on memkv, whose changes the Backend tracks, and on pebblekv, which
// tracks them itself (kv.ChangeTracker), with a cache so small that changed
// keys are evicted before the snapshot reports them.
func TestSnapshotChainsRestoreEveryCheckpoint(t *testing.T) {
	for _, store := range []struct {
		name string
		open func(t *testing.T) kv.Store
	}{
		{"memkv", func(*testing.T) kv.Store { return memkv.New() }},
		{"pebblekv", func(t *testing.T) kv.Store {
			s, err := pebblekv.Open(t.TempDir(), pebblekv.Options{CacheEntries: 8, MaxDirty: 4})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}},
	} {
		t.Run(store.name, func(t *testing.T) {
			src := state.New(store.open(t))
			defer src.Close()
			testSnapshotChains(t, src)
		})
	}
}

func testSnapshotChains(t *testing.T, src *state.Backend) {
	r := rand.New(rand.NewPCG(5, 6))
	src.TrackChanges()
	val, _ := src.Value("op/v")
	lst, _ := src.List("op/l")
	mp, _ := src.Map("op/m")
	change := func(n int) {
		for i := 0; i < n; i++ {
			key := []byte(fmt.Sprint("k", r.IntN(40)))
			kg := keygroup.Of(key, 16)
			switch r.IntN(7) {
			case 0, 1:
				must(t, val.Put(kg, key, []byte(fmt.Sprint(i))))
			case 2:
				must(t, val.Delete(kg, key))
			case 3:
				must(t, lst.Append(kg, key, []byte(fmt.Sprint(i))))
			case 4:
				must(t, mp.Put(kg, key, []byte(fmt.Sprint("mk", r.IntN(5))), []byte(fmt.Sprint(i))))
			case 5:
				must(t, mp.Clear(kg, key))
			case 6:
				must(t, mp.Delete(kg, key, []byte(fmt.Sprint("mk", r.IntN(5)))))
			}
		}
	}
	ranges := []keygroup.Range{{Start: 0, End: 16}, {Start: 0, End: 5}, {Start: 5, End: 11}, {Start: 11, End: 16}}
	var chain [][]byte
	for cp := 0; cp < 8; cp++ {
		change(300)
		// The state is taken, then changed before it is written, as a
		// task writes snapshots while it processes records: the file
		// must hold the state as taken.
		c, err := src.TakeSnapshot(cp == 0 || cp == 5)
		must(t, err)
		var want []string
		for _, rng := range ranges {
			want = append(want, dump(t, src, rng))
		}
		change(50)
		var buf bytes.Buffer
		w := snapshot.NewWriter(&buf)
		must(t, c.Write(w))
		must(t, w.Close())
		chain = append(chain, buf.Bytes())
		if cp == 5 {
			chain = chain[len(chain)-1:]
		}
		for i, rng := range ranges {
			dst := state.New(memkv.New())
			for _, f := range chain {
				if _, err := dst.Restore(bytes.NewReader(f), int64(len(f)), rng); err != nil {
					t.Fatal(err)
				}
			}
			if got := dump(t, dst, keygroup.Range{Start: 0, End: 16}); got != want[i] {
				t.Fatalf("checkpoint %d, key groups %v: restored\n%s\nwant\n%s", cp, rng, got, want[i])
			}
		}
	}
	if len(chain[len(chain)-1]) >= len(chain[0])*2 {
		t.Logf("delta %d bytes, full %d", len(chain[len(chain)-1]), len(chain[0]))
	}
}
