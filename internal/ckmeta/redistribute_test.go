package ckmeta

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestEvenSplitGivesEveryElementToExactlyOneSubtask checks, for random list
// sizes and every pair of parallelisms 1..16, that EvenSplit keeps each
// element exactly once and in pooled order, spreads them evenly, and is the
// identity at an unchanged parallelism.
func TestEvenSplitGivesEveryElementToExactlyOneSubtask(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for oldP := 1; oldP <= 16; oldP++ {
		for newP := 1; newP <= 16; newP++ {
			for range 20 {
				lists := randomLists(r, oldP)
				got := EvenSplit(lists, newP)
				if len(got) != newP {
					t.Fatalf("%d -> %d: %d lists", oldP, newP, len(got))
				}
				if oldP == newP {
					checkIdentity(t, lists, got)
					continue
				}
				if flat := flatten(got); !slices.Equal(flat, flatten(lists)) {
					t.Fatalf("%d -> %d: pooled %q, want %q", oldP, newP, flat, flatten(lists))
				}
				checkEven(t, got)
			}
		}
	}
}

// checkIdentity fails unless got holds the lists of want, list by list.
func checkIdentity(t *testing.T, want, got [][][]byte) {
	t.Helper()
	for i := range want {
		if !slices.Equal(values(got[i]), values(want[i])) {
			t.Fatalf("unchanged parallelism %d: subtask %d got %q, want its own %q", len(want), i, values(got[i]), values(want[i]))
		}
	}
}

// checkEven fails unless the lists are non-nil and their sizes differ by at
// most one, the longer ones first.
func checkEven(t *testing.T, lists [][][]byte) {
	t.Helper()
	for i, l := range lists {
		if l == nil {
			t.Fatalf("subtask %d of %d got a nil list", i, len(lists))
		}
		if len(l) > len(lists[0]) || len(l) < len(lists[0])-1 || (i > 0 && len(l) > len(lists[i-1])) {
			t.Fatalf("uneven shares: %v", sizes(lists))
		}
	}
}

func TestUnionGivesEverySubtaskEveryElement(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for oldP := 1; oldP <= 16; oldP++ {
		for newP := 1; newP <= 16; newP++ {
			lists := randomLists(r, oldP)
			got := Union(lists, newP)
			if len(got) != newP {
				t.Fatalf("%d -> %d: %d lists", oldP, newP, len(got))
			}
			for i, l := range got {
				if l == nil || !slices.Equal(values(l), flatten(lists)) {
					t.Fatalf("%d -> %d: subtask %d got %q, want all of %q", oldP, newP, i, values(l), flatten(lists))
				}
			}
		}
	}
}

// TestBroadcastGivesEverySubtaskSubtaskZerosCopy checks that every new
// subtask gets old subtask 0's list, once, whatever the other old subtasks
// hold: their copies are the same by construction, so a pool would repeat
// each entry.
func TestBroadcastGivesEverySubtaskSubtaskZerosCopy(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for oldP := 1; oldP <= 16; oldP++ {
		for newP := 1; newP <= 16; newP++ {
			lists := randomLists(r, oldP)
			got := Broadcast(lists, newP)
			if len(got) != newP {
				t.Fatalf("%d -> %d: %d lists", oldP, newP, len(got))
			}
			for i, l := range got {
				if l == nil || !slices.Equal(values(l), values(lists[0])) {
					t.Fatalf("%d -> %d: subtask %d got %q, want subtask 0's %q", oldP, newP, i, values(l), values(lists[0]))
				}
			}
		}
	}
}

// TestRedistributionReturnsNewLists checks that appending to a returned list
// changes neither the input nor the other returned lists.
func TestRedistributionReturnsNewLists(t *testing.T) {
	for name, redistribute := range map[string]func([][][]byte, int) [][][]byte{
		"EvenSplit": EvenSplit, "Union": Union, "Broadcast": Broadcast,
	} {
		// The input lists have spare capacity that an aliasing result
		// would write into.
		lists := [][][]byte{make([][]byte, 1, 4), make([][]byte, 1, 4)}
		lists[0][0], lists[1][0] = []byte("a"), []byte("b")
		got := redistribute(lists, 2)
		for i := range got {
			got[i] = append(got[i], []byte("x"))
		}
		spare0, spare1 := lists[0][:2][1], lists[1][:2][1]
		if spare0 != nil || spare1 != nil || (name == "Union" && !slices.Equal(values(got[1]), []string{"a", "b", "x"})) {
			t.Errorf("%s: appending to a result list wrote through to another list", name)
		}
	}
}

func TestRedistributionRejectsZeroParallelism(t *testing.T) {
	for name, redistribute := range map[string]func([][][]byte, int) [][][]byte{
		"EvenSplit": EvenSplit, "Union": Union, "Broadcast": Broadcast,
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s to parallelism 0 did not panic", name)
				}
			}()
			redistribute(nil, 0)
		}()
	}
}

// Three old subtasks hold five split states; at parallelism 2 the first new
// subtask gets the first three of them, the second the last two.
func ExampleEvenSplit() {
	old := [][][]byte{
		{[]byte("a"), []byte("b")},
		{},
		{[]byte("c"), []byte("d"), []byte("e")},
	}
	for i, l := range EvenSplit(old, 2) {
		fmt.Println(i, values(l))
	}
	// Output:
	// 0 [a b c]
	// 1 [d e]
}

// randomLists returns n lists of 0 to 6 distinct elements each, sometimes
// nil, named after their old subtask and index.
func randomLists(r *rand.Rand, n int) [][][]byte {
	lists := make([][][]byte, n)
	for i := range lists {
		for k := range r.IntN(7) {
			lists[i] = append(lists[i], fmt.Appendf(nil, "%d.%d", i, k))
		}
	}
	return lists
}

func flatten(lists [][][]byte) []string {
	var out []string
	for _, l := range lists {
		out = append(out, values(l)...)
	}
	return out
}

func sizes(lists [][][]byte) []int {
	out := make([]int, len(lists))
	for i, l := range lists {
		out[i] = len(l)
	}
	return out
}
