// Package placement decides which task manager runs which slot of a job.
//
// Floe shares slots as Flink does: slot i of a job runs subtask i of every
// stage that has one, so a job needs as many slots as its largest
// parallelism, and one slot holds a whole pipeline slice. Place is a pure
// function from a view of the cluster to a plan; the scheduler applies it.
package placement

import (
	"fmt"
	"sort"
)

// TaskManager is a task manager as placement sees it.
type TaskManager struct {
	ID        string
	FreeSlots int
}

// Place assigns slots slots to task managers, spreading them: each next
// slot goes to the task manager with the most free slots left (ties by id,
// so plans are deterministic). It returns the task manager of each slot, or
// an error saying how many slots are missing.
func Place(tms []TaskManager, slots int) ([]string, error) {
	free := 0
	left := make([]TaskManager, len(tms))
	copy(left, tms)
	for _, tm := range left {
		free += tm.FreeSlots
	}
	if free < slots {
		return nil, fmt.Errorf("needs %d slots, %d free on %d task managers", slots, free, len(tms))
	}
	sort.Slice(left, func(i, j int) bool { return left[i].ID < left[j].ID })
	plan := make([]string, slots)
	for s := range plan {
		best := 0
		for i := range left {
			if left[i].FreeSlots > left[best].FreeSlots {
				best = i
			}
		}
		plan[s] = left[best].ID
		left[best].FreeSlots--
	}
	return plan, nil
}
