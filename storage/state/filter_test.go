package state_test

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/pebble/vfs"

	"github.com/floe-stream/floe/storage/keygroup"
	"github.com/floe-stream/floe/storage/kv/pebblekv"
	"github.com/floe-stream/floe/storage/snapshot"
	"github.com/floe-stream/floe/storage/state"
)

// filterKeys and filterGroups size TestPebbleStateAcrossRestoreAndRescale:
// far more keys than the caches hold, so that reads go through the key
// filter to Pebble.
const filterKeys, filterGroups = 3000, 16

// tinyPebble returns a Backend over a Pebble store whose cache holds a few
// dozen keys.
func tinyPebble(t *testing.T) *state.Backend {
	t.Helper()
	return state.New(openPebble(t, "db", pebblekv.Options{FS: vfs.NewMem(), CacheEntries: 32, MaxDirty: 8}))
}

// filterKey returns the i-th key and its key group.
func filterKey(i int) ([]byte, uint16) {
	k := []byte(fmt.Sprint("key", i))
	return k, keygroup.Of(k, filterGroups)
}

// churn applies random puts and deletes to the keys of rng in v and in
// model, and checks reads of random keys, present or not, against it.
func churn(t *testing.T, v *state.Value, model map[int]string, rng keygroup.Range, r *rand.Rand, ops int) {
	t.Helper()
	for op := range ops {
		i := r.IntN(filterKeys)
		k, kg := filterKey(i)
		if !rng.Contains(int(kg)) {
			continue
		}
		switch x := r.IntN(10); {
		case x < 4:
			val := fmt.Sprint(op)
			must(t, v.Put(kg, k, []byte(val)))
			model[i] = val
		case x < 5:
			must(t, v.Delete(kg, k))
			delete(model, i)
		default:
			want, ok := model[i]
			wantValue(t, v, kg, string(k), want, ok)
		}
	}
}

// checkAll reads every key of rng from v and compares it with model.
func checkAll(t *testing.T, v *state.Value, model map[int]string, rng keygroup.Range) {
	t.Helper()
	for i := range filterKeys {
		k, kg := filterKey(i)
		if rng.Contains(int(kg)) {
			want, ok := model[i]
			wantValue(t, v, kg, string(k), want, ok)
		}
	}
}

// TestPebbleStateAcrossRestoreAndRescale checks that Pebble stores whose
// key filters decide most misses answer every read as a map does: after
// random writes, after restoring a checkpoint chain into new stores for
// other key-group ranges (as rescaling does), after one store restores two
// ranges (scaling in), and after more writes on the restored stores.
func TestPebbleStateAcrossRestoreAndRescale(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	all := keygroup.Range{Start: 0, End: filterGroups}
	src := tinyPebble(t)
	defer src.Close()
	src.TrackChanges()
	v, err := src.Value("op/v")
	must(t, err)
	model := map[int]string{}
	var chain [][]byte
	for cp := range 4 {
		churn(t, v, model, all, r, 4000)
		var buf bytes.Buffer
		w := snapshot.NewWriter(&buf)
		must(t, src.WriteSnapshot(w, cp == 0))
		must(t, w.Close())
		chain = append(chain, buf.Bytes())
	}
	checkAll(t, v, model, all)

	halves := []keygroup.Range{{Start: 0, End: 7}, {Start: 7, End: filterGroups}}
	for _, h := range halves {
		dst := tinyPebble(t)
		restore(t, dst, chain, h)
		if h.Start == 0 {
			restore(t, dst, chain, halves[1]) // One subtask takes both halves.
			h = all
		}
		dv, err := dst.Value("op/v")
		must(t, err)
		m := maps.Clone(model)
		checkAll(t, dv, m, h)
		churn(t, dv, m, h, r, 4000)
		checkAll(t, dv, m, h)
		must(t, dst.Close())
	}
}

func restore(t *testing.T, b *state.Backend, chain [][]byte, rng keygroup.Range) {
	t.Helper()
	for _, f := range chain {
		if _, err := b.Restore(bytes.NewReader(f), int64(len(f)), rng); err != nil {
			t.Fatal(err)
		}
	}
}
