package keygroup_test

import (
	"fmt"

	"github.com/floe-stream/floe/storage/keygroup"
)

func Example() {
	const maxPar, par = keygroup.DefaultMaxParallelism, 3
	kg := keygroup.Of([]byte("hello"), maxPar)
	subtask := keygroup.SubtaskFor(int(kg), maxPar, par)
	fmt.Println(kg, subtask, keygroup.RangeFor(maxPar, par, subtask))
	// Output: 71 1 [43,86)
}
