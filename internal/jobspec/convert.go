package jobspec

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
)

// The methods in this file convert one raw scalar into its typed value. An
// absent field yields the default; a malformed one is rejected with a
// message that quotes what the spec says, and yields the default too, so
// that building goes on and finds the other problems.

// text returns the required, non-empty string at path.
func (p *problems) text(path string, s Scalar) (string, bool) {
	switch {
	case !s.set:
		p.reject(path, "required")
	case s.value == "":
		p.reject(path, "must not be empty")
	default:
		return s.value, true
	}
	return "", false
}

// name returns the required name at path, which must match
// [A-Za-z0-9._-]+ and be at most maxNameLen bytes long.
func (p *problems) name(path string, s Scalar) string {
	v, ok := p.text(path, s)
	if ok && (!isName(v) || len(v) > maxNameLen) {
		p.reject(path, "%q must match [A-Za-z0-9._-]+ and be at most %d characters", v, maxNameLen)
		return ""
	}
	return v
}

// maxNameLen is the longest job name or uid.
const maxNameLen = 64

// integer returns the integer at path, which must lie in [lo, hi]; a hi of
// math.MaxInt32 or more means no upper bound worth mentioning.
func (p *problems) integer(path string, s Scalar, def, lo, hi int64) int64 {
	if !s.set {
		return def
	}
	n, err := strconv.ParseInt(s.value, 10, 64)
	if err != nil || n < lo || n > hi {
		p.reject(path, "must be %s, got %q", intRange(lo, hi), s.value)
		return def
	}
	return n
}

func intRange(lo, hi int64) string {
	if hi >= math.MaxInt32 {
		return fmt.Sprintf("an integer >= %d", lo)
	}
	return fmt.Sprintf("an integer from %d to %d", lo, hi)
}

// rate returns the non-negative, finite number at path.
func (p *problems) rate(path string, s Scalar) float64 {
	if !s.set {
		return 0
	}
	f, err := strconv.ParseFloat(s.value, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		p.reject(path, "must be a number >= 0, got %q", s.value)
		return 0
	}
	return f
}

// boolean returns the true or false at path.
func (p *problems) boolean(path string, s Scalar, def bool) bool {
	switch {
	case !s.set:
		return def
	case s.value == "true":
		return true
	case s.value == "false":
		return false
	}
	p.reject(path, "must be true or false, got %q", s.value)
	return def
}

// duration returns the Go duration at path, which must be at least lo.
func (p *problems) duration(path string, s Scalar, def, lo time.Duration) time.Duration {
	if !s.set {
		return def
	}
	d, err := time.ParseDuration(s.value)
	if err != nil || d < lo {
		p.reject(path, "must be a duration >= %v such as 10s or 1m30s, got %q", lo, s.value)
		return def
	}
	return d
}

// choice returns the value at path, which must be one of options. An absent
// field yields def, or is rejected as required when def is empty. A value
// that is not an option yields "".
func (p *problems) choice(path string, s Scalar, what, def string, options ...string) string {
	switch {
	case !s.set && def == "":
		p.reject(path, "required (want %s)", join(options, "or"))
	case !s.set:
		return def
	case slices.Contains(options, s.value):
		return s.value
	default:
		p.reject(path, "unknown %s %q (want %s)", what, s.value, join(options, "or"))
	}
	return ""
}

// only rejects the field at path, if the spec sets it, as belonging to
// something else: "only applies to <where>".
func (p *problems) only(path string, s Scalar, where string) {
	if s.set {
		p.reject(path, "only applies to %s", where)
	}
}

// isName reports whether s is a valid name for a job, a uid or a parameter:
// one or more of A-Z, a-z, 0-9, '.', '_' and '-'.
func isName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
		if !ok {
			return false
		}
	}
	return true
}
