package pebblekv_test

import (
	"fmt"

	"github.com/cockroachdb/pebble/vfs"

	"github.com/floe-stream/floe/storage/kv/pebblekv"
)

func Example() {
	s, err := pebblekv.Open("state", pebblekv.Options{FS: vfs.NewMem(), CacheEntries: 1 << 16})
	if err != nil {
		panic(err)
	}
	defer s.Close()
	if err := s.Set([]byte("k"), []byte("v")); err != nil {
		panic(err)
	}
	v, ok, err := s.Get([]byte("k"))
	fmt.Println(string(v), ok, err)
	// Output: v true <nil>
}
