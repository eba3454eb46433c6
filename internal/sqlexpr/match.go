package sqlexpr

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/floe-stream/floe/internal/sqlrow"
)

// The wildcards of a compiled LIKE pattern, below every rune.
const (
	anyRun  = -1 // %
	anyRune = -2 // _
)

// likePattern compiles a LIKE pattern: % and _ become wildcards unless
// the escape character (esc, "" for none) precedes them; an escaped
// character stands for itself.
func likePattern(p, esc string) ([]rune, error) {
	if utf8.RuneCountInString(esc) > 1 {
		return nil, fmt.Errorf("invalid escape string %q: it must be empty or one character", esc)
	}
	e, _ := utf8.DecodeRuneInString(esc)
	out := make([]rune, 0, len(p))
	escaped := false
	for _, c := range p {
		switch {
		case escaped:
			out = append(out, c)
			escaped = false
		case esc != "" && c == e:
			escaped = true
		case c == '%':
			out = append(out, anyRun)
		case c == '_':
			out = append(out, anyRune)
		default:
			out = append(out, c)
		}
	}
	if escaped {
		return nil, fmt.Errorf("LIKE pattern must not end with escape character")
	}
	return out, nil
}

// evalLike is s [I]LIKE p [ESCAPE e] over non-NULL arguments; ILIKE folds
// both to lower case first.
func (e *Expr) evalLike(a []sqlrow.Value) (sqlrow.Value, error) {
	s, p, esc := a[0].S, a[1].S, ""
	if len(a) == 3 {
		esc = a[2].S
	}
	if e.Op == OpILike {
		s, p, esc = strings.ToLower(s), strings.ToLower(p), strings.ToLower(esc)
	}
	pat, err := likePattern(p, esc)
	if err != nil {
		return sqlrow.Value{}, err
	}
	return sqlrow.Bool(like([]rune(s), pat)), nil
}

// regexpFlags turns regexp_like's flags into RE2's: i for case-insensitive
// matching, c for case-sensitive (the default). NB: . matches a newline,
// as in PostgreSQL.
func regexpFlags(flags string) (string, error) {
	out := "(?s)"
	for _, f := range flags {
		switch f {
		case 'i':
			out = "(?si)"
		case 'c':
			out = "(?s)"
		default:
			return "", fmt.Errorf("regexp_like: unsupported flag %q (i and c are)", f)
		}
	}
	return out, nil
}

func compileRegexp(p, flags string) (*regexp.Regexp, error) {
	pre, err := regexpFlags(flags)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(pre + p)
	if err != nil {
		return nil, fmt.Errorf("regexp_like: invalid regular expression: %w", err)
	}
	return re, nil
}

// prepare compiles a regexp_like node's pattern once when it and the
// flags are constants, and reports a bad one before any row arrives. New
// and Check call it, so that a tree from a spec gets it too.
func (e *Expr) prepare() error {
	if e.Op != OpCall || e.Fn != "regexp_like" {
		return nil
	}
	for _, a := range e.Args[1:] {
		if a.Op != OpLit || a.Lit.IsNull() {
			return nil
		}
	}
	flags := ""
	if len(e.Args) == 3 {
		flags = e.Args[2].Lit.S
	}
	re, err := compileRegexp(e.Args[1].Lit.S, flags)
	e.re = re
	return err
}

// regexpLike is REGEXP_LIKE(s, p [, flags]) and s ~ p: whether p matches
// somewhere in s (RE2 syntax).
func (e *Expr) regexpLike(a []sqlrow.Value) (sqlrow.Value, error) {
	re := e.re
	if re == nil {
		flags := ""
		if len(a) == 3 {
			flags = a[2].S
		}
		var err error
		if re, err = compileRegexp(a[1].S, flags); err != nil {
			return sqlrow.Value{}, err
		}
	}
	return sqlrow.Bool(re.MatchString(a[0].S)), nil
}
