package ckmeta

import "fmt"

// EvenSplit redistributes operator list state, such as the split states of a
// source, to newParallelism subtasks. lists holds, for each old subtask in
// subtask order, the list of elements it contributed at a checkpoint; the
// result holds, for each new subtask, the list it restores.
//
// At an unchanged parallelism (len(lists) == newParallelism) new subtask i
// gets exactly old subtask i's list, in order. Otherwise the elements of all
// old lists are pooled in old-subtask order and cut into newParallelism
// contiguous runs: with T elements, new subtask i gets T/newParallelism of
// them, plus one if i < T%newParallelism. Either way every element goes to
// exactly one new subtask and the pooled order is kept.
//
// Every returned list is non-nil, possibly empty, so that a subtask that gets
// no element can tell it from having no state at all. The element slices are
// shared with lists, not copied; the outer slices are new. EvenSplit panics if
// newParallelism is less than 1.
func EvenSplit(lists [][][]byte, newParallelism int) [][][]byte {
	checkParallelism(newParallelism)
	out := make([][][]byte, newParallelism)
	if len(lists) == newParallelism {
		for i, l := range lists {
			out[i] = append(make([][]byte, 0, len(l)), l...)
		}
		return out
	}
	pool := pooled(lists)
	n, next := len(pool), 0
	for i := range out {
		share := n / newParallelism
		if i < n%newParallelism {
			share++
		}
		out[i] = append(make([][]byte, 0, share), pool[next:next+share]...)
		next += share
	}
	return out
}

// Union redistributes operator list state so that each of newParallelism
// subtasks gets every element of every old list, pooled in old-subtask order.
// As with EvenSplit, the returned lists are non-nil and new, and the element
// slices are shared. Union panics if newParallelism is less than 1.
func Union(lists [][][]byte, newParallelism int) [][][]byte {
	checkParallelism(newParallelism)
	pool := pooled(lists)
	out := make([][][]byte, newParallelism)
	for i := range out {
		out[i] = append(make([][]byte, 0, len(pool)), pool...)
	}
	return out
}

// Broadcast redistributes broadcast state so that each of newParallelism
// subtasks gets old subtask 0's list. Every subtask of an operator with a
// broadcast input received the same broadcast records before the
// checkpoint's barrier and wrote its copy from them alone, so the copies are
// equal and one suffices; pooling them, as Union does, would repeat each
// entry once per old subtask. As with EvenSplit, the returned lists are
// non-nil and new, and the element slices are shared. Broadcast panics if
// newParallelism is less than 1.
func Broadcast(lists [][][]byte, newParallelism int) [][][]byte {
	checkParallelism(newParallelism)
	var first [][]byte
	if len(lists) > 0 {
		first = lists[0]
	}
	out := make([][][]byte, newParallelism)
	for i := range out {
		out[i] = append(make([][]byte, 0, len(first)), first...)
	}
	return out
}

// pooled concatenates lists in order.
func pooled(lists [][][]byte) [][]byte {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	pool := make([][]byte, 0, n)
	for _, l := range lists {
		pool = append(pool, l...)
	}
	return pool
}

// checkParallelism panics unless p is a valid parallelism: callers validate
// parallelisms long before state is redistributed.
func checkParallelism(p int) {
	if p < 1 {
		panic(fmt.Sprintf("connector: redistributing list state to parallelism %d", p))
	}
}
