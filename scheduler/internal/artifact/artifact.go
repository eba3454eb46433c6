// Package artifact stores Wasm modules by the SHA-256 of their bytes, so a
// module uploaded twice is stored once and a task manager that has fetched
// a digest never needs to fetch it again.
package artifact

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
)

// ErrNotFound is returned for a digest the store does not hold.
var ErrNotFound = errors.New("artifact not found")

var digestRE = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Store is a directory of artifacts named by digest. It is safe for
// concurrent use: files are written under a temporary name and renamed.
type Store struct{ dir string }

// Open opens (creating) the store in dir.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("artifact store: %w", err)
	}
	return &Store{dir: dir}, nil
}

// Digest returns the hex SHA-256 of b.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Put stores b and returns its digest.
func (s *Store) Put(b []byte) (string, error) {
	d := Digest(b)
	path := s.path(d)
	if _, err := os.Stat(path); err == nil {
		return d, nil
	}
	tmp, err := os.CreateTemp(s.dir, "upload-*")
	if err != nil {
		return "", err
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return d, os.Rename(tmp.Name(), path)
}

// path returns where the artifact with digest d is (or would be) stored.
// The caller has checked d against digestRE: it names a file.
func (s *Store) path(d string) string { return filepath.Join(s.dir, d+".wasm") }

// Get returns the bytes of digest d.
func (s *Store) Get(d string) ([]byte, error) {
	if !digestRE.MatchString(d) {
		return nil, fmt.Errorf("%w: %q is not a SHA-256 digest", ErrNotFound, d)
	}
	b, err := os.ReadFile(s.path(d))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, d)
	}
	return b, err
}

// Has reports whether the store holds digest d.
func (s *Store) Has(d string) bool {
	if !digestRE.MatchString(d) {
		return false
	}
	_, err := os.Stat(s.path(d))
	return err == nil
}

// Delete removes the artifact of digest d; deleting one the store does not
// hold is no error.
func (s *Store) Delete(d string) error {
	if !digestRE.MatchString(d) {
		return fmt.Errorf("%w: %q is not a SHA-256 digest", ErrNotFound, d)
	}
	if err := os.Remove(s.path(d)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
