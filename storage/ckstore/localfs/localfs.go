package localfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"syscall"

	"github.com/floe-stream/floe/storage/ckstore/internal/object"
)

// Store is a checkpoint store in a local directory. It is safe for
// concurrent use, also by several processes sharing the directory.
type Store struct {
	root string // absolute and clean
}

// Open returns the store rooted at dir, which must be an absolute path. The
// directory is created by the first Put; Open fails only if dir exists and
// is not a directory, or cannot be examined.
func Open(dir string) (*Store, error) {
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("localfs: root %q is not an absolute path", dir)
	}
	s := &Store{root: filepath.Clean(dir)}
	fi, err := os.Stat(s.root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return s, nil
	case err != nil:
		return nil, fmt.Errorf("localfs: open %s: %w", s, err)
	case !fi.IsDir():
		return nil, fmt.Errorf("localfs: open %s: not a directory", s)
	}
	return s, nil
}

// String returns the store's file:// URL.
func (s *Store) String() string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(s.root)}).String()
}

// Get opens the object at p for reading. The caller must close it.
func (s *Store) Get(ctx context.Context, p string) (io.ReadCloser, error) {
	name, err := s.file(ctx, "get", p)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, s.fail("get", p, err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fs.ErrNotExist
	}
	if err != nil {
		f.Close()
		return nil, s.fail("get", p, err)
	}
	return f, nil
}

// Stat returns the size of the object at p.
func (s *Store) Stat(ctx context.Context, p string) (int64, error) {
	name, err := s.file(ctx, "stat", p)
	if err != nil {
		return 0, err
	}
	fi, err := os.Stat(name)
	if err == nil && !fi.Mode().IsRegular() {
		err = fs.ErrNotExist
	}
	if err != nil {
		return 0, s.fail("stat", p, err)
	}
	return fi.Size(), nil
}

// Delete removes the object at p, then the directories this leaves empty.
// A missing object is not an error.
func (s *Store) Delete(ctx context.Context, p string) error {
	name, err := s.file(ctx, "delete", p)
	if err != nil {
		return err
	}
	if fi, err := os.Lstat(name); err == nil && fi.IsDir() {
		return nil // a directory of other objects, not an object
	}
	switch err := os.Remove(name); {
	case missing(err):
		return nil
	case err != nil:
		return s.fail("delete", p, err)
	}
	s.removeEmptyDirs(filepath.Dir(name))
	return nil
}

// removeEmptyDirs removes dir and its parents below the root while they are
// empty. Failing is fine: the directory is in use or already gone.
func (s *Store) removeEmptyDirs(dir string) {
	for dir != s.root && len(dir) > len(s.root) {
		// NB: rmdir, not os.Remove, which would also remove a file.
		if syscall.Rmdir(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// file checks ctx and p and returns p's file name.
func (s *Store) file(ctx context.Context, op, p string) (string, error) {
	if err := object.CheckPath(p); err != nil {
		return "", fmt.Errorf("localfs: %s in %s: %w", op, s, err)
	}
	if err := ctx.Err(); err != nil {
		return "", s.fail(op, p, err)
	}
	return filepath.Join(s.root, filepath.FromSlash(p)), nil
}

// fail wraps err for op on p, adding ErrNotFound when the file is missing.
func (s *Store) fail(op, p string, err error) error {
	if missing(err) {
		return fmt.Errorf("localfs: %s %s/%s: %w", op, s, p, object.ErrNotFound)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = fmt.Errorf("%s: %w", pe.Op, pe.Err) // the path is already named
	}
	return fmt.Errorf("localfs: %s %s/%s: %w", op, s, p, err)
}

// missing reports an error that means there is no such file: it does not
// exist, or a parent of it is a file.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// GetRange implements checkpoint.RangeReader.
func (s *Store) GetRange(ctx context.Context, p string, off, n int64) (io.ReadCloser, error) {
	rc, err := s.Get(ctx, p)
	if err != nil {
		return nil, err
	}
	f := rc.(*os.File)
	return struct {
		io.Reader
		io.Closer
	}{io.NewSectionReader(f, off, n), f}, nil
}
