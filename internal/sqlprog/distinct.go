package sqlprog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/floe-stream/floe/internal/sqlrow"
)

// The accumulator of COUNT(DISTINCT x) is the set of x's distinct values:
// one VARCHAR holding their encodings (sqlrow.AppendValue), sorted by
// bytes, each once. Two values are the same when their encodings are,
// which for one column's type is SQL equality (but for -0 and 0.0, and
// NaN, which this slice does not tell apart from itself).

// setMembers splits an encoded set into its members.
func setMembers(s string) ([]string, error) {
	var out []string
	b := []byte(s)
	for len(b) > 0 {
		_, k, err := sqlrow.DecodeValue(b)
		if err != nil {
			return nil, fmt.Errorf("COUNT(DISTINCT) accumulator: %w", err)
		}
		out = append(out, string(b[:k]))
		b = b[k:]
	}
	return out, nil
}

// setLen returns the number of members of an encoded set.
func setLen(s string) (int, error) {
	m, err := setMembers(s)
	return len(m), err
}

// mergeSets returns the union of two encoded sets.
func mergeSets(a, b sqlrow.Value) (sqlrow.Value, error) {
	x, err := setMembers(a.S)
	if err != nil {
		return a, err
	}
	y, err := setMembers(b.S)
	if err != nil {
		return a, err
	}
	all := append(x, y...)
	slices.Sort(all)
	return sqlrow.Str(strings.Join(slices.Compact(all), "")), nil
}
