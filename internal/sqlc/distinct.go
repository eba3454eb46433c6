package sqlc

import (
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlprog"
)

// distinct compiles SELECT DISTINCT over one table as the GROUP BY of its
// whole SELECT list, without aggregates: an updating result whose rows are
// the distinct rows, each upserted as it is seen (group.go). It rewrites
// sel in place; "*" becomes every column of the table.
func (c *compiler) distinct(sel *pg.SelectStmt, t *Table, rs rowScope) error {
	if !isDistinct(sel) {
		return nil
	}
	for _, n := range sel.DistinctClause {
		if n != nil && n.Node != nil {
			return c.errAt(location(n), "SELECT DISTINCT ON is not supported yet: use ROW_NUMBER() ... WHERE rn = 1 (Top-N and deduplication)")
		}
	}
	if len(sel.GroupClause) > 0 || sel.HavingClause != nil || c.hasAggregate(sel.TargetList) {
		return c.errAt(int(sel.TargetList[0].GetResTarget().Location), "SELECT DISTINCT with GROUP BY or aggregates is not supported yet: the GROUP BY's rows are distinct already")
	}
	sel.TargetList = expandStar(sel.TargetList, t)
	seen := map[string]bool{}
	for _, n := range sel.TargetList {
		v := n.GetResTarget().Val
		if v.GetAConst() != nil {
			continue // NB: a constant is the same in every row: no key.
		}
		e, err := c.expr(v, rs)
		if err != nil {
			return err
		}
		text := exprKey(e)
		if seen[text] {
			continue // NB: SELECT DISTINCT a, a groups by a once.
		}
		seen[text] = true
		sel.GroupClause = append(sel.GroupClause, v)
	}
	sel.DistinctClause = nil
	return nil
}

// isDistinct reports whether a SELECT says DISTINCT (or DISTINCT ON).
func isDistinct(sel *pg.SelectStmt) bool { return len(sel.DistinctClause) > 0 }

// expandStar replaces a SELECT list that is "*" alone by t's columns.
func expandStar(list []*pg.Node, t *Table) []*pg.Node {
	if len(list) != 1 {
		return list
	}
	rt := list[0].GetResTarget()
	ref := rt.Val.GetColumnRef()
	if ref == nil {
		return list
	}
	if _, _, star := columnName(ref); !star {
		return list
	}
	out := make([]*pg.Node, len(t.Columns))
	for i, col := range t.Columns {
		out[i] = pg.MakeResTargetNodeWithVal(pg.MakeColumnRefNode([]*pg.Node{pg.MakeStrNode(col.Name)}, rt.Location), rt.Location)
	}
	return out
}

// distinctJoin makes a compiled join query's rows distinct: its last sql
// operator writes rows instead of the sink's records, and a keyBy on the
// whole row feeds a sqlGroup without aggregates, whose changelog upserts
// each distinct row once per batch it is seen in (as SELECT DISTINCT over
// one table does). The join's output is appended, so the group's input
// never retracts a row.
func (c *compiler) distinctJoin(q *query, at int) error {
	if q.sink.view {
		return c.errAt(at, "SELECT DISTINCT over a join into a materialized view is not supported yet")
	}
	last := q.ops[len(q.ops)-1].prog
	types := last.OutputTypes()
	last.Out, last.Names = sqlprog.FormatRow, make([]string, len(types))
	agg := &sqlprog.Aggregation{Input: types, Keys: len(types)}
	out := &sqlprog.Program{In: sqlprog.FormatRow, Out: q.sink.Format, Names: sinkNames(q.sink), Changelog: true}
	for i, t := range agg.GroupOutput() {
		name := "_" + strconv.Itoa(i)
		out.Columns = append(out.Columns, sqlprog.Column{Name: name, Type: t})
		if i < len(types) {
			last.Names[i] = name
			out.Select = append(out.Select, sqlexpr.Col(i, t))
		}
	}
	q.ops = append(q.ops,
		operator{kind: "keyBy", suffix: "distinct-key", keys: len(types)},
		operator{kind: "sqlGroup", suffix: "distinct", agg: agg},
		operator{kind: "sql", suffix: "distinct-select", prog: out})
	return nil
}
