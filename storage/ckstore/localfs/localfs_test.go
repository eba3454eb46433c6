package localfs_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe-stream/floe/storage/ckstore"
	"github.com/floe-stream/floe/storage/ckstore/localfs"
	"github.com/floe-stream/floe/storage/ckstore/storetest"
)

func open(t *testing.T) (*localfs.Store, string) {
	dir := filepath.Join(t.TempDir(), "store")
	s, err := localfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s, dir
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) ckstore.Store {
		s, dir := open(t)
		t.Cleanup(func() { wantNoTempFiles(t, dir) })
		return s
	})
}

// wantNoTempFiles checks that no Put left a temporary file behind.
func wantNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(name string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".floe-tmp.") {
			t.Errorf("temporary file left behind: %s", name)
		}
		return nil
	})
}

func TestListHidesTempFiles(t *testing.T) {
	s, dir := open(t)
	ctx := context.Background()
	if err := s.Put(ctx, "chk/a", strings.NewReader("a"), 1); err != nil {
		t.Fatal(err)
	}
	// What a crash in the middle of a Put leaves.
	if err := os.WriteFile(filepath.Join(dir, "chk", ".floe-tmp.12345"), []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := s.List(ctx, "")
	if err != nil || len(got) != 1 || got[0] != "chk/a" {
		t.Fatalf("List = %q, %v; want [chk/a]", got, err)
	}
}

func TestDeleteRemovesEmptyDirs(t *testing.T) {
	s, dir := open(t)
	ctx := context.Background()
	for _, p := range []string{"chk-1/op-0/1.sst", "chk-1/op-1/2.sst", "chk-2/m"} {
		if err := s.Put(ctx, p, strings.NewReader("x"), 1); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"chk-1/op-0/1.sst", "chk-1/op-1/2.sst"} {
		if err := s.Delete(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "chk-1")); !os.IsNotExist(err) {
		t.Errorf("chk-1 still there after deleting its objects: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "chk-2", "m")); err != nil {
		t.Errorf("chk-2/m: %v", err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("root removed: %v", err)
	}
}

func TestOpen(t *testing.T) {
	if _, err := localfs.Open("relative/dir"); err == nil {
		t.Error("Open of a relative path succeeded")
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := localfs.Open(file); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("Open of a file: error = %v, want 'not a directory'", err)
	}
	s, dir := open(t)
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("Open created the directory: %v", err)
	}
	if want := "file://" + filepath.ToSlash(dir); s.String() != want {
		t.Errorf("String() = %q, want %q", s.String(), want)
	}
}

func TestCreatesRoot(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not", "yet", "there")
	s, err := localfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(context.Background(), "chk-1/m", strings.NewReader("m"), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "chk-1", "m")); err != nil {
		t.Error(err)
	}
}

func TestPathConflict(t *testing.T) {
	s, _ := open(t)
	ctx := context.Background()
	if err := s.Put(ctx, "a/b", strings.NewReader("x"), 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "a", strings.NewReader("x"), 1); err == nil {
		t.Error("Put of a path that is a directory succeeded")
	}
	if err := s.Put(ctx, "a/b/c", strings.NewReader("x"), 1); err == nil {
		t.Error("Put below an object succeeded")
	}
}
