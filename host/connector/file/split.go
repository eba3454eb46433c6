package file

import (
	"math/bits"

	"github.com/floe-stream/floe/host/connector"
)

// splitRange returns the byte range [start, end) of a file of size bytes in
// which the lines of split start. The ranges of all subtasks of a parallelism
// tile [0, size) in subtask order.
func splitRange(size int64, split connector.SplitInfo) (start, end int64) {
	return scale(size, split.Subtask, split.Parallelism), scale(size, split.Subtask+1, split.Parallelism)
}

// scale returns size*i/n rounded down, for 0 <= i <= n, without overflowing
// however large size is.
func scale(size int64, i, n int) int64 {
	hi, lo := bits.Mul64(uint64(size), uint64(i))
	q, _ := bits.Div64(hi, lo, uint64(n)) // NB: i <= n, so the quotient fits.
	return int64(q)
}
