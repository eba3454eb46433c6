package keygroup

import (
	"errors"
	"math/rand/v2"
	"testing"
)

func TestCheckParallelism(t *testing.T) {
	tests := []struct {
		par, maxPar int
		ok          bool
	}{
		{1, 1, true},
		{4, 128, true},
		{128, 128, true},
		{MaxParallelismLimit, MaxParallelismLimit, true},
		{0, 128, false},
		{-1, 128, false},
		{129, 128, false},
		{1, 0, false},
		{1, MaxParallelismLimit + 1, false},
	}
	for _, tt := range tests {
		err := CheckParallelism(tt.par, tt.maxPar)
		if (err == nil) != tt.ok {
			t.Errorf("CheckParallelism(%d, %d) = %v, want ok=%v", tt.par, tt.maxPar, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalidParallelism) {
			t.Errorf("CheckParallelism(%d, %d) = %v, does not wrap ErrInvalidParallelism", tt.par, tt.maxPar, err)
		}
	}
}

// The expected ranges follow Flink's KeyGroupRangeAssignment by hand.
func TestRangeForKnownValues(t *testing.T) {
	tests := []struct {
		maxPar, par, subtask int
		want                 Range
	}{
		{128, 1, 0, Range{0, 128}},
		{128, 2, 1, Range{64, 128}},
		{128, 3, 0, Range{0, 43}},
		{128, 3, 1, Range{43, 86}},
		{128, 3, 2, Range{86, 128}},
		{10, 4, 0, Range{0, 3}},
		{10, 4, 1, Range{3, 5}},
		{10, 4, 2, Range{5, 8}},
		{10, 4, 3, Range{8, 10}},
		{5, 5, 4, Range{4, 5}},
	}
	for _, tt := range tests {
		if got := RangeFor(tt.maxPar, tt.par, tt.subtask); got != tt.want {
			t.Errorf("RangeFor(%d, %d, %d) = %v, want %v", tt.maxPar, tt.par, tt.subtask, got, tt.want)
		}
	}
}

func TestRangeForPanicsOnBadArguments(t *testing.T) {
	tests := []struct {
		name string
		call func()
	}{
		{"parallelism above max", func() { RangeFor(4, 5, 0) }},
		{"subtask too large", func() { RangeFor(128, 4, 4) }},
		{"negative subtask", func() { RangeFor(128, 4, -1) }},
		{"key group too large", func() { SubtaskFor(128, 128, 4) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("did not panic")
				}
			}()
			tt.call()
		})
	}
}

// sampleMaxParallelisms returns every maximum parallelism in 1..256 and a
// few large ones.
func sampleMaxParallelisms() []int {
	var out []int
	for m := 1; m <= 256; m++ {
		out = append(out, m)
	}
	return append(out, 1000, MaxParallelismLimit)
}

// sampleParallelisms returns every parallelism up to maxPar when that is
// cheap, otherwise the small ones, the large ones and a random sample.
func sampleParallelisms(maxPar int, rng *rand.Rand) []int {
	if maxPar <= 1000 {
		out := make([]int, maxPar)
		for i := range out {
			out[i] = i + 1
		}
		return out
	}
	var out []int
	for p := 1; p <= 64; p++ {
		out = append(out, p, maxPar-p+1)
	}
	for range 64 {
		out = append(out, 1+rng.IntN(maxPar))
	}
	return out
}

func TestRangesTileKeyGroups(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, maxPar := range sampleMaxParallelisms() {
		for _, par := range sampleParallelisms(maxPar, rng) {
			checkTiling(t, maxPar, par)
		}
	}
}

// checkTiling verifies that the ranges of all subtasks are contiguous,
// disjoint and cover [0, maxPar) exactly once, and that SubtaskFor agrees.
func checkTiling(t *testing.T, maxPar, par int) {
	t.Helper()
	next := 0
	for i := range par {
		r := RangeFor(maxPar, par, i)
		if r.Start != next || r.Len() < 1 {
			t.Fatalf("max %d par %d: subtask %d has range %v after end %d", maxPar, par, i, r, next)
		}
		for kg := r.Start; kg < r.End; kg++ {
			if got := SubtaskFor(kg, maxPar, par); got != i {
				t.Fatalf("max %d par %d: SubtaskFor(%d) = %d, but RangeFor(%d) = %v", maxPar, par, kg, got, i, r)
			}
		}
		next = r.End
	}
	if next != maxPar {
		t.Fatalf("max %d par %d: ranges end at %d", maxPar, par, next)
	}
}

func TestRescaleIntersectionsCoverOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for maxPar := 1; maxPar <= 40; maxPar++ {
		for oldPar := 1; oldPar <= maxPar; oldPar++ {
			for newPar := 1; newPar <= maxPar; newPar++ {
				checkRescale(t, maxPar, oldPar, newPar)
			}
		}
	}
	for _, maxPar := range []int{128, 1000, MaxParallelismLimit} {
		for range 30 {
			checkRescale(t, maxPar, 1+rng.IntN(maxPar), 1+rng.IntN(min(maxPar, 300)))
		}
	}
}

// checkRescale verifies that, going from oldPar to newPar, each new subtask
// collects each of its key groups from exactly one old subtask.
func checkRescale(t *testing.T, maxPar, oldPar, newPar int) {
	t.Helper()
	seen := make([]int, maxPar)
	for n := range newPar {
		nr := RangeFor(maxPar, newPar, n)
		for o := range oldPar {
			part := Intersect(RangeFor(maxPar, oldPar, o), nr)
			for kg := part.Start; kg < part.End; kg++ {
				if !nr.Contains(kg) {
					t.Fatalf("max %d %d->%d: key group %d outside new range %v", maxPar, oldPar, newPar, kg, nr)
				}
				seen[kg]++
			}
		}
	}
	for kg, n := range seen {
		if n != 1 {
			t.Fatalf("max %d %d->%d: key group %d restored %d times", maxPar, oldPar, newPar, kg, n)
		}
	}
}

func TestRange(t *testing.T) {
	tests := []struct {
		a, b      Range
		intersect Range
	}{
		{Range{0, 10}, Range{5, 20}, Range{5, 10}},
		{Range{5, 20}, Range{0, 10}, Range{5, 10}},
		{Range{0, 5}, Range{5, 10}, Range{5, 5}},
		{Range{8, 10}, Range{0, 3}, Range{8, 8}},
		{Range{0, 128}, Range{43, 86}, Range{43, 86}},
	}
	for _, tt := range tests {
		got := Intersect(tt.a, tt.b)
		if got != tt.intersect {
			t.Errorf("Intersect(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.intersect)
		}
	}
	r := Range{3, 7}
	if r.Len() != 4 || (Range{7, 3}).Len() != 0 {
		t.Errorf("Len wrong: %d, %d", r.Len(), (Range{7, 3}).Len())
	}
	if r.String() != "[3,7)" {
		t.Errorf("String() = %q", r.String())
	}
	for kg, want := range map[int]bool{2: false, 3: true, 6: true, 7: false} {
		if r.Contains(kg) != want {
			t.Errorf("%v.Contains(%d) = %v", r, kg, !want)
		}
	}
}
