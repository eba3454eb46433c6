package placement

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestPlaceSpreadsAndNeverOverbooks(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		var tms []TaskManager
		free := 0
		for j := 0; j < 1+r.IntN(5); j++ {
			n := r.IntN(6)
			tms = append(tms, TaskManager{ID: fmt.Sprint("tm", j), FreeSlots: n})
			free += n
		}
		slots := 1 + r.IntN(12)
		plan, err := Place(tms, slots)
		if slots > free {
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("needs %d slots, %d free", slots, free)) {
				t.Fatalf("%v with %d slots: err %v", tms, slots, err)
			}
			continue
		}
		if err != nil || len(plan) != slots {
			t.Fatalf("%v with %d slots: %v, %v", tms, slots, plan, err)
		}
		used := map[string]int{}
		for _, id := range plan {
			used[id]++
		}
		for _, tm := range tms {
			if used[tm.ID] > tm.FreeSlots {
				t.Fatalf("%v: %s overbooked: %d > %d", tms, tm.ID, used[tm.ID], tm.FreeSlots)
			}
		}
	}
}

func TestPlaceBalancesEqualTaskManagers(t *testing.T) {
	plan, err := Place([]TaskManager{{"b", 4}, {"a", 4}, {"c", 4}}, 6)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(plan, ","); got != "a,b,c,a,b,c" {
		t.Fatalf("plan %s", got)
	}
}
