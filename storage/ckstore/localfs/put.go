package localfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/floe-stream/floe/storage/ckstore/internal/object"
)

// createRetries bounds how often Put recreates a directory that a
// concurrent Delete removed between Put's mkdir and its create.
const createRetries = 5

// Put writes the object at p from r: to a temporary file that it fsyncs and
// renames over p. size is r's length, or -1 if unknown; a reader of another
// length fails the Put with ErrSizeMismatch. On any error nothing is left at
// p: the previous object, if any, is unchanged.
func (s *Store) Put(ctx context.Context, p string, r io.Reader, size int64) error {
	name, err := s.file(ctx, "put", p)
	if err != nil {
		return err
	}
	if err := s.put(ctx, name, object.ExactReader(r, size)); err != nil {
		return s.fail("put", p, err)
	}
	return nil
}

func (s *Store) put(ctx context.Context, name string, r io.Reader) error {
	dir := filepath.Dir(name)
	f, err := s.createTemp(dir)
	if err != nil {
		return err
	}
	tmp := f.Name()
	if err := writeAll(ctx, f, r); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, name); err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(dir)
}

// createTemp creates a temporary file in dir, creating dir first.
func (s *Store) createTemp(dir string) (*os.File, error) {
	for i := 0; ; i++ {
		if err := s.mkdirAll(dir); err != nil {
			return nil, err
		}
		f, err := os.CreateTemp(dir, object.TempPrefix+"*")
		if err == nil || !errors.Is(err, fs.ErrNotExist) || i == createRetries {
			return f, err
		}
	}
}

// writeAll copies r to f, makes it durable and closes f.
func writeAll(ctx context.Context, f *os.File, r io.Reader) error {
	if _, err := io.Copy(f, ctxReader{ctx, r}); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	return f.Close()
}

// mkdirAll creates dir and its missing parents below the root, fsyncing
// each new directory's parent so that the directory survives a crash.
func (s *Store) mkdirAll(dir string) error {
	fi, err := os.Stat(dir)
	if err == nil {
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a directory", dir)
		}
		return nil
	}
	if dir == s.root {
		// The root's parents are not the store's business: create them as
		// needed, but only the root's own entry is made durable.
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		return syncDir(filepath.Dir(dir))
	}
	if err := s.mkdirAll(filepath.Dir(dir)); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return syncDir(filepath.Dir(dir))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// ctxReader stops a copy once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
