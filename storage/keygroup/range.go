package keygroup

import "fmt"

// Range is the half-open interval [Start, End) of key groups. A Range with
// End <= Start is empty.
type Range struct {
	Start, End int
}

// Contains reports whether key group kg is in r.
func (r Range) Contains(kg int) bool {
	return kg >= r.Start && kg < r.End
}

// Len returns the number of key groups in r.
func (r Range) Len() int {
	return max(r.End-r.Start, 0)
}

// String formats r as "[start,end)".
func (r Range) String() string {
	return fmt.Sprintf("[%d,%d)", r.Start, r.End)
}

// Intersect returns the key groups that are in both a and b. When they do
// not overlap the result is empty (Len() == 0) and starts where the later
// of the two starts. Restoring after a rescale uses it to find which part
// of an old subtask's state a new subtask takes over.
func Intersect(a, b Range) Range {
	start := max(a.Start, b.Start)
	end := min(a.End, b.End)
	return Range{Start: start, End: max(start, end)}
}
