package localfs

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/floe-stream/floe/storage/ckstore/internal/object"
)

// List returns the paths of all objects that start with prefix, in
// ascending byte order. The prefix is a plain string prefix: "a/b" matches
// "a/b/c" and "a/bc"; "a/b/" matches only the former.
func (s *Store) List(ctx context.Context, prefix string) ([]string, error) {
	if err := object.CheckPrefix(prefix); err != nil {
		return nil, fmt.Errorf("localfs: list in %s: %w", s, err)
	}
	// Only the directory that holds the prefix's last element can hold
	// matches.
	start := filepath.Join(s.root, filepath.FromSlash(path.Dir(prefix)))
	var paths []string
	err := filepath.WalkDir(start, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			if missing(err) {
				return nil // gone, or never there: no objects
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(s.root, name)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case strings.HasPrefix(d.Name(), object.TempPrefix):
			return nil
		case d.IsDir():
			if rel != "." && !canMatch(rel+"/", prefix) {
				return fs.SkipDir
			}
		case d.Type().IsRegular() && strings.HasPrefix(rel, prefix):
			paths = append(paths, rel)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("localfs: list %s/%s: %w", s, prefix, err)
	}
	slices.Sort(paths)
	return paths, nil
}

// canMatch reports whether a path in directory dir (ending in "/") can start
// with prefix.
func canMatch(dir, prefix string) bool {
	return strings.HasPrefix(dir, prefix) || strings.HasPrefix(prefix, dir)
}
