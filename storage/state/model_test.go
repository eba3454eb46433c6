package state_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/floe-stream/floe/storage/keygroup"
	"github.com/floe-stream/floe/storage/state"
)

// The random operations draw from small sets so that they collide often.
var (
	modelKGs  = []uint16{0, 1, 2, 127, 128}
	modelKeys = []string{"", "a", "ab", "a\x00", "b"}
	modelMKs  = []string{"", "x", "xy", "y"}
)

// slot identifies the state of one key.
type slot struct {
	kg      uint16
	ns, key string
}

// model is the expected content of a Backend, kept in Go maps.
type model struct {
	values map[slot]string
	lists  map[slot][]string
	maps   map[slot]map[string]string
}

// handles are the states the random operations use, two of each kind.
type handles struct {
	values []*state.Value
	lists  []*state.List
	maps   []*state.Map
}

func testMatchesModel(t *testing.T, b *state.Backend) {
	h := handles{
		values: []*state.Value{mustValue(t, b, "op/v1"), mustValue(t, b, "op/v2")},
		lists:  []*state.List{mustList(t, b, "op/l1"), mustList(t, b, "op/l2")},
		maps:   []*state.Map{mustMap(t, b, "op/m1"), mustMap(t, b, "op/m2")},
	}
	m := model{values: map[slot]string{}, lists: map[slot][]string{}, maps: map[slot]map[string]string{}}
	rng := rand.New(rand.NewPCG(5, 8))
	for i := range 3000 {
		if err := step(b, h, m, rng); err != nil {
			t.Fatalf("op %d: %v", i, err)
		}
		if i%500 == 499 {
			checkScanRange(t, b, m, rng)
		}
	}
}

// step applies one random operation to the Backend and the model, or
// compares one read.
func step(b *state.Backend, h handles, m model, rng *rand.Rand) error {
	kg := modelKGs[rng.IntN(len(modelKGs))]
	key := modelKeys[rng.IntN(len(modelKeys))]
	switch n := rng.IntN(2); rng.IntN(4) {
	case 0:
		return valueStep(h.values[n], m, slot{kg, fmt.Sprintf("op/v%d", n+1), key}, rng)
	case 1:
		return listStep(h.lists[n], m, slot{kg, fmt.Sprintf("op/l%d", n+1), key}, rng)
	case 2:
		return mapStep(h.maps[n], m, slot{kg, fmt.Sprintf("op/m%d", n+1), key}, rng)
	default:
		if rng.IntN(10) == 0 {
			return b.Flush()
		}
		return nil
	}
}

func valueStep(v *state.Value, m model, s slot, rng *rand.Rand) error {
	k := []byte(s.key)
	switch rng.IntN(3) {
	case 0:
		val := fmt.Sprint(rng.IntN(1000))
		m.values[s] = val
		return v.Put(s.kg, k, []byte(val))
	case 1:
		delete(m.values, s)
		return v.Delete(s.kg, k)
	}
	got, ok, err := v.Get(s.kg, k)
	want, wantOK := m.values[s]
	if err == nil && (ok != wantOK || string(got) != want) {
		err = fmt.Errorf("Value.Get(%v) = %q, %v; want %q, %v", s, got, ok, want, wantOK)
	}
	return err
}

func listStep(l *state.List, m model, s slot, rng *rand.Rand) error {
	k := []byte(s.key)
	switch rng.IntN(5) {
	case 0, 1:
		e := strings.Repeat("e", rng.IntN(3))
		m.lists[s] = append(m.lists[s], e)
		return l.Append(s.kg, k, []byte(e))
	case 2:
		delete(m.lists, s)
		return l.Clear(s.kg, k)
	case 3:
		elems := []string{"r1", "", "r3"}[:rng.IntN(4)]
		m.lists[s] = elems
		if len(elems) == 0 {
			delete(m.lists, s)
		}
		bs := make([][]byte, len(elems))
		for i, e := range elems {
			bs[i] = []byte(e)
		}
		return l.Replace(s.kg, k, bs)
	}
	var got []string
	err := l.Get(s.kg, k, func(e []byte) error { got = append(got, string(e)); return nil })
	if err == nil && !slices.Equal(got, m.lists[s]) {
		err = fmt.Errorf("List.Get(%v) = %q, want %q", s, got, m.lists[s])
	}
	return err
}

func mapStep(mp *state.Map, m model, s slot, rng *rand.Rand) error {
	k, mk := []byte(s.key), modelMKs[rng.IntN(len(modelMKs))]
	switch rng.IntN(6) {
	case 0, 1:
		val := fmt.Sprint(rng.IntN(1000))
		if m.maps[s] == nil {
			m.maps[s] = map[string]string{}
		}
		m.maps[s][mk] = val
		return mp.Put(s.kg, k, []byte(mk), []byte(val))
	case 2:
		delete(m.maps[s], mk)
		return mp.Delete(s.kg, k, []byte(mk))
	case 3:
		delete(m.maps, s)
		return mp.Clear(s.kg, k)
	case 4:
		got, ok, err := mp.Get(s.kg, k, []byte(mk))
		want, wantOK := m.maps[s][mk]
		if err == nil && (ok != wantOK || string(got) != want) {
			err = fmt.Errorf("Map.Get(%v, %q) = %q, %v; want %q, %v", s, mk, got, ok, want, wantOK)
		}
		return err
	}
	var got []string
	err := mp.Iter(s.kg, k, func(mk, v []byte) error { got = append(got, string(mk)+"="+string(v)); return nil })
	var want []string
	for _, mk := range slices.Sorted(maps.Keys(m.maps[s])) {
		want = append(want, mk+"="+m.maps[s][mk])
	}
	if err == nil && !slices.Equal(got, want) {
		err = fmt.Errorf("Map.Iter(%v) = %q, want %q", s, got, want)
	}
	return err
}

// checkScanRange compares ScanRange over all key groups and over a random
// range with the model. List values are compared by presence only.
func checkScanRange(t *testing.T, b *state.Backend, m model, rng *rand.Rand) {
	t.Helper()
	lo := rng.IntN(130)
	for _, r := range []keygroup.Range{{Start: 0, End: keygroup.MaxParallelismLimit}, {Start: lo, End: lo + rng.IntN(130)}} {
		got := map[string]string{}
		must(t, b.ScanRange(r, func(kg uint16, ns string, key, rest, val []byte) error {
			if strings.HasPrefix(ns, "op/l") {
				val = nil
			}
			got[fmt.Sprintf("%d|%s|%q|%q", kg, ns, key, rest)] = string(val)
			return nil
		}))
		if want := m.entries(r); !maps.Equal(got, want) {
			t.Fatalf("ScanRange(%v) =\n%q\nwant\n%q", r, got, want)
		}
	}
}

// entries returns what ScanRange(r) should report, formatted as
// checkScanRange does.
func (m model) entries(r keygroup.Range) map[string]string {
	out := map[string]string{}
	add := func(s slot, rest, val string) {
		if r.Contains(int(s.kg)) {
			out[fmt.Sprintf("%d|%s|%q|%q", s.kg, s.ns, s.key, rest)] = val
		}
	}
	for s, v := range m.values {
		add(s, "", v)
	}
	for s := range m.lists {
		add(s, "", "")
	}
	for s, mm := range m.maps {
		for mk, v := range mm {
			add(s, mk, v)
		}
	}
	return out
}
