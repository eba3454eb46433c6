package jobspec

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// FieldError is one problem with a job spec. Parse and Load return the
// problems of a spec joined by errors.Join, so errors.As finds the first and
// the Unwrap() []error method of the joined error lists them all.
type FieldError struct {
	// File is the spec's path when it was read by Load, else empty.
	File string
	// Line is the 1-based line of the spec the problem is at, or 0 when it
	// has none (a missing section, a --set flag).
	Line int
	// Path is the field path, such as operators[2].module, or empty for a
	// problem with the document as a whole.
	Path string
	// Msg says what is wrong.
	Msg string
}

// Error formats the problem as "file:line: path: msg", leaving out the
// parts that are unknown.
func (e *FieldError) Error() string {
	var b strings.Builder
	switch {
	case e.File != "" && e.Line > 0:
		fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	case e.File != "":
		fmt.Fprintf(&b, "%s: ", e.File)
	case e.Line > 0:
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// problems collects the FieldErrors of one spec. It knows the line of every
// field path that the shape phase saw, and which paths were rejected so that
// later phases stay silent about them.
type problems struct {
	file  string
	list  []*FieldError
	lines map[string]int
	bad   map[string]bool
	// secrets holds the values of the secret parameters, which no message
	// may repeat: a secret substituted into a field that rejects it would
	// otherwise be quoted back.
	secrets []string
}

func newProblems(file string) *problems {
	return &problems{file: file, lines: map[string]int{}, bad: map[string]bool{}}
}

// add records a problem at path, unless path lies inside a rejected field.
func (p *problems) add(path, format string, args ...any) {
	p.at(p.lineOf(path), path, format, args...)
}

// at is add for a problem whose line is known better than by its path.
func (p *problems) at(line int, path, format string, args ...any) {
	if p.rejected(path) {
		return
	}
	msg := redact(fmt.Sprintf(format, args...), p.secrets)
	p.list = append(p.list, &FieldError{File: p.file, Line: line, Path: path, Msg: msg})
}

// reject records a problem at path and silences any later one inside it.
func (p *problems) reject(path, format string, args ...any) {
	p.add(path, format, args...)
	p.bad[path] = true
}

// rejected reports whether path or one of its ancestors was rejected.
func (p *problems) rejected(path string) bool {
	for ; path != ""; path = parent(path) {
		if p.bad[path] {
			return true
		}
	}
	return false
}

// lineOf returns the line of path, or of its nearest ancestor with a known
// line, or 0.
func (p *problems) lineOf(path string) int {
	for ; path != ""; path = parent(path) {
		if line, ok := p.lines[path]; ok {
			return line
		}
	}
	return 0
}

// parent returns the path of the field that holds path: operators[2] for
// operators[2].module, operators for operators[2].
func parent(path string) string {
	return path[:max(strings.LastIndexAny(path, ".["), 0)]
}

// err returns the collected problems sorted by line, those without a line
// last, or nil when there are none.
func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	slices.SortStableFunc(p.list, func(a, b *FieldError) int { return cmp.Compare(sortLine(a), sortLine(b)) })
	errs := make([]error, len(p.list))
	for i, e := range p.list {
		errs[i] = e
	}
	return errors.Join(errs...)
}

func sortLine(e *FieldError) int {
	if e.Line == 0 {
		return math.MaxInt
	}
	return e.Line
}

// join formats names as an English list: "a", "a or b", "a, b or c".
func join(names []string, conj string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + conj + " " + names[len(names)-1]
}
