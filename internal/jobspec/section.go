package jobspec

import "time"

// Section is a connector's view of its section of the spec while the spec
// is built: a source or sink section, or the sink of a side output. Its
// methods convert the fields of the connector's raw struct as the rest of
// the spec's are converted (convert.go), and report problems under the
// section's path with the line of the field, as "line 3: sink.topic: ...".
// A field argument is a path relative to the section, such as "topic" or
// "sasl.mechanism". An absent or malformed field yields the default, so
// that building goes on and finds the other problems.
type Section struct {
	p    *problems
	path string
	uid  string
	job  string
}

// Path returns the full path of field, such as sink.topic.
func (s *Section) Path(field string) string {
	if field == "" {
		return s.path
	}
	return childPath(s.path, field)
}

// UID returns the uid of the source or sink, or the name of the side
// output; "" when it is invalid.
func (s *Section) UID() string { return s.uid }

// JobName returns the name of the job; "" when it is invalid.
func (s *Section) JobName() string { return s.job }

// Text returns the required, non-empty string at field.
func (s *Section) Text(field string, v Scalar) (string, bool) { return s.p.text(s.Path(field), v) }

// OptionalText returns the string at field, or "" when it is absent.
func (s *Section) OptionalText(field string, v Scalar) string {
	if !v.set {
		return ""
	}
	t, _ := s.Text(field, v)
	return t
}

// Name returns the required name at field, which must match
// [A-Za-z0-9._-]+ and have at most 64 characters.
func (s *Section) Name(field string, v Scalar) string { return s.p.name(s.Path(field), v) }

// Integer returns the integer at field, which must lie in [lo, hi].
func (s *Section) Integer(field string, v Scalar, def, lo, hi int64) int64 {
	return s.p.integer(s.Path(field), v, def, lo, hi)
}

// Rate returns the non-negative, finite number at field, or 0.
func (s *Section) Rate(field string, v Scalar) float64 { return s.p.rate(s.Path(field), v) }

// Bool returns the true or false at field.
func (s *Section) Bool(field string, v Scalar, def bool) bool {
	return s.p.boolean(s.Path(field), v, def)
}

// Duration returns the Go duration at field, which must be at least lo.
func (s *Section) Duration(field string, v Scalar, def, lo time.Duration) time.Duration {
	return s.p.duration(s.Path(field), v, def, lo)
}

// Choice returns the value at field, which must be one of options; what
// names the value in messages ("unknown format %q"). An absent field yields
// def, or is rejected as required when def is empty; a value that is not an
// option yields "".
func (s *Section) Choice(field string, v Scalar, what, def string, options ...string) string {
	return s.p.choice(s.Path(field), v, what, def, options...)
}

// Only rejects field, if the spec sets it, as belonging to something else:
// "only applies to <where>".
func (s *Section) Only(field string, v Scalar, where string) { s.p.only(s.Path(field), v, where) }

// Reject reports a problem at field and silences any later one inside it.
func (s *Section) Reject(field, format string, args ...any) {
	s.p.reject(s.Path(field), format, args...)
}

// Add reports a problem at field, unless field lies inside a rejected one.
func (s *Section) Add(field, format string, args ...any) { s.p.add(s.Path(field), format, args...) }

// Rejected reports whether field, or one that holds it, was rejected.
func (s *Section) Rejected(field string) bool { return s.p.rejected(s.Path(field)) }

// IsName reports whether v is one or more of A-Z, a-z, 0-9, '.', '_' and
// '-', as names and uids are.
func IsName(v string) bool { return isName(v) }

// ParseKey parses a key as a keyBy's key field writes it: value, function
// or csv:N.
func ParseKey(v string) (KeySelector, bool) { return parseKey(v) }
