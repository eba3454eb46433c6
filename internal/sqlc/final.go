package sqlc

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlprog"
)

// A GROUP BY over an interval join whose upper bound is a column of the
// left table (joinbound.go) is final at that column when it groups by it:
// every joined row of the group has both its rows' times at or before the
// bound, so once the watermark passes it the group cannot change. Nexmark
// q6 reads each auction's winning price so, appended once at its expiry:
//
//	SELECT seller, expires, id, AVG(final) OVER (PARTITION BY seller ORDER BY expires, id ROWS ...)
//	FROM (SELECT a.id, a.seller, a.expires, MAX(b.price) AS final
//	      FROM auction a JOIN bid b ON a.id = b.auction AND b.date_time BETWEEN a.date_time AND a.expires
//	      GROUP BY a.id, a.seller, a.expires)
//
// The GROUP BY compiles as any GROUP BY over a join (groupupdating.go),
// whose sqlGroup is then final at the bound (sqlprog.Aggregation.FinalAt)
// and whose last sql operator writes plain rows, not a changelog. The
// subquery's rows have the bound as their event time, so it must be
// selected, by itself, and the OVER orders by it.

// finalSource compiles the GROUP BY an OVER query reads and returns the
// table its rows make.
func (c *compiler) finalSource(q *query, rs *pg.RangeSubselect, at int) (*Table, error) {
	inner := rs.Subquery.GetSelectStmt()
	if inner == nil || len(inner.TargetList) == 0 {
		return nil, c.errAt(at, "FROM (subquery) takes a SELECT")
	}
	at = int(inner.TargetList[0].GetResTarget().Location)
	if err := c.unsupported(inner); err != nil {
		return nil, err
	}
	if !isJoin(inner) || len(inner.GroupClause) == 0 || inner.HavingClause != nil || isDistinct(inner) {
		return nil, c.errAt(at, "OVER aggregates read a table, or a GROUP BY (without HAVING) over an interval join bounded by a column of the left table that it groups by (b.ts BETWEEN a.ts AND a.expires ... GROUP BY ..., a.expires)")
	}
	names, err := c.columnNamesOf(inner)
	if err != nil {
		return nil, err
	}
	mid := &Table{Name: "subquery", Connector: subqueryConnector, Format: sqlprog.FormatRow, EventTime: -1}
	sq := &query{sink: mid}
	if err := c.groupOverJoin(sq, inner); err != nil {
		return nil, err
	}
	k, err := c.finalKey(sq, at)
	if err != nil {
		return nil, err
	}
	last := sq.ops[len(sq.ops)-1].prog
	last.Changelog, last.Names = false, names
	for i, e := range last.Select {
		mid.Columns = append(mid.Columns, sqlprog.Column{Name: names[i], Type: e.Type})
		if e.Op == sqlexpr.OpCol && e.Col == k && mid.EventTime < 0 {
			mid.EventTime = i
		}
	}
	if mid.EventTime < 0 {
		return nil, c.errAt(at, "select the join's bound column (the GROUP BY key a.expires) in the subquery: it is the time of its rows, which the OVER orders by")
	}
	for i := range sq.ops {
		sq.ops[i].suffix = "inner-" + sq.ops[i].suffix
	}
	q.source, q.join = sq.source, sq.join
	q.ops = append(q.ops, sq.ops...)
	return mid, nil
}

// finalKey makes the sqlGroup of sq, a GROUP BY over a join, final at the
// join's bound and returns the bound's index among the group's keys: the
// join must be an interval join bounded by a left column, and the GROUP BY
// must group by that column as it is.
func (c *compiler) finalKey(sq *query, at int) (int, error) {
	ji := -1
	for i, op := range sq.ops {
		if op.kind == "intervalJoin" {
			ji = i
		}
	}
	if ji < 0 || sq.ops[ji].join.rows.Until == 0 || len(sq.ops) != ji+6 {
		return 0, c.errAt(at, "a GROUP BY under OVER needs an interval join whose upper bound is a column of the left table (b.ts BETWEEN a.ts AND a.expires): its groups are final at that column")
	}
	bound := -1
	for j, e := range sq.ops[ji+1].prog.Select {
		if e.Op == sqlexpr.OpCol && e.Col == sq.ops[ji].join.rows.Until-1 {
			bound = j
		}
	}
	group, pre := &sq.ops[ji+4], sq.ops[ji+2].prog
	if group.kind != "sqlGroup" {
		return 0, c.errAt(at, "a windowed GROUP BY under OVER is not supported")
	}
	for k := 0; k < group.agg.Keys; k++ {
		if e := pre.Select[k]; bound >= 0 && e.Op == sqlexpr.OpCol && e.Col == bound {
			group.agg.FinalAt = &k
			if err := group.agg.Check(); err != nil {
				return 0, c.errAt(at, "%v", err)
			}
			return k, nil
		}
	}
	return 0, c.errAt(at, "a GROUP BY under OVER must group by the join's bound column (a.expires in b.ts BETWEEN a.ts AND a.expires): its groups are final once the watermark passes it")
}
