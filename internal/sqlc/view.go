package sqlc

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// This file compiles materialized views:
//
//	CREATE MATERIALIZED VIEW v AS SELECT k, COUNT(*) AS n FROM t GROUP BY k
//
// is the query of an updating GROUP BY whose result, rather than a
// changelog to a sink, is kept in keyed state, queryable under the view's
// name by its GROUP BY values in CSV ("apple", "apple,3"): the keyBy keys
// the rows by that text (key text:N), and the last operator keeps each
// key's current row as JSON (a program with View set, host/sqlop.View).

// createView compiles CREATE MATERIALIZED VIEW v AS SELECT ....
func (c *compiler) createView(s *pg.CreateTableAsStmt, at int) error {
	if s.Objtype != pg.ObjectType_OBJECT_MATVIEW {
		return c.errAt(at, "CREATE TABLE ... AS is not supported: declare a sink with CREATE TABLE and INSERT INTO it, or keep the result queryable with CREATE MATERIALIZED VIEW")
	}
	rel := s.Into.Rel
	if _, dup := c.tables[rel.Relname]; dup {
		return c.errAt(int(rel.Location), "%q is declared twice", rel.Relname)
	}
	sel := s.Query.GetSelectStmt()
	if sel == nil {
		return c.errAt(at, "a materialized view is a SELECT ... GROUP BY")
	}
	cols, err := c.viewColumns(s.Into, sel)
	if err != nil {
		return err
	}
	v := &Table{Name: rel.Relname, Columns: cols, Format: sqlprog.FormatJSON, EventTime: -1, at: at, view: true}
	c.tables[v.Name] = v
	q, err := c.insert(&pg.InsertStmt{Relation: rel, SelectStmt: s.Query})
	if err != nil {
		return err
	}
	if len(sel.GroupClause) == 0 || !hasOp(q, "sqlGroup") {
		return c.errAt(at, "a materialized view is a GROUP BY without a window: its rows are the groups' current results, looked up by their GROUP BY values")
	}
	for i := range q.ops {
		switch op := &q.ops[i]; op.kind {
		case "keyBy":
			op.textKey = true
		case "sql":
			if i == len(q.ops)-1 {
				op.prog.Changelog, op.prog.View = false, v.Name
			}
		}
	}
	c.queries = append(c.queries, q)
	return nil
}

func hasOp(q *query, kind string) bool {
	for _, op := range q.ops {
		if op.kind == kind {
			return true
		}
	}
	return false
}

// viewColumns names the view's columns: as the view's column list says,
// or as the SELECT list does (AS name, a column's name, a function's). Their
// types are those of the SELECT list, which fitView fills in.
func (c *compiler) viewColumns(into *pg.IntoClause, sel *pg.SelectStmt) ([]sqlprog.Column, error) {
	cols := make([]sqlprog.Column, len(sel.TargetList))
	seen := map[string]bool{}
	for i, n := range sel.TargetList {
		rt := n.GetResTarget()
		name := rt.Name
		switch {
		case i < len(into.ColNames):
			name = into.ColNames[i].GetString_().Sval
		case name != "":
		case rt.Val.GetColumnRef() != nil:
			name, _, _ = columnName(rt.Val.GetColumnRef())
		case rt.Val.GetFuncCall() != nil:
			name = funcName(rt.Val.GetFuncCall())
		}
		if name == "" || name == "*" {
			return nil, c.errAt(int(rt.Location), "name this column of the view: expression AS name")
		}
		if seen[name] {
			return nil, c.errAt(int(rt.Location), "the view has two columns named %q: name one otherwise (AS name)", name)
		}
		seen[name] = true
		cols[i] = sqlprog.Column{Name: name}
	}
	if len(into.ColNames) > len(cols) {
		return nil, c.errAt(int(into.Rel.Location), "the view names %d columns, its SELECT list has %d", len(into.ColNames), len(cols))
	}
	return cols, nil
}

// fitView gives the view's columns the types of its SELECT list.
func (c *compiler) fitView(v *Table, exprs []*sqlexpr.Expr, locs []int) ([]*sqlexpr.Expr, error) {
	for i, e := range exprs {
		if e.Type == sqlrow.Null {
			return nil, c.errAt(locs[i], "column %s of the view is a NULL of no type: CAST it", v.Columns[i].Name)
		}
		v.Columns[i].Type = e.Type
	}
	return exprs, nil
}

// checkViews refuses a query that reads or writes a view: a view is its
// own query's result, kept in state.
func (c *compiler) checkViews() error {
	for _, q := range c.queries {
		switch {
		case q.source.view:
			return c.errAt(q.source.at, "reading a materialized view (%s) in a query is not supported yet: look its rows up with floe state get", q.source.Name)
		case q.sink.view && !hasOp(q, "sqlGroup"):
			return c.errAt(q.sink.at, "%s is a materialized view: INSERT INTO it is not allowed", q.sink.Name)
		}
	}
	return nil
}
