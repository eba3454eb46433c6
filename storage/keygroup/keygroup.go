package keygroup

import (
	"errors"
	"fmt"
)

const (
	// MaxParallelismLimit is the largest supported maximum parallelism, and
	// so the number of key groups a job can have at most. It is Flink's
	// upper bound (1 << 15), which keeps a key group in two bytes.
	MaxParallelismLimit = 1 << 15
	// DefaultMaxParallelism is the maximum parallelism of a job that does
	// not choose one.
	DefaultMaxParallelism = 128
)

// ErrInvalidParallelism is wrapped by the errors of CheckParallelism.
var ErrInvalidParallelism = errors.New("invalid parallelism")

// Of returns the key group of key for a job with the given maximum
// parallelism. The caller guarantees 1 <= maxParallelism <=
// MaxParallelismLimit (see CheckParallelism).
func Of(key []byte, maxParallelism int) uint16 {
	return uint16(Hash(key) % uint32(maxParallelism))
}

// CheckParallelism reports whether an operator can run with parallelism
// subtasks in a job whose maximum parallelism is maxParallelism. The error
// wraps ErrInvalidParallelism and names the offending values.
func CheckParallelism(parallelism, maxParallelism int) error {
	switch {
	case maxParallelism < 1 || maxParallelism > MaxParallelismLimit:
		return fmt.Errorf("%w: maximum parallelism %d is outside [1, %d]",
			ErrInvalidParallelism, maxParallelism, MaxParallelismLimit)
	case parallelism < 1:
		return fmt.Errorf("%w: parallelism %d must be at least 1",
			ErrInvalidParallelism, parallelism)
	case parallelism > maxParallelism:
		return fmt.Errorf("%w: parallelism %d exceeds the maximum parallelism %d",
			ErrInvalidParallelism, parallelism, maxParallelism)
	}
	return nil
}

// RangeFor returns the key groups owned by subtask (0-based) of an operator
// running with parallelism subtasks, as Flink's
// computeKeyGroupRangeForOperatorIndex does. It panics on arguments that
// CheckParallelism rejects or on a subtask outside [0, parallelism): those
// are bugs in the caller, which validated the job when it was submitted.
func RangeFor(maxParallelism, parallelism, subtask int) Range {
	mustValid(maxParallelism, parallelism)
	if subtask < 0 || subtask >= parallelism {
		panic(fmt.Sprintf("keygroup: subtask %d outside [0, %d)", subtask, parallelism))
	}
	start := (subtask*maxParallelism + parallelism - 1) / parallelism
	lastInclusive := ((subtask+1)*maxParallelism - 1) / parallelism
	return Range{Start: start, End: lastInclusive + 1}
}

// SubtaskFor returns the subtask that owns key group kg, as Flink's
// computeOperatorIndexForKeyGroup does. It is the inverse of RangeFor and
// panics on the same invalid arguments, or on kg outside [0, maxParallelism).
func SubtaskFor(kg, maxParallelism, parallelism int) int {
	mustValid(maxParallelism, parallelism)
	if kg < 0 || kg >= maxParallelism {
		panic(fmt.Sprintf("keygroup: key group %d outside [0, %d)", kg, maxParallelism))
	}
	return kg * parallelism / maxParallelism
}

// mustValid panics if CheckParallelism rejects the arguments.
func mustValid(maxParallelism, parallelism int) {
	if err := CheckParallelism(parallelism, maxParallelism); err != nil {
		panic("keygroup: " + err.Error())
	}
}
