package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/floe-stream/floe/storage/ckstore"
)

// Opener opens a fresh, empty store for one test and registers cleanups
// (t.Cleanup) for whatever it started.
type Opener func(t *testing.T) ckstore.Store

// LargeSize is the size of the suite's large objects: above the 16 MiB at
// which S3 stores switch to multipart uploads by default.
const LargeSize = 20 << 20

// Run runs every conformance test against stores made by open, each as a
// subtest that checks it leaves no goroutine behind. Subtests do not run in
// parallel.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		run  func(t *testing.T, s ckstore.Store)
	}{
		{"RoundTrip", testRoundTrip},
		{"Large", testLarge},
		{"Overwrite", testOverwrite},
		{"NotFound", testNotFound},
		{"Delete", testDelete},
		{"ListOrder", testListOrder},
		{"ListPrefix", testListPrefix},
		{"InvalidPath", testInvalidPath},
		{"SizeMismatch", testSizeMismatch},
		{"FailedPut", testFailedPut},
		{"UnfinishedPutInvisible", testUnfinishedPutInvisible},
		{"ConcurrentPuts", testConcurrentPuts},
		{"ConcurrentPutsSamePath", testConcurrentPutsSamePath},
		{"Cancelled", testCancelled},
		{"String", testString},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, open(t))
		})
	}
}

func testRoundTrip(t *testing.T, s ckstore.Store) {
	for _, size := range []int{0, 1, 1000, 256 << 10} {
		for _, known := range []bool{true, false} {
			p := fmt.Sprintf("chk-1/op-%d/%t.sst", size, known)
			data := payload(uint64(size), size)
			mustPut(t, s, p, data, known)
			wantObject(t, s, p, data)
		}
	}
	mustPut(t, s, "top", []byte("level"), true)
	wantObject(t, s, "top", []byte("level"))
}

func testLarge(t *testing.T, s ckstore.Store) {
	data := payload(1, LargeSize)
	for _, known := range []bool{true, false} {
		p := fmt.Sprintf("large-%t", known)
		mustPut(t, s, p, data, known)
		wantObject(t, s, p, data)
	}
}

func testOverwrite(t *testing.T, s ckstore.Store) {
	for i, data := range [][]byte{payload(1, 5000), []byte("short"), {}, payload(2, 70000)} {
		mustPut(t, s, "d/obj", data, i%2 == 0)
		wantObject(t, s, "d/obj", data)
	}
	wantList(t, s, "", []string{"d/obj"})
}

func testNotFound(t *testing.T, s ckstore.Store) {
	wantAbsent(t, s, "missing")
	wantAbsent(t, s, "no/such/dir/obj")
	mustPut(t, s, "a/b", []byte("x"), true)
	wantAbsent(t, s, "a")   // a directory, for some stores
	wantAbsent(t, s, "a/c") // a sibling
	wantAbsent(t, s, "a/b/c")
}

func testDelete(t *testing.T, s ckstore.Store) {
	ctx := context.Background()
	mustPut(t, s, "x/y/z", []byte("z"), true)
	mustPut(t, s, "x/keep", []byte("keep"), true)
	for range 2 { // deleting a deleted object is fine
		if err := s.Delete(ctx, "x/y/z"); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		wantAbsent(t, s, "x/y/z")
	}
	for _, p := range []string{"never", "x/y", "x", "x/keep/under"} {
		if err := s.Delete(ctx, p); err != nil {
			t.Errorf("Delete(%q) of no object: %v", p, err)
		}
	}
	wantObject(t, s, "x/keep", []byte("keep"))
	mustPut(t, s, "x/y/z", []byte("again"), true)
	wantObject(t, s, "x/y/z", []byte("again"))
	wantList(t, s, "", []string{"x/keep", "x/y/z"})
}

// listPaths are put in this order; "-" and "." sort before "/", which sorts
// before letters, so a directory walk's order is not byte order.
var listPaths = []string{
	"b", "a/b/x", "a/bc", "a/b-c", "a/b/y/z", "a/b0", "a.txt", "A", "é/1", "a/b.d/1", "chk-10/m", "chk-2/m", "chk-1/m",
}

func testListOrder(t *testing.T, s ckstore.Store) {
	wantList(t, s, "", nil)
	for _, p := range listPaths {
		mustPut(t, s, p, []byte(p), true)
	}
	wantList(t, s, "", slices.Sorted(slices.Values(listPaths)))
}

func testListPrefix(t *testing.T, s ckstore.Store) {
	for _, p := range listPaths {
		mustPut(t, s, p, []byte(p), false)
	}
	for _, tt := range []struct {
		prefix string
		want   []string
	}{
		{"a/b/", []string{"a/b/x", "a/b/y/z"}},
		{"a/b", []string{"a/b-c", "a/b.d/1", "a/b/x", "a/b/y/z", "a/b0", "a/bc"}},
		{"a/bc", []string{"a/bc"}},
		{"a/b/x", []string{"a/b/x"}},
		{"a/b/x/", nil},
		{"a/b/x/deeper/", nil},
		{"a/b/y", []string{"a/b/y/z"}},
		{"a", []string{"a.txt", "a/b-c", "a/b.d/1", "a/b/x", "a/b/y/z", "a/b0", "a/bc"}},
		{"a/", []string{"a/b-c", "a/b.d/1", "a/b/x", "a/b/y/z", "a/b0", "a/bc"}},
		{"chk-1", []string{"chk-1/m", "chk-10/m"}},
		{"chk-1/", []string{"chk-1/m"}},
		{"é", []string{"é/1"}},
		{"zzz", nil},
		{"zzz/", nil},
	} {
		wantList(t, s, tt.prefix, tt.want)
	}
}

func testInvalidPath(t *testing.T, s ckstore.Store) {
	ctx := context.Background()
	for _, p := range []string{"", "/abs", "dir/", "a//b", "./a", "a/../b", "..", "a\\b", "a\x00b", ".floe-tmp.123"} {
		if err := s.Put(ctx, p, bytes.NewReader(nil), 0); !errors.Is(err, ckstore.ErrInvalidPath) {
			t.Errorf("Put(%q) error = %v, want ErrInvalidPath", p, err)
		}
		if _, err := s.Get(ctx, p); !errors.Is(err, ckstore.ErrInvalidPath) {
			t.Errorf("Get(%q) error = %v, want ErrInvalidPath", p, err)
		}
		if _, err := s.Stat(ctx, p); !errors.Is(err, ckstore.ErrInvalidPath) {
			t.Errorf("Stat(%q) error = %v, want ErrInvalidPath", p, err)
		}
		if err := s.Delete(ctx, p); !errors.Is(err, ckstore.ErrInvalidPath) {
			t.Errorf("Delete(%q) error = %v, want ErrInvalidPath", p, err)
		}
	}
	for _, prefix := range []string{"/", "/a", "a//", "../", "a/./"} {
		if _, err := s.List(ctx, prefix); !errors.Is(err, ckstore.ErrInvalidPath) {
			t.Errorf("List(%q) error = %v, want ErrInvalidPath", prefix, err)
		}
	}
	wantList(t, s, "", nil)
}

func testSizeMismatch(t *testing.T, s ckstore.Store) {
	ctx := context.Background()
	mustPut(t, s, "keep", []byte("old"), true)
	for _, tt := range []struct {
		name string
		data []byte
		size int64
	}{
		{"short", payload(1, 100), 101},
		{"long", payload(1, 100), 99},
		{"empty-but-not", []byte("x"), 0},
		{"large-long", payload(2, LargeSize+1), LargeSize},
		{"large-short", payload(2, LargeSize-1), LargeSize},
	} {
		for _, p := range []string{"new-" + tt.name, "keep"} {
			err := s.Put(ctx, p, onlyReader{bytes.NewReader(tt.data)}, tt.size)
			if !errors.Is(err, ckstore.ErrSizeMismatch) {
				t.Errorf("%s: Put(%q) error = %v, want ErrSizeMismatch", tt.name, p, err)
			}
		}
		wantAbsent(t, s, "new-"+tt.name)
		wantObject(t, s, "keep", []byte("old"))
	}
	wantList(t, s, "", []string{"keep"})
}

func testFailedPut(t *testing.T, s ckstore.Store) {
	ctx := context.Background()
	old := []byte("previous checkpoint")
	mustPut(t, s, "keep", old, true)
	boom := errors.New("upload source failed")
	data := payload(3, LargeSize)
	for _, after := range []int{0, 100, 12 << 20} {
		for _, known := range []bool{true, false} {
			for _, p := range []string{fmt.Sprintf("new-%d-%t", after, known), "keep"} {
				r := &failingReader{data: data, n: after, err: boom}
				if err := s.Put(ctx, p, r, sizeArg(data, known)); !errors.Is(err, boom) {
					t.Errorf("Put(%q) failing after %d bytes: error = %v, want %v", p, after, err, boom)
				}
			}
			wantAbsent(t, s, fmt.Sprintf("new-%d-%t", after, known))
			wantObject(t, s, "keep", old)
		}
	}
	wantList(t, s, "", []string{"keep"})
}

func testString(t *testing.T, s ckstore.Store) {
	if s.String() == "" {
		t.Error("String() is empty")
	}
}
