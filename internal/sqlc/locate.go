package sqlc

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/floe-stream/floe/internal/jobspec"
)

// stepPath matches the field path of a source's or a sink's field in the
// compiled spec: sources[0].path, sinks[1].topic.
var stepPath = regexp.MustCompile(`^(sources|sinks)\[(\d+)\](?:\.([A-Za-z]+))?`)

// Locate points the problems that parsing the compiled spec found (a
// jobspec error, such as a connector's option that is missing or wrong) at
// the script: a problem of a source's or a sink's field becomes an *Error
// at the WITH option that set it, or at the CREATE TABLE of the table. It
// returns other errors as they are.
func (j *Job) Locate(err error) error {
	var list []error
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		list = joined.Unwrap()
	} else {
		list = []error{err}
	}
	out := make([]error, 0, len(list))
	for _, e := range list {
		out = append(out, j.locate(e))
	}
	return errors.Join(out...)
}

func (j *Job) locate(err error) error {
	var fe *jobspec.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	if e, ok := j.locateFunction(fe.Path, fe.Msg); ok {
		return e
	}
	m := stepPath.FindStringSubmatch(fe.Path)
	if m == nil {
		return err
	}
	tables := j.sources
	if m[1] == "sinks" {
		tables = j.sinks
	}
	i, _ := strconv.Atoi(m[2])
	if i >= len(tables) {
		return err
	}
	t := tables[i]
	at := t.at
	for _, o := range t.Options {
		if o.Key == m[3] {
			at = o.at
		}
	}
	field := strings.TrimPrefix(fe.Path[len(m[1])+len(m[2])+2:], ".")
	msg := fe.Msg
	if field != "" {
		msg = field + ": " + msg
	}
	return errAt(j.src, at, "table %s: %s", t.Name, msg)
}
