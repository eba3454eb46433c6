package sqlc

import (
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// An interval join's upper bound may be a column of the left table
// instead of its event time plus a constant (Nexmark q9's bids during
// their auction):
//
//	FROM auction a JOIN bid b ON a.id = b.auction AND b.date_time BETWEEN a.date_time AND a.expires
//
// The join then gives each left row its own upper bound, the column's
// value (sqlprog.JoinRows.Until, join.IntervalConfig.UpperOf): a right
// row matches it only up to that time, and the left row is kept until the
// watermark passes it, however long that is. The interval's constant
// upper bound becomes maxInterval, the longest any row may have.

// maxInterval is the upper bound of an interval join whose left rows bound
// themselves: about 34 years.
const maxInterval = time.Duration(1<<40) * time.Millisecond

// untilColumn reports whether n is a BIGINT column of the left table
// other than its event time, and returns its index.
func (c *compiler) untilColumn(n *pg.Node, sides [2]rowScope) (int, bool) {
	ref := n.GetColumnRef()
	if ref == nil {
		return 0, false
	}
	side, e := c.sideOf(n, sides)
	if side != 0 || e.Op != sqlexpr.OpCol || e.Type != sqlrow.BigInt || e.Col == sides[0].t.EventTime {
		return 0, false
	}
	return e.Col, true
}
