package sqlc

import (
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// query is one compiled INSERT INTO sink SELECT ...: the table it reads, the
// table it writes, and the operators between them, in order.
type query struct {
	source, sink *Table
	ops          []operator
	// join is set for a join query, whose ops start with the join.
	join *joinPlan
}

// operator is one operator of a query, as the spec will hold it.
type operator struct {
	kind string // sql, keyBy or window
	// join and topN configure a join (join.go) and a sqlTopN (topn.go).
	join *joinStep
	topN *sqlprog.TopN
	// over configures a sqlOver (over.go).
	over *sqlprog.Over
	// suffix ends the operator's uid.
	suffix string
	prog   *sqlprog.Program
	agg    *sqlprog.Aggregation
	keys   int
	window windowSpec
	// fn is the Wasm function a sql operator calls, or nil; aggFns are
	// the Wasm aggregates of a window or sqlGroup (aggfunc.go).
	fn     *Function
	aggFns []*Function
	// textKey makes a keyBy key by text:N rather than row:N (view.go).
	textKey bool
}

// windowSpec is a GROUP BY window.
type windowSpec struct {
	kind             string // tumbling, sliding, session
	size, slide, gap time.Duration
	// proc measures the windows in processing time (a PROCTIME() column).
	proc bool
}

// insert compiles INSERT INTO sink SELECT ....
func (c *compiler) insert(s *pg.InsertStmt) (*query, error) {
	sink, err := c.table(s.Relation.Relname, int(s.Relation.Location))
	if err != nil {
		return nil, err
	}
	if len(s.Cols) > 0 {
		return nil, c.errAt(int(s.Relation.Location), "INSERT INTO %s (columns) is not supported yet: the SELECT list gives every column of %s in order", sink.Name, sink.Name)
	}
	sel := s.SelectStmt.GetSelectStmt()
	if sel == nil || sel.ValuesLists != nil {
		return nil, c.errAt(int(s.Relation.Location), "INSERT INTO %s needs a SELECT ... FROM a table", sink.Name)
	}
	if err := c.unsupported(sel); err != nil {
		return nil, err
	}
	if calls := overCalls(sel.TargetList); len(calls) > 0 {
		q := &query{sink: sink}
		return q, c.overQuery(q, sel, calls) // NB: over.go
	}
	if isTopN(sel) && isDistinct(sel) {
		return nil, c.errAt(int(sel.TargetList[0].GetResTarget().Location), "SELECT DISTINCT over a Top-N is not supported yet: its result is updating")
	}
	if isLateral(sel) {
		return c.lateralInsert(sel, sink)
	}
	if isJoin(sel) && (len(sel.GroupClause) > 0 || c.hasAggregate(sel.TargetList)) {
		q := &query{sink: sink}
		return q, c.groupOverJoin(q, sel) // NB: groupupdating.go
	}
	if isJoin(sel) {
		return c.joinInsert(sel, sink)
	}
	if isTopN(sel) && c.isGroupOfGroup(sel) {
		q := &query{sink: sink}
		return q, c.groupOfGroup(q, sel) // NB: groupupdating.go
	}
	if isTopN(sel) {
		q := &query{sink: sink}
		return q, c.topNQuery(q, sel)
	}
	src, alias, err := c.from(sel)
	if err != nil {
		return nil, err
	}
	if src == sink {
		return nil, c.errAt(int(s.Relation.Location), "a query cannot read the table it writes")
	}
	rs := rowScope{t: src, alias: alias, calls: &udfCalls{width: len(src.Columns)}}
	if err := c.distinct(sel, src, rs); err != nil {
		return nil, err
	}
	q := &query{source: src, sink: sink}
	if len(sel.GroupClause) > 0 || sel.HavingClause != nil || c.hasAggregate(sel.TargetList) {
		err = c.groupBy(q, sel, rs)
	} else {
		err = c.selectRows(q, sel, rs)
	}
	if err != nil {
		return nil, err
	}
	c.placeCalls(q, rs.calls)
	return q, nil
}

// joinInsert compiles a join query, SELECT DISTINCT or not.
func (c *compiler) joinInsert(sel *pg.SelectStmt, sink *Table) (*query, error) {
	q := &query{sink: sink}
	distinct := isDistinct(sel)
	for _, n := range sel.DistinctClause {
		if n != nil && n.Node != nil {
			return nil, c.errAt(location(n), "SELECT DISTINCT ON is not supported yet")
		}
	}
	sel.DistinctClause = nil
	if err := c.joinQuery(q, sel); err != nil {
		return nil, err
	}
	if distinct && q.retracting() {
		return nil, c.errAt(int(sel.TargetList[0].GetResTarget().Location), "SELECT DISTINCT over a regular outer join is not supported yet: its result is updating")
	}
	if distinct {
		return q, c.distinctJoin(q, int(sel.TargetList[0].GetResTarget().Location))
	}
	return q, nil
}

// unsupported refuses the parts of SELECT this slice of the dialect lacks.
func (c *compiler) unsupported(sel *pg.SelectStmt) error {
	switch {
	case sel.Op != pg.SetOperation_SETOP_NONE:
		return c.errAt(0, "UNION, INTERSECT and EXCEPT are not supported yet")
	case sel.WithClause != nil:
		return c.errAt(int(sel.WithClause.Location), "WITH is not supported yet")
	case len(sel.SortClause) > 0:
		return c.errAt(0, "ORDER BY is not supported on a stream (Top-N is not supported yet)")
	case sel.LimitCount != nil || sel.LimitOffset != nil:
		return c.errAt(location(sel.LimitCount), "LIMIT and OFFSET are not supported on a stream")
	case len(sel.WindowClause) > 0:
		return c.errAt(0, "WINDOW clauses are not supported yet")
	}
	return nil
}

// from returns the one table a SELECT reads and the name it goes by.
func (c *compiler) from(sel *pg.SelectStmt) (*Table, string, error) {
	if len(sel.FromClause) == 0 {
		return nil, "", c.errAt(0, "a query needs FROM a table")
	}
	if len(sel.FromClause) > 1 {
		return nil, "", c.errAt(location(sel.FromClause[len(sel.FromClause)-1]), "a query reads one table or joins two (a join of more is not supported yet)")
	}
	if win, _, _ := c.tvf(sel); win != nil {
		return c.tvfTable(sel)
	}
	f := sel.FromClause[0]
	rv := f.GetRangeVar()
	if rv == nil {
		if f.GetJoinExpr() != nil {
			return nil, "", c.errAt(location(f), "a join reads two tables by name (a join of joins is not supported yet)")
		}
		return nil, "", c.errAt(location(f), "FROM takes a table name (subqueries and table functions are not supported yet)")
	}
	t, err := c.table(rv.Relname, int(rv.Location))
	if err != nil {
		return nil, "", err
	}
	alias := t.Name
	if rv.Alias != nil {
		alias = rv.Alias.Aliasname
	}
	return t, alias, nil
}

// selectRows compiles a query without GROUP BY: one sql operator.
func (c *compiler) selectRows(q *query, sel *pg.SelectStmt, rs rowScope) error {
	p := &sqlprog.Program{In: q.source.Format, Prefix: q.source.Prefix, Columns: q.source.Columns, Out: q.sink.Format}
	if sel.WhereClause != nil {
		w, err := c.where(sel.WhereClause, rs)
		if err != nil {
			return err
		}
		p.Where = w
	}
	exprs, locs, err := c.targets(sel.TargetList, rs, q.source)
	if err != nil {
		return err
	}
	if p.Select, err = c.fitSink(q.sink, exprs, locs); err != nil {
		return err
	}
	p.Names = sinkNames(q.sink)
	q.ops = append(q.ops, operator{kind: "sql", suffix: "select", prog: p})
	return nil
}

// conjunction compiles conditions with where and ANDs them: nil for none,
// the one for one.
func (c *compiler) conjunction(conds []*pg.Node, sc scope) (*sqlexpr.Expr, error) {
	ws := make([]*sqlexpr.Expr, 0, len(conds))
	for _, n := range conds {
		w, err := c.where(n, sc)
		if err != nil {
			return nil, err
		}
		ws = append(ws, w)
	}
	return allOf(ws)
}

// allOf is the AND of conditions ws: nil for none, the one for one.
func allOf(ws []*sqlexpr.Expr) (*sqlexpr.Expr, error) {
	switch len(ws) {
	case 0:
		return nil, nil
	case 1:
		return ws[0], nil
	}
	return sqlexpr.New(sqlexpr.OpAnd, "", 0, ws...)
}

// where compiles a WHERE or HAVING condition, which must be a BOOLEAN.
func (c *compiler) where(n *pg.Node, sc scope) (*sqlexpr.Expr, error) {
	w, err := c.expr(n, sc)
	if err != nil {
		return nil, err
	}
	if w.Type != sqlrow.Boolean && w.Type != sqlrow.Null {
		return nil, c.errAt(location(n), "the condition is a %s, not a BOOLEAN", w.Type)
	}
	return w, nil
}

// targets compiles a SELECT list; * stands for every column of t.
func (c *compiler) targets(list []*pg.Node, sc scope, t *Table) ([]*sqlexpr.Expr, []int, error) {
	var exprs []*sqlexpr.Expr
	var locs []int
	for _, n := range list {
		rt := n.GetResTarget()
		if ref := rt.Val.GetColumnRef(); ref != nil {
			if _, _, star := columnName(ref); star {
				if _, ok := sc.(rowScope); !ok || len(list) > 1 {
					return nil, nil, c.errAt(int(rt.Location), "* is only allowed alone in the SELECT list of a query without GROUP BY")
				}
				for i, col := range t.Columns {
					exprs = append(exprs, sqlexpr.Col(i, col.Type))
					locs = append(locs, int(rt.Location))
				}
				continue
			}
		}
		e, err := c.expr(rt.Val, sc)
		if err != nil {
			return nil, nil, err
		}
		exprs = append(exprs, e)
		locs = append(locs, int(rt.Location))
	}
	return exprs, locs, nil
}

// fitSink checks the SELECT list against the sink's columns: as many, each
// of the column's type, or a BIGINT (or NULL) where a DOUBLE is due, which
// is cast.
func (c *compiler) fitSink(sink *Table, exprs []*sqlexpr.Expr, locs []int) ([]*sqlexpr.Expr, error) {
	if sink.Connector == subqueryConnector {
		return exprs, nil // NB: a Top-N's GROUP BY: its rows take the list's types (windowtopn.go)
	}
	if sink.view && len(exprs) == len(sink.Columns) {
		return c.fitView(sink, exprs, locs)
	}
	if len(exprs) != len(sink.Columns) {
		return nil, c.errAt(locs[0], "the SELECT list has %d columns, %s has %d (%s)", len(exprs), sink.Name, len(sink.Columns), sink.columnNames())
	}
	out := make([]*sqlexpr.Expr, len(exprs))
	for i, e := range exprs {
		want := sink.Columns[i]
		switch {
		case e.Type == want.Type:
			out[i] = e
		case e.Type == sqlrow.Null || (e.Type == sqlrow.BigInt && want.Type == sqlrow.Double):
			out[i], _ = sqlexpr.New(sqlexpr.OpCast, "", want.Type, e)
		default:
			return nil, c.errAt(locs[i], "column %d is a %s, %s.%s is a %s (CAST it)", i+1, e.Type, sink.Name, want.Name, want.Type)
		}
	}
	return out, nil
}

func sinkNames(t *Table) []string {
	names := make([]string, len(t.Columns))
	for i, col := range t.Columns {
		names[i] = col.Name
	}
	return names
}

// hasAggregate reports whether a SELECT list calls an aggregate function.
func (c *compiler) hasAggregate(list []*pg.Node) bool {
	found := false
	var walk func(n *pg.Node)
	walk = func(n *pg.Node) {
		if n == nil || found {
			return
		}
		if f := n.GetFuncCall(); f != nil {
			if aggregates[funcName(f)] || c.isWasmAggregate(funcName(f)) {
				found = true
				return
			}
			for _, a := range f.Args {
				walk(a)
			}
			return
		}
		if rt := n.GetResTarget(); rt != nil {
			walk(rt.Val)
		}
		if a := n.GetAExpr(); a != nil {
			walk(a.Lexpr)
			walk(a.Rexpr)
		}
		if tc := n.GetTypeCast(); tc != nil {
			walk(tc.Arg)
		}
		if b := n.GetBoolExpr(); b != nil {
			for _, x := range b.Args {
				walk(x)
			}
		}
		for _, x := range n.GetCoalesceExpr().GetArgs() {
			walk(x)
		}
		for _, x := range n.GetMinMaxExpr().GetArgs() {
			walk(x)
		}
		if ce := n.GetCaseExpr(); ce != nil {
			for _, w := range ce.Args {
				walk(w.GetCaseWhen().GetExpr())
				walk(w.GetCaseWhen().GetResult())
			}
			walk(ce.Defresult)
		}
	}
	for _, n := range list {
		walk(n)
	}
	return found
}

func (c *compiler) table(name string, at int) (*Table, error) {
	t, ok := c.tables[name]
	if !ok {
		var known []string
		for _, k := range c.order {
			known = append(known, k.Name)
		}
		return nil, c.errAt(at, "unknown table %q (declared: %s)", name, strings.Join(known, ", "))
	}
	return t, nil
}

// uidPart makes a table name fit a uid.
func uidPart(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '_'
	}, s)
}
