package state_test

import (
	"encoding/binary"
	"fmt"

	"github.com/floe-stream/floe/storage/keygroup"
	"github.com/floe-stream/floe/storage/kv/memkv"
	"github.com/floe-stream/floe/storage/state"
)

// Example counts words in a value state and then reads the state of one
// subtask's key groups, as a snapshot would.
func Example() {
	b := state.New(memkv.New())
	defer b.Close()
	counts, err := b.Value(state.Namespace("wordcount", "counts"))
	if err != nil {
		panic(err)
	}
	for _, w := range []string{"to", "be", "or", "not", "to", "be"} {
		key := []byte(w)
		kg := keygroup.Of(key, keygroup.DefaultMaxParallelism)
		cur, _, err := counts.Get(kg, key)
		if err != nil {
			panic(err)
		}
		var n uint64
		if cur != nil {
			n = binary.BigEndian.Uint64(cur)
		}
		if err := counts.Put(kg, key, binary.BigEndian.AppendUint64(nil, n+1)); err != nil {
			panic(err)
		}
	}
	all := keygroup.RangeFor(keygroup.DefaultMaxParallelism, 1, 0)
	err = b.ScanRange(all, func(kg uint16, ns string, key, _, val []byte) error {
		fmt.Printf("%s %s=%d\n", ns, key, binary.BigEndian.Uint64(val))
		return nil
	})
	if err != nil {
		panic(err)
	}
	// Unordered output:
	// wordcount/counts to=2
	// wordcount/counts be=2
	// wordcount/counts or=1
	// wordcount/counts not=1
}
