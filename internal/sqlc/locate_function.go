package sqlc

import (
	"regexp"
	"strconv"
)

// opPath matches the field path of an operator's field in the compiled
// spec: operators[3].function.
var opPath = regexp.MustCompile(`^operators\[(\d+)\]`)

// locateFunction points a problem of an operator that calls a Wasm
// function (its module has no such export, or not of a map's kind) at the
// CREATE FUNCTION that declared it; ok is false for other problems.
func (j *Job) locateFunction(path, msg string) (*Error, bool) {
	m := opPath.FindStringSubmatch(path)
	if m == nil {
		return nil, false
	}
	i, _ := strconv.Atoi(m[1])
	if i >= len(j.opFuncs) || j.opFuncs[i] == nil {
		return nil, false
	}
	f := j.opFuncs[i]
	return errAt(j.src, f.at, "function %s: %s", f.Name, msg), true
}
