package kvtest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/floe-stream/floe/storage/kv"
)

// modelOps is how many random operations testMatchesModel applies.
const modelOps = 20000

// testMatchesModel applies random operations to the store and to a Go map
// and checks that every read agrees. The key space is small so that keys
// are often overwritten, deleted and rewritten.
func testMatchesModel(t *testing.T, s kv.Store) {
	rng := rand.New(rand.NewPCG(7, 11))
	model := map[string]string{}
	for i := range modelOps {
		if err := modelStep(s, model, rng); err != nil {
			t.Fatalf("op %d: %v", i, err)
		}
	}
	if err := checkScan(s, model, "", ""); err != nil {
		t.Fatal(err)
	}
}

// randKey returns one of a few hundred keys of varying length.
func randKey(rng *rand.Rand) string {
	return fmt.Sprintf("%03x", rng.IntN(300))[:1+rng.IntN(3)]
}

// modelStep applies one random operation to both and compares reads.
func modelStep(s kv.Store, model map[string]string, rng *rand.Rand) error {
	k := randKey(rng)
	switch op := rng.IntN(100); {
	case op < 40:
		v := strings.Repeat("v", rng.IntN(20))
		model[k] = v
		return s.Set([]byte(k), []byte(v))
	case op < 55:
		delete(model, k)
		return s.Delete([]byte(k))
	case op < 57:
		start, end := orderedPair(k, randKey(rng))
		for mk := range model {
			if mk >= start && mk < end {
				delete(model, mk)
			}
		}
		return s.DeleteRange([]byte(start), []byte(end))
	case op < 60:
		start, end := orderedPair(k, randKey(rng))
		return checkScan(s, model, start, end)
	case op < 61:
		return s.Flush()
	default:
		return checkGet(s, model, k)
	}
}

// orderedPair returns a and b in ascending order.
func orderedPair(a, b string) (string, string) {
	return min(a, b), max(a, b)
}

// checkGet compares Get(k) with the model.
func checkGet(s kv.Store, model map[string]string, k string) error {
	got, ok, err := s.Get([]byte(k))
	if err != nil {
		return err
	}
	want, wantOK := model[k]
	if ok != wantOK || string(got) != want {
		return fmt.Errorf("Get(%q) = %q, %v; want %q, %v", k, got, ok, want, wantOK)
	}
	return nil
}

// checkScan compares Scan(start, end) with the model; an empty end means
// no upper bound.
func checkScan(s kv.Store, model map[string]string, start, end string) error {
	var keys []string
	for k := range model {
		if k >= start && (end == "" || k < end) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	want := make([]string, 0, len(keys))
	for _, k := range keys {
		want = append(want, k+"="+model[k])
	}
	var got []string
	var e []byte
	if end != "" {
		e = []byte(end)
	}
	err := s.Scan([]byte(start), e, func(k, v []byte) error {
		got = append(got, string(k)+"="+string(v))
		return nil
	})
	if err != nil {
		return err
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("Scan(%q, %q) = %q, want %q", start, end, got, want)
	}
	return nil
}
