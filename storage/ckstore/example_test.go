package ckstore_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/floe-stream/floe/storage/ckstore"
)

func Example() {
	dir, err := os.MkdirTemp("", "floe-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	// "s3://bucket/prefix" works the same, with Options or AWS_* variables.
	store, err := ckstore.Open(ctx, "file://"+filepath.ToSlash(dir), ckstore.Options{})
	if err != nil {
		log.Fatal(err)
	}
	// The files of checkpoint 7, then its metadata, last.
	for _, p := range []string{"chk-7/op-1/000001.sst", "chk-7/sources", "chk-7/_metadata"} {
		if err := store.Put(ctx, p, strings.NewReader("data of "+p), -1); err != nil {
			log.Fatal(err)
		}
	}
	paths, err := store.List(ctx, "chk-7/")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(paths)

	r, err := store.Get(ctx, "chk-7/_metadata")
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	meta, err := io.ReadAll(r)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(meta))
	// Output:
	// [chk-7/_metadata chk-7/op-1/000001.sst chk-7/sources]
	// data of chk-7/_metadata
}
