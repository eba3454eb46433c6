package kvtest

import (
	"math/rand/v2"
	"testing"

	"github.com/floe-stream/floe/storage/kv"
)

// totals is a kv.Observer that adds up what it is told.
type totals struct {
	keys, bytes int64
	// noops counts calls that reported no change, which the contract
	// rules out.
	noops int
}

func (o *totals) Resized(_ []byte, keys, bytes int) {
	if keys == 0 && bytes == 0 {
		o.noops++
	}
	o.keys += int64(keys)
	o.bytes += int64(bytes)
}

// testObservedMatchesModel checks a kv.Observable store's reports: Observe
// counts what the store holds already, and after random operations the
// reported keys and bytes are those of a Go map given the same
// operations. Stores that are not Observable skip it.
func testObservedMatchesModel(t *testing.T, s kv.Store) {
	o, ok := s.(kv.Observable)
	if !ok {
		t.Skip("the store is not a kv.Observable")
	}
	model := map[string]string{"pre": "existing", "pre2": ""}
	for k, v := range model {
		mustSet(t, s, k, v)
	}
	var got totals
	must(t, o.Observe(&got))
	if want := modelTotals(model); got.keys != want.keys || got.bytes != want.bytes {
		t.Fatalf("Observe reported %d keys of %d bytes already stored, want %d and %d", got.keys, got.bytes, want.keys, want.bytes)
	}
	rng := rand.New(rand.NewPCG(3, 5))
	for i := range modelOps {
		if err := modelStep(s, model, rng); err != nil {
			t.Fatalf("op %d: %v", i, err)
		}
		if i%1000 == 999 {
			if want := modelTotals(model); got.keys != want.keys || got.bytes != want.bytes {
				t.Fatalf("after op %d: reported %d keys of %d bytes, want %d and %d", i, got.keys, got.bytes, want.keys, want.bytes)
			}
		}
	}
	if got.noops > 0 {
		t.Errorf("the observer was called %d times for writes that changed nothing", got.noops)
	}
}

// modelTotals counts the model's keys and their key and value bytes.
func modelTotals(model map[string]string) totals {
	var tt totals
	for k, v := range model {
		tt.keys++
		tt.bytes += int64(len(k) + len(v))
	}
	return tt
}
