package confine

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Roots are the directories a job may read and write below. The nil
// *Roots, and one made from no directory, restricts nothing. A Roots is
// read-only once made and safe for concurrent use.
type Roots struct {
	// dirs are the roots as given, and resolved the same roots resolved
	// (Resolve), in the same order.
	dirs, resolved []string
}

// New returns the roots dirs, each resolved now: a root that is a link, or
// lies below one, is the directory the link leads to. A root need not
// exist yet. No directory at all gives the Roots that restricts nothing.
func New(dirs []string) (*Roots, error) {
	r := &Roots{}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		res, err := Resolve(d)
		if err != nil {
			return nil, fmt.Errorf("allowed path %q: %w", d, err)
		}
		r.dirs = append(r.dirs, d)
		r.resolved = append(r.resolved, res)
	}
	return r, nil
}

// ParseList splits a comma-separated list of directories, as the
// --allowed-paths flag takes them, dropping blanks.
func ParseList(s string) []string {
	var out []string
	for _, d := range strings.Split(s, ",") {
		if d = strings.TrimSpace(d); d != "" {
			out = append(out, d)
		}
	}
	return out
}

// Restricted reports whether r restricts anything.
func (r *Roots) Restricted() bool { return r != nil && len(r.dirs) > 0 }

// Dirs returns the roots as given to New.
func (r *Roots) Dirs() []string {
	if r == nil {
		return nil
	}
	return append([]string(nil), r.dirs...)
}

// ErrOutside is wrapped by the error of a path outside the roots.
var ErrOutside = errors.New("outside the allowed paths")

// OutsideError is a path that lies outside every root.
type OutsideError struct {
	// Path is the path as the caller gave it; Resolved is where it leads.
	Path, Resolved string
	// Roots are the roots as given to New.
	Roots []string
}

func (e *OutsideError) Error() string {
	msg := fmt.Sprintf("%q is outside the allowed paths (%s)", e.Path, strings.Join(e.Roots, ", "))
	if abs, err := filepath.Abs(e.Path); err != nil || abs != e.Resolved {
		msg += fmt.Sprintf(": it leads to %q", e.Resolved)
	}
	return msg
}

// Unwrap makes an OutsideError match ErrOutside.
func (e *OutsideError) Unwrap() error { return ErrOutside }

// Check resolves path (Resolve) and returns where it leads. The error is
// an *OutsideError when that lies outside every root, or says why path
// cannot be resolved; either way it quotes path. Unrestricted roots
// refuse nothing: they return path resolved, or only made absolute when
// it cannot be resolved.
func (r *Roots) Check(path string) (string, error) {
	res, err := Resolve(path)
	if !r.Restricted() {
		if err != nil {
			// NB: nothing is refused without roots, not even a path that
			// cannot be resolved; opening it will say what is wrong.
			return filepath.Abs(path)
		}
		return res, nil
	}
	if err != nil {
		return "", err
	}
	for _, root := range r.resolved {
		if Within(root, res) {
			return res, nil
		}
	}
	return "", &OutsideError{Path: path, Resolved: res, Roots: r.Dirs()}
}

// Within reports whether path is root or lies below it. Both are taken as
// clean absolute paths, compared component by component: /data2 is not
// within /data.
func Within(root, path string) bool {
	if path == root {
		return true
	}
	prefix := root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return strings.HasPrefix(path, prefix)
}
