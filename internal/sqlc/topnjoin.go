package sqlc

import (
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/floe-stream/floe/internal/sqlprog"
)

// A Top-N may rank the rows of a join (Nexmark q9, each auction's
// winning bid):
//
//	SELECT ... FROM (
//	  SELECT a.id, b.price, ..., ROW_NUMBER() OVER (PARTITION BY a.id ORDER BY b.price DESC, b.date_time) AS rn
//	  FROM auction a JOIN bid b ON a.id = b.auction AND b.date_time BETWEEN a.date_time AND a.expires
//	) WHERE rn = 1
//
// The join compiles as any join query (join.go) whose SELECT list is the
// subquery's columns, then its PARTITION BY and ORDER BY expressions,
// written as a row; the Top-N then reads that row by name. A join's rows
// are appended, so the ranking is the updating Top-N's over a table.

// joinSource compiles the join a Top-N's subquery reads and returns the
// table its rows make. It rewrites the subquery's columns, PARTITION BY and
// ORDER BY to name the join's output columns.
func (c *compiler) joinSource(q *query, inner *pg.SelectStmt, at int) (*Table, error) {
	var over *pg.WindowDef
	var targets []*pg.Node
	var names []string
	add := func(n *pg.Node, name string, loc int32) *pg.Node {
		targets = append(targets, pg.MakeResTargetNodeWithNameAndVal(name, n, loc))
		names = append(names, name)
		return pg.MakeColumnRefNode([]*pg.Node{pg.MakeStrNode(name)}, loc)
	}
	for _, n := range inner.TargetList {
		rt := n.GetResTarget()
		if f := rt.Val.GetFuncCall(); f != nil && rankFns[funcName(f)] {
			over = f.Over
			continue
		}
		name := rt.Name
		if ref := rt.Val.GetColumnRef(); ref != nil && name == "" {
			name, _, _ = columnName(ref)
		}
		if name == "" {
			return nil, c.errAt(int(rt.Location), "name this column with AS: the Top-N reads it by name")
		}
		rt.Val = add(rt.Val, name, rt.Location)
		rt.Name = name
	}
	if over == nil {
		return nil, c.errAt(at, "a subquery is only supported for Top-N: its SELECT list needs ROW_NUMBER(), RANK() or DENSE_RANK() OVER (PARTITION BY ... ORDER BY ...) AS rn")
	}
	for i, p := range over.PartitionClause {
		if f := p.GetFuncCall(); f != nil && windowFns[funcName(f)] != "" {
			return nil, c.errAt(int(f.Location), "a window Top-N over a join is not supported yet")
		}
		over.PartitionClause[i] = add(p, "_p"+strconv.Itoa(i), int32(location(p)))
	}
	for i, o := range over.OrderClause {
		sb := o.GetSortBy()
		if sb == nil {
			continue
		}
		sb.Node = add(sb.Node, "_o"+strconv.Itoa(i), sb.Location)
	}
	virt := &Table{Name: "join", Connector: subqueryConnector, Format: sqlprog.FormatRow, EventTime: -1}
	sq := &query{sink: virt}
	sel := &pg.SelectStmt{TargetList: targets, FromClause: inner.FromClause, WhereClause: inner.WhereClause}
	inner.WhereClause = nil // NB: the join's, not the Top-N's
	if err := c.joinQuery(sq, sel); err != nil {
		return nil, err
	}
	if sq.retracting() {
		// NB: its deletes would be ranked as rows (outerjoin.go).
		return nil, c.errAt(at, "a Top-N over a regular outer join is not supported yet: its result is updating (an outer interval or window join may be ranked)")
	}
	last := sq.ops[len(sq.ops)-1]
	last.prog.Names = names
	for i, e := range last.prog.Select {
		virt.Columns = append(virt.Columns, sqlprog.Column{Name: names[i], Type: e.Type})
	}
	sq.ops[len(sq.ops)-1].suffix = "join-select"
	q.source, q.join = sq.source, sq.join
	q.ops = append(q.ops, sq.ops...)
	return virt, nil
}
