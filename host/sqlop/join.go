package sqlop

import (
	"context"

	"github.com/floe-stream/floe/host/join"
	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// JoinRows is the join.Combiner of a SQL join: each pair becomes the
// joined row of sqlprog.JoinRows, with the pair's key, key group and
// timestamp; an outer join's lone row has NULLs for the other side, and a
// retracting one's rows end with the retraction flag. It is used by one task goroutine.
type JoinRows struct {
	Spec *sqlprog.JoinRows
	v    []byte
}

var nullValue = sqlrow.AppendValue(nil, sqlrow.Value{})

// Combine implements join.Combiner.
func (j *JoinRows) Combine(_ context.Context, pairs []join.Pair, out *record.Batch) error {
	for _, p := range pairs {
		j.v = append(j.v[:0], p.Left...)
		if p.NoLeft {
			j.v = appendNulls(j.v, j.Spec.Left)
		}
		if p.HasRight {
			j.v = append(j.v, p.Right...)
		} else {
			j.v = appendNulls(j.v, j.Spec.Right)
		}
		if w := j.Spec.Window; w > 0 || j.Spec.Session {
			end := p.Timestamp + 1 // NB: a window join's pair is at the window's last instant
			start := end - w
			if j.Spec.Session {
				start = p.WindowStart
			}
			j.v = sqlrow.AppendValue(j.v, sqlrow.Int(start))
			j.v = sqlrow.AppendValue(j.v, sqlrow.Int(end))
		}
		if j.Spec.Changelog {
			flag := int64(0)
			if p.Retract {
				flag = 1
			}
			j.v = sqlrow.AppendValue(j.v, sqlrow.Int(flag))
		}
		out.AppendKeyed(p.Key, j.v, p.Timestamp, p.KeyGroup)
	}
	return nil
}

func appendNulls(v []byte, n int) []byte {
	for range n {
		v = append(v, nullValue...)
	}
	return v
}

// Until returns, for a join whose left rows bound their own interval
// (sqlprog.JoinRows.Until), the function that reads that bound from a
// left row (join.IntervalConfig.UpperOf); nil otherwise. A NULL or a
// row that does not decode bounds nothing.
func Until(spec *sqlprog.JoinRows) func(left []byte) (int64, bool) {
	if spec == nil || spec.Until == 0 {
		return nil
	}
	n := spec.Until - 1
	return func(left []byte) (int64, bool) {
		skip, err := sqlrow.PrefixLen(left, n)
		if err != nil {
			return 0, false
		}
		v, _, err := sqlrow.DecodeValue(left[skip:])
		if err != nil || v.T != sqlrow.BigInt {
			return 0, false
		}
		return v.I, true
	}
}
