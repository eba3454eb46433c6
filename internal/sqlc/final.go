package sqlc

import (
	pg "github.com/pganalyze/pg_query_go/v6"
)

// finalSource compiles the subquery an OVER query reads.
func (c *compiler) finalSource(q *query, rs *pg.RangeSubselect, at int) (*Table, error) {
	return nil, c.errAt(at, "OVER aggregates over a subquery are not supported yet")
}
