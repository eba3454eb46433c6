// Package object holds the rules that every checkpoint store shares: which
// paths are valid, the sentinel errors callers act on, and the reader that
// holds a Put to its declared size. The checkpoint package re-exports the
// errors; the stores import this package because they cannot import
// checkpoint, which imports them.
package object

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Sentinel errors, re-exported by package checkpoint.
var (
	ErrNotFound     = errors.New("not found")
	ErrInvalidPath  = errors.New("invalid path")
	ErrSizeMismatch = errors.New("size mismatch")
)

// TempPrefix starts the names of the temporary files a local Put writes.
// No path element may start with it, so a temporary file can never be
// mistaken for an object.
const TempPrefix = ".floe-tmp."

// Limits on paths, the tighter of what local file systems (255-byte names)
// and S3 (1024-byte keys, which also hold the store's prefix) accept.
const (
	maxPathLen    = 768
	maxElementLen = 255
)

// CheckPath reports whether p is a valid object path: non-empty, relative,
// slash-separated elements that are neither empty, "." nor "..", do not start
// with TempPrefix, and hold only printable UTF-8 without backslashes. The
// error wraps ErrInvalidPath.
func CheckPath(p string) error {
	if err := checkPath(p); err != nil {
		return fmt.Errorf("%w %q: %s", ErrInvalidPath, p, err)
	}
	return nil
}

func checkPath(p string) error {
	switch {
	case p == "":
		return errors.New("empty")
	case len(p) > maxPathLen:
		return fmt.Errorf("longer than %d bytes", maxPathLen)
	case !utf8.ValidString(p):
		return errors.New("not UTF-8")
	case strings.ContainsFunc(p, badRune):
		return errors.New("contains a control character or backslash")
	}
	for elem := range strings.SplitSeq(p, "/") {
		if err := checkElement(elem); err != nil {
			return err
		}
	}
	return nil
}

func checkElement(elem string) error {
	switch {
	case elem == "":
		return errors.New("empty element (leading, trailing or double slash)")
	case elem == "." || elem == "..":
		return fmt.Errorf("element %q", elem)
	case strings.HasPrefix(elem, TempPrefix):
		return fmt.Errorf("element starts with the reserved %q", TempPrefix)
	case len(elem) > maxElementLen:
		return fmt.Errorf("element longer than %d bytes", maxElementLen)
	}
	return nil
}

func badRune(r rune) bool {
	return r < 0x20 || r == 0x7f || r == '\\'
}

// CheckPrefix reports whether p is a valid List prefix: empty, or a string
// that some valid path starts with, such as "chk-1/" or "chk-1/sst-0". The
// error wraps ErrInvalidPath.
func CheckPrefix(p string) error {
	if p == "" || checkPath(p+"x") == nil {
		return nil
	}
	return fmt.Errorf("%w: prefix %q: no valid path starts with it", ErrInvalidPath, p)
}
