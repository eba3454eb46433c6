package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxLinks bounds the symbolic links Resolve follows in one path, as the
// kernel's ELOOP does.
const maxLinks = 255

// Resolve returns the absolute path that opening path would reach: cleaned,
// relative to the working directory when not absolute, with every symbolic
// link along it followed. A link that dangles is followed too, since
// creating a file through it would create its target. Components that do
// not exist are joined on as they are ("a/missing/../b" is a/b, which may
// itself be a link). It fails for an empty path, for a loop of links, and
// when a component cannot be examined (no permission), since what lies
// behind it is unknown.
func Resolve(path string) (string, error) {
	if path == "" {
		return "", errors.New("empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	sep := string(filepath.Separator)
	resolved := filepath.VolumeName(abs) + sep
	rest := split(abs[len(resolved):])
	links := 0
	for len(rest) > 0 {
		name := rest[0]
		rest = rest[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, name)
		fi, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotDir):
			// Nothing there, so nothing to follow: the rest is
			// resolved lexically below it.
			resolved = next
			continue
		case err != nil:
			return "", fmt.Errorf("resolving %q: %w", path, err)
		case fi.Mode()&fs.ModeSymlink == 0:
			resolved = next
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("resolving %q: too many levels of symbolic links", path)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("resolving %q: %w", path, err)
		}
		if filepath.IsAbs(target) {
			resolved = filepath.VolumeName(target) + sep
			target = target[len(resolved):]
		}
		rest = append(split(target), rest...)
	}
	return resolved, nil
}

// split returns the components of a relative path.
func split(p string) []string {
	return strings.Split(filepath.ToSlash(p), "/")
}
