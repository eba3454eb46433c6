package sqlc

import (
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// A GROUP BY may aggregate the updating result of another GROUP BY (which
// may read a join), as Nexmark q4 averages each category's winning
// prices:
//
//	SELECT category, AVG(final) FROM (
//	  SELECT a.id, a.category, MAX(b.price) AS final
//	  FROM auction a JOIN bid b ON a.id = b.auction AND b.date_time BETWEEN a.date_time AND a.expires
//	  GROUP BY a.id, a.category
//	) GROUP BY category
//
// The inner GROUP BY's sqlGroup retracts (sqlprog.Aggregation.Retracts):
// for a key that had a row it emits the old row, marked FALSE, before the
// new one, marked TRUE; its last sql operator passes the mark on, and the
// outer GROUP BY's sqlGroup takes a FALSE row out of its accumulators
// again (Retracted), which COUNT, SUM and AVG can do and MIN and MAX
// cannot. Over a join, the join's operators come first and write the
// columns the inner GROUP BY reads as a row (joinColumns).

// isGroupOfGroup reports whether sel groups the rows of a subquery that
// groups without ranking them.
func (c *compiler) isGroupOfGroup(sel *pg.SelectStmt) bool {
	inner := sel.FromClause[0].GetRangeSubselect().Subquery.GetSelectStmt()
	if inner == nil || len(inner.GroupClause) == 0 {
		return false
	}
	return len(sel.GroupClause) > 0 || c.hasAggregate(sel.TargetList)
}

// groupOfGroup compiles a GROUP BY over a GROUP BY's updating result.
func (c *compiler) groupOfGroup(q *query, sel *pg.SelectStmt) error {
	inner := sel.FromClause[0].GetRangeSubselect().Subquery.GetSelectStmt()
	at := int(inner.TargetList[0].GetResTarget().Location)
	if err := c.unsupported(inner); err != nil {
		return err
	}
	if inner.HavingClause != nil || isDistinct(inner) || isDistinct(sel) {
		return c.errAt(at, "a GROUP BY over a GROUP BY takes no HAVING or DISTINCT in the inner one yet")
	}
	names, err := c.columnNamesOf(inner)
	if err != nil {
		return err
	}
	var src *Table
	alias := ""
	if isJoin(inner) {
		if src, err = c.joinColumns(q, inner); err != nil {
			return err
		}
	} else {
		if src, alias, err = c.from(inner); err != nil {
			return err
		}
		q.source = src
	}
	if src == q.sink {
		return c.errAt(at, "a query cannot read the table it writes")
	}
	real := q.source
	mid := &Table{Name: "subquery", Connector: subqueryConnector, Format: sqlprog.FormatRow, EventTime: -1}
	sq := &query{source: src, sink: mid}
	if err := c.groupBy(sq, inner, rowScope{t: src, alias: alias}); err != nil {
		return err
	}
	innerGroup := sq.ops[len(sq.ops)-2]
	if innerGroup.kind != "sqlGroup" {
		return c.errAt(at, "a GROUP BY over a windowed GROUP BY is not supported yet (rank it, or group by no window)")
	}
	for _, g := range innerGroup.agg.Aggs {
		if g.Fn == sqlprog.Wasm || g.Call != nil {
			return c.errAt(at, "a Wasm aggregate in a GROUP BY that another GROUP BY reads is not supported yet (its old row would need its old result)")
		}
	}
	innerGroup.agg.Retracts = true
	last := sq.ops[len(sq.ops)-1].prog
	last.Changelog, last.Names = false, names
	live := len(last.Columns)
	last.Columns = append(last.Columns, sqlprog.Column{Name: "_" + strconv.Itoa(live), Type: sqlrow.Boolean})
	last.Select = append(last.Select, sqlexpr.Col(live, sqlrow.Boolean))
	last.Names = append(last.Names, "_live")
	for i, e := range last.Select[:len(names)] {
		mid.Columns = append(mid.Columns, sqlprog.Column{Name: names[i], Type: e.Type})
	}
	mid.Columns = append(mid.Columns, sqlprog.Column{Name: "_live", Type: sqlrow.Boolean})
	for i := range sq.ops {
		sq.ops[i].suffix = "inner-" + sq.ops[i].suffix
	}
	q.ops = append(q.ops, sq.ops...)
	oq := &query{source: mid, sink: q.sink}
	if err := c.groupBy(oq, sel, rowScope{t: mid}); err != nil {
		return err
	}
	outer := oq.ops[len(oq.ops)-2]
	if outer.kind != "sqlGroup" {
		return c.errAt(at, "a windowed GROUP BY over a GROUP BY's updating result is not supported")
	}
	first := oq.ops[0].prog
	first.Select = append(first.Select, sqlexpr.Col(len(mid.Columns)-1, sqlrow.Boolean))
	first.Names = append(first.Names, "_"+strconv.Itoa(len(first.Names)))
	outer.agg.Input = first.OutputTypes()
	outer.agg.Retracted = true
	if err := outer.agg.Check(); err != nil {
		return c.errAt(int(sel.TargetList[0].GetResTarget().Location), "over a GROUP BY's updating result: %v", err)
	}
	// NB: a group whose rows were all taken out again is deleted: a
	// hidden COUNT(*) last, which the changelog's WHERE wants above 0.
	outer.agg.Aggs = append(outer.agg.Aggs, sqlprog.Agg{Fn: sqlprog.Count, Arg: -1})
	lastOut := oq.ops[len(oq.ops)-1].prog
	n := len(lastOut.Columns)
	lastOut.Columns = append(lastOut.Columns, sqlprog.Column{Name: "_" + strconv.Itoa(n), Type: sqlrow.BigInt})
	rows, _ := sqlexpr.New(sqlexpr.OpGt, "", 0, sqlexpr.Col(n, sqlrow.BigInt), sqlexpr.Lit(sqlrow.Int(0)))
	if lastOut.Where != nil {
		rows, _ = sqlexpr.New(sqlexpr.OpAnd, "", 0, rows, lastOut.Where)
	}
	lastOut.Where = rows
	q.source = real
	q.ops = append(q.ops, oq.ops...)
	return nil
}

// columnNamesOf names a SELECT list's columns: by AS, or by the column.
func (c *compiler) columnNamesOf(sel *pg.SelectStmt) ([]string, error) {
	var names []string
	for _, n := range sel.TargetList {
		rt := n.GetResTarget()
		name := rt.Name
		if ref := rt.Val.GetColumnRef(); ref != nil && name == "" {
			name, _, _ = columnName(ref)
		}
		if name == "" {
			return nil, c.errAt(int(rt.Location), "name this column with AS: the query around it reads it by name")
		}
		names = append(names, name)
	}
	return names, nil
}

// joinColumns compiles the join a GROUP BY reads into operators that
// write, as a row, every column the GROUP BY names, and rewrites the
// GROUP BY to read that row: each column reference becomes _cN.
func (c *compiler) joinColumns(q *query, sel *pg.SelectStmt) (*Table, error) {
	var targets []*pg.Node
	seen := map[string]string{}
	rename := func(ref *pg.ColumnRef) {
		name, qual, star := columnName(ref)
		if star {
			return
		}
		k := qual + "." + name
		to, ok := seen[k]
		if !ok {
			to = "_c" + strconv.Itoa(len(seen))
			seen[k] = to
			orig := pg.MakeColumnRefNode(append([]*pg.Node{}, ref.Fields...), ref.Location)
			targets = append(targets, pg.MakeResTargetNodeWithNameAndVal(to, orig, ref.Location))
		}
		ref.Fields = []*pg.Node{pg.MakeStrNode(to)}
	}
	for _, n := range sel.TargetList {
		walkRefs(n, rename)
	}
	for _, n := range sel.GroupClause {
		walkRefs(n, rename)
	}
	walkRefs(sel.HavingClause, rename)
	if len(targets) == 0 {
		// NB: COUNT(*) alone: the join's rows still need a value each.
		targets = append(targets, pg.MakeResTargetNodeWithNameAndVal("_c", pg.MakeAConstIntNode(1, 0), 0))
	}
	virt := &Table{Name: "join", Connector: subqueryConnector, Format: sqlprog.FormatRow, EventTime: -1}
	jq := &query{sink: virt}
	js := &pg.SelectStmt{TargetList: targets, FromClause: sel.FromClause, WhereClause: sel.WhereClause}
	sel.FromClause, sel.WhereClause = nil, nil
	if err := c.joinQuery(jq, js); err != nil {
		return nil, err
	}
	if jq.retracting() {
		// NB: its deletes would be counted as rows (outerjoin.go).
		return nil, c.errAt(location(sel.TargetList[0]), "GROUP BY over a regular outer join is not supported yet: its result is updating (an outer interval or window join may be grouped)")
	}
	last := jq.ops[len(jq.ops)-1].prog
	last.Names = nil
	for i, t := range targets {
		name := t.GetResTarget().Name
		last.Names = append(last.Names, name)
		virt.Columns = append(virt.Columns, sqlprog.Column{Name: name, Type: last.Select[i].Type})
	}
	jq.ops[len(jq.ops)-1].suffix = "join-select"
	q.source, q.join = jq.source, jq.join
	q.ops = append(q.ops, jq.ops...)
	return virt, nil
}

// walkRefs calls f on every column reference in n, through the
// expressions the dialect compiles.
func walkRefs(n *pg.Node, f func(*pg.ColumnRef)) {
	if n == nil {
		return
	}
	walk := func(ns ...*pg.Node) {
		for _, x := range ns {
			walkRefs(x, f)
		}
	}
	switch x := n.Node.(type) {
	case *pg.Node_ColumnRef:
		f(x.ColumnRef)
	case *pg.Node_ResTarget:
		walk(x.ResTarget.Val)
	case *pg.Node_FuncCall:
		walk(x.FuncCall.Args...)
	case *pg.Node_AExpr:
		walk(x.AExpr.Lexpr, x.AExpr.Rexpr)
	case *pg.Node_BoolExpr:
		walk(x.BoolExpr.Args...)
	case *pg.Node_TypeCast:
		walk(x.TypeCast.Arg)
	case *pg.Node_NullTest:
		walk(x.NullTest.Arg)
	case *pg.Node_List:
		walk(x.List.Items...)
	case *pg.Node_CoalesceExpr:
		walk(x.CoalesceExpr.Args...)
	case *pg.Node_MinMaxExpr:
		walk(x.MinMaxExpr.Args...)
	case *pg.Node_CaseExpr:
		walk(x.CaseExpr.Arg, x.CaseExpr.Defresult)
		walk(x.CaseExpr.Args...)
	case *pg.Node_CaseWhen:
		walk(x.CaseWhen.Expr, x.CaseWhen.Result)
	}
}

// groupOverJoin compiles a GROUP BY without a window over a join's rows:
// the join's operators write the columns the GROUP BY names as a row
// (joinColumns), which the GROUP BY reads as it reads a table.
func (c *compiler) groupOverJoin(q *query, sel *pg.SelectStmt) error {
	if isDistinct(sel) {
		return c.errAt(int(sel.TargetList[0].GetResTarget().Location), "SELECT DISTINCT with GROUP BY over a join is not supported")
	}
	for _, g := range sel.GroupClause {
		if f := g.GetFuncCall(); f != nil && windowFns[funcName(f)] != "" {
			return c.errAt(int(f.Location), "a windowed GROUP BY over a join is not supported yet (a GROUP BY without a window is)")
		}
	}
	src, err := c.joinColumns(q, sel)
	if err != nil {
		return err
	}
	real := q.source
	q.source = src
	err = c.groupBy(q, sel, rowScope{t: src})
	q.source = real
	return err
}
