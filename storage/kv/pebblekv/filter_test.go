package pebblekv

import (
	"fmt"
	"hash/maphash"
	"testing"
)

// TestKeyFilterHasNoFalseNegatives adds keys across several growths of the
// filter and checks that every one is reported as maybe present, and that
// few keys that were never added are.
func TestKeyFilterHasNoFalseNegatives(t *testing.T) {
	const n = 3*filterFirstKeys + 12345 // Three parts, the last partly full.
	f := newKeyFilter(0, maphash.MakeSeed())
	for i := range n {
		f.add(fmt.Appendf(nil, "k%d", i))
	}
	if len(f.parts) != 2 && len(f.parts) != 3 {
		t.Fatalf("filter of %d keys has %d parts", n, len(f.parts))
	}
	for i := range n {
		if k := fmt.Appendf(nil, "k%d", i); !f.mayContain(k) {
			t.Fatalf("added key %q reported absent", k)
		}
	}
	const probes = 200_000
	fp := 0
	for i := range probes {
		if f.mayContain(fmt.Appendf(nil, "absent%d", i)) {
			fp++
		}
	}
	// Each full part alone answers wrongly for about 0.03% of absent
	// keys, and the parts' rates add up. (At 14 bits per key, 0.5%.)
	if rate := float64(fp) / probes; rate > 0.002 {
		t.Errorf("%.3f%% of absent keys reported maybe present, want under 0.2%%", 100*rate)
	}
}

// TestKeyFilterTurnsOffPastItsCap checks that a filter that reaches its
// memory cap says maybe for every key instead of growing.
func TestKeyFilterTurnsOffPastItsCap(t *testing.T) {
	f := newKeyFilter(filterFirstKeys*filterBitsPerKey/8*2, maphash.MakeSeed()) // Room for the first part only.
	for i := range filterFirstKeys + 1 {
		f.add(fmt.Appendf(nil, "k%d", i))
	}
	if !f.off || f.bytes != 0 || len(f.parts) != 0 {
		t.Fatalf("filter past its cap: off=%v, %d bytes in %d parts", f.off, f.bytes, len(f.parts))
	}
	if !f.mayContain([]byte("never added")) {
		t.Error("a filter that is off reported a key absent")
	}
}

// TestKeyFilterCapacityOfBudgets checks how many keys the filter of a
// store's default share of each budget Budget gives holds before it turns
// off, as docs/jobs.md states them: more bits per key must not make the
// filter of a large state turn off sooner.
func TestKeyFilterCapacityOfBudgets(t *testing.T) {
	for _, tc := range []struct {
		budget  int64
		minKeys int
	}{
		{64 << 20, 7 << 20},
		{128 << 20, 15 << 20},
		{DefaultMemoryBytes, 31 << 20},
		{MaxBudget, 63 << 20},
	} {
		o, _ := Options{MemoryBytes: tc.budget}.withDefaults()
		f := newKeyFilter(o.FilterBytes, maphash.MakeSeed())
		keys := 0
		for f.grow() {
			keys += f.parts[len(f.parts)-1].capacity
		}
		if keys < tc.minKeys {
			t.Errorf("budget %d MiB: filter of %d MiB holds %d keys, want at least %d", tc.budget>>20, o.FilterBytes>>20, keys, tc.minKeys)
		}
	}
}
