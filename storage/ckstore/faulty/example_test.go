package faulty_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/floe-stream/floe/storage/ckstore"
	"github.com/floe-stream/floe/storage/ckstore/faulty"
)

// A checkpoint whose metadata upload fails must not appear complete.
func Example() {
	dir, err := os.MkdirTemp("", "floe-faulty")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	inner, err := ckstore.Open(ctx, dir, ckstore.Options{})
	if err != nil {
		log.Fatal(err)
	}
	store := faulty.New(inner)
	store.FailNext(faulty.OpPut, "chk-*/_metadata", errors.New("connection reset"))

	for _, p := range []string{"chk-1/state.sst", "chk-1/_metadata"} {
		if err := store.Put(ctx, p, strings.NewReader("..."), 3); err != nil {
			fmt.Println(strings.TrimPrefix(err.Error(), "faulty: "))
		}
	}
	paths, _ := store.List(ctx, "")
	fmt.Println(paths)
	// Output:
	// put "chk-1/_metadata": connection reset
	// [chk-1/state.sst]
}
