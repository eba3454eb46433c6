package sqlc

import (
	"fmt"
	"slices"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// This file compiles Wasm table functions: CREATE FUNCTION f(...) RETURNS
// TABLE (a BIGINT, b VARCHAR) or RETURNS SETOF type declares one, and
//
//	FROM t, LATERAL f(t.x) AS u(a, b)
//	FROM t CROSS JOIN LATERAL f(t.x) AS u(a, b)
//
// joins each row of t with the rows f returns for it (none drops the
// row). It compiles to a sql operator that reads t's records into rows and
// one that calls the module (a program with Rows set, host/sqlop.Call),
// once per batch, writing t's row once per result row with that row
// appended; the rest of the query reads those rows as a table of t's
// columns and then u's.

// tableColumn adds a column of RETURNS TABLE (...) to f.
func (c *compiler) tableColumn(f *Function, fp *pg.FunctionParameter) error {
	t, err := udfType(fp.ArgType)
	if err != nil {
		return c.errAt(int(fp.ArgType.Location), "%v", err)
	}
	f.Kind = tableFunc
	f.Rows = append(f.Rows, sqlprog.Column{Name: fp.Name, Type: t})
	return nil
}

// returns reads a function's RETURNS type: a scalar function's, a SETOF
// type (a table function of one column, named as the function), or the
// record of RETURNS TABLE, whose columns tableColumn read.
func (c *compiler) returns(f *Function, tn *pg.TypeName) error {
	if f.Kind == tableFunc {
		return nil
	}
	t, err := udfType(tn)
	if err != nil {
		return c.errAt(int(tn.Location), "%v", err)
	}
	if tn.Setof {
		f.Kind, f.Rows = tableFunc, []sqlprog.Column{{Name: f.Name, Type: t}}
		return nil
	}
	f.Returns = t
	return nil
}

// lateralParts returns the table and the function of FROM t, [LATERAL]
// f(...) or FROM t [CROSS] JOIN LATERAL f(...) [ON TRUE], or nil.
func lateralParts(sel *pg.SelectStmt) (*pg.RangeVar, *pg.RangeFunction, *pg.JoinExpr) {
	switch len(sel.FromClause) {
	case 1:
		je := sel.FromClause[0].GetJoinExpr()
		if je != nil && je.Larg.GetRangeVar() != nil && je.Rarg.GetRangeFunction() != nil {
			return je.Larg.GetRangeVar(), je.Rarg.GetRangeFunction(), je
		}
	case 2:
		rv, rf := sel.FromClause[0].GetRangeVar(), sel.FromClause[1].GetRangeFunction()
		if rv != nil && rf != nil {
			return rv, rf, nil
		}
	}
	return nil, nil, nil
}

// isLateral reports whether a query reads a table joined with a table
// function.
func isLateral(sel *pg.SelectStmt) bool {
	rv, _, _ := lateralParts(sel)
	return rv != nil
}

// lateralInsert compiles a query whose FROM joins a table with a table
// function.
func (c *compiler) lateralInsert(sel *pg.SelectStmt, sink *Table) (*query, error) {
	rv, rf, je := lateralParts(sel)
	if je != nil && (je.Jointype != pg.JoinType_JOIN_INNER || (je.Quals != nil && !isTrue(je.Quals))) {
		return nil, c.errAt(location(sel.FromClause[0]), "a table function joins its table as CROSS JOIN LATERAL f(...) (or JOIN ... ON TRUE); outer joins are not supported yet")
	}
	t, err := c.table(rv.Relname, int(rv.Location))
	if err != nil {
		return nil, err
	}
	if t == sink {
		return nil, c.errAt(int(rv.Location), "a query cannot read the table it writes")
	}
	alias := t.Name
	if rv.Alias != nil {
		alias = rv.Alias.Aliasname
	}
	call, fn, err := c.tableCall(rf, rowScope{t: t, alias: alias})
	if err != nil {
		return nil, err
	}
	derived := *t
	derived.Format, derived.Prefix = sqlprog.FormatRow, ""
	derived.Columns = slices.Concat(t.Columns, call.Rows)
	rs := rowScope{t: &derived, alias: alias, fnAlias: call.alias, fnFrom: len(t.Columns), calls: &udfCalls{width: len(derived.Columns)}}
	if err := c.distinct(sel, &derived, rs); err != nil {
		return nil, err
	}
	q := &query{source: &derived, sink: sink}
	if len(sel.GroupClause) > 0 || sel.HavingClause != nil || c.hasAggregate(sel.TargetList) {
		err = c.groupBy(q, sel, rs)
	} else {
		err = c.selectRows(q, sel, rs)
	}
	if err != nil {
		return nil, err
	}
	c.placeCalls(q, rs.calls)
	c.placeTableCall(q, t, call, fn)
	q.source = t
	return q, nil
}

func isTrue(n *pg.Node) bool {
	b := n.GetAConst().GetBoolval()
	return b != nil && b.Boolval
}

// tableCallPlan is a table function's call in FROM: its arguments over the
// table's row, and the columns it adds, named by the alias.
type tableCallPlan struct {
	args  []*sqlexpr.Expr
	alias string
	Rows  []sqlprog.Column
}

// tableCall compiles f(args) [AS] u(cols) of FROM over the table's rows.
func (c *compiler) tableCall(rf *pg.RangeFunction, s rowScope) (*tableCallPlan, *Function, error) {
	items := rf.Functions
	if len(items) != 1 || rf.Ordinality || rf.IsRowsfrom {
		return nil, nil, c.errAt(0, "FROM takes one table function call, without ROWS FROM or WITH ORDINALITY")
	}
	fc := items[0].GetList().GetItems()[0].GetFuncCall()
	if fc == nil {
		return nil, nil, c.errAt(0, "FROM t, LATERAL f(...) AS u(...) takes a call of a table function")
	}
	name := funcName(fc)
	f := c.funcs[name]
	if f == nil || f.Kind != tableFunc {
		return nil, nil, c.errAt(int(fc.Location), "%s is not a table function: declare it CREATE FUNCTION %s(...) RETURNS TABLE (...) LANGUAGE wasm AS 'module.wasm'", name, name)
	}
	if len(fc.Args) != len(f.Params) {
		return nil, nil, c.errAt(int(fc.Location), "%s takes %d argument(s) (%s), got %d", f.Name, len(f.Params), f.signature(), len(fc.Args))
	}
	p := &tableCallPlan{alias: f.Name, Rows: slices.Clone(f.Rows)}
	for i, a := range fc.Args {
		e, err := c.expr(a, s)
		if err != nil {
			return nil, nil, err
		}
		if e, err = c.udfArg(f, i, a, e); err != nil {
			return nil, nil, err
		}
		p.args = append(p.args, e)
	}
	if al := rf.Alias; al != nil {
		p.alias = al.Aliasname
		if len(al.Colnames) > len(p.Rows) {
			return nil, nil, c.errAt(int(fc.Location), "%s returns %d column(s), the alias names %d", f.Name, len(p.Rows), len(al.Colnames))
		}
		for i, n := range al.Colnames {
			p.Rows[i].Name = n.GetString_().Sval
		}
		if len(f.Rows) == 1 && len(al.Colnames) == 0 {
			p.Rows[0].Name = al.Aliasname // NB: PostgreSQL names a SETOF's column by the alias
		}
	}
	return p, f, nil
}

// placeTableCall puts before the query's first operator one that reads
// the table t's records into rows and one that calls the table function.
func (c *compiler) placeTableCall(q *query, t *Table, call *tableCallPlan, fn *Function) {
	read := &sqlprog.Program{In: t.Format, Prefix: t.Prefix, Columns: t.Columns, Out: sqlprog.FormatRow}
	for i, col := range t.Columns {
		read.Select = append(read.Select, sqlexpr.Col(i, col.Type))
		read.Names = append(read.Names, col.Name)
	}
	names := make([]string, len(call.args))
	for i := range names {
		if names[i] = fn.Names[i]; names[i] == "" {
			names[i] = fmt.Sprintf("$%d", i+1)
		}
	}
	rows := make([]sqlrow.Type, len(call.Rows))
	for i, col := range call.Rows {
		rows[i] = col.Type
	}
	p := &sqlprog.Program{In: sqlprog.FormatRow, Columns: slices.Clone(t.Columns), Select: call.args, Names: names, Out: sqlprog.FormatRow, Rows: rows}
	q.ops = append([]operator{
		{kind: "sql", suffix: "read-" + uidPart(t.Name), prog: read},
		{kind: "sql", suffix: "lateral-" + uidPart(fn.Name), prog: p, fn: fn},
	}, q.ops...)
}

// lateralColumn resolves a column of a query over a table and a table
// function: t.x among the table's columns, u.a among the function's, and
// a bare name in whichever has it (in both, it is ambiguous).
func (s rowScope) lateralColumn(c *compiler, ref *pg.ColumnRef) (*sqlexpr.Expr, error) {
	name, qual, _ := columnName(ref)
	base, fn := s.t.Columns[:s.fnFrom], s.t.Columns[s.fnFrom:]
	find := func(cols []sqlprog.Column, off int) int {
		if i := slices.IndexFunc(cols, func(c sqlprog.Column) bool { return c.Name == name }); i >= 0 {
			return off + i
		}
		return -1
	}
	i := -1
	switch qual {
	case s.alias, s.t.Name:
		i = find(base, 0)
	case s.fnAlias:
		i = find(fn, len(base))
	case "":
		i = find(base, 0)
		if j := find(fn, len(base)); j >= 0 {
			if i >= 0 {
				return nil, c.errAt(int(ref.Location), "column %q is ambiguous: %s.%s or %s.%s", name, s.alias, name, s.fnAlias, name)
			}
			i = j
		}
	default:
		return nil, c.errAt(int(ref.Location), "unknown table %q (the query reads %s and %s)", qual, s.alias, s.fnAlias)
	}
	if i < 0 {
		return nil, c.errAt(int(ref.Location), "unknown column %q (%s has: %s)", name, s.t.Name, s.t.columnNames())
	}
	return sqlexpr.Col(i, s.t.Columns[i].Type), nil
}
