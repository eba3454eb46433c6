package sqlc

import (
	"reflect"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// An OVER aggregate computes, for each row, an aggregate over the rows of
// its partition up to it (docs/sql.md, "OVER aggregates"):
//
//	SELECT seller, AVG(price) OVER (PARTITION BY seller ORDER BY ts ROWS BETWEEN 9 PRECEDING AND CURRENT ROW)
//	FROM t [WHERE ...]
//
// It compiles to sql (partition keys, sort keys, every column of t, each
// aggregate's argument) -> keyBy row:P -> sqlOver -> sql (the SELECT list,
// reading the columns and the aggregates' results). The ORDER BY starts
// with the event-time column, ascending: the sqlOver applies a partition's
// rows in that order once the watermark passes them, as Flink's row-based
// OVER does, so the result does not depend on arrival order. Every OVER of
// a query has the same PARTITION BY and ORDER BY; each may have its own
// frame, ROWS BETWEEN n (or UNBOUNDED) PRECEDING AND CURRENT ROW. FROM may instead be a
// GROUP BY over a join that is final at its bound (final.go), Nexmark q6's
// closed auctions.

// PostgreSQL's frame options (nodes/parsenodes.h).
const (
	frameRows                 = 0x4
	frameStartUnbounded       = 0x20 // START_UNBOUNDED_PRECEDING
	frameStartCurrentRow      = 0x200
	frameEndCurrentRow        = 0x400
	frameStartOffsetPreceding = 0x800
	frameKnown                = 0x7fff // NB: above it, EXCLUDE ...
)

// overCalls returns the aggregate calls with OVER in a SELECT list.
func overCalls(list []*pg.Node) []*pg.FuncCall {
	var calls []*pg.FuncCall
	var walk func(n *pg.Node)
	walk = func(n *pg.Node) {
		if n == nil {
			return
		}
		switch x := n.Node.(type) {
		case *pg.Node_FuncCall:
			if x.FuncCall.Over != nil && aggregates[funcName(x.FuncCall)] {
				calls = append(calls, x.FuncCall)
				return
			}
			for _, a := range x.FuncCall.Args {
				walk(a)
			}
		case *pg.Node_ResTarget:
			walk(x.ResTarget.Val)
		case *pg.Node_AExpr:
			walk(x.AExpr.Lexpr)
			walk(x.AExpr.Rexpr)
		case *pg.Node_TypeCast:
			walk(x.TypeCast.Arg)
		case *pg.Node_BoolExpr:
			for _, a := range x.BoolExpr.Args {
				walk(a)
			}
		case *pg.Node_CoalesceExpr:
			for _, a := range x.CoalesceExpr.Args {
				walk(a)
			}
		case *pg.Node_MinMaxExpr:
			for _, a := range x.MinMaxExpr.Args {
				walk(a)
			}
		case *pg.Node_NullTest:
			walk(x.NullTest.Arg)
		case *pg.Node_CaseExpr:
			walk(x.CaseExpr.Arg)
			walk(x.CaseExpr.Defresult)
			for _, w := range x.CaseExpr.Args {
				walk(w.GetCaseWhen().GetExpr())
				walk(w.GetCaseWhen().GetResult())
			}
		}
	}
	for _, n := range list {
		walk(n)
	}
	return calls
}

// overQuery compiles a query whose SELECT list holds OVER aggregates.
func (c *compiler) overQuery(q *query, sel *pg.SelectStmt, calls []*pg.FuncCall) error {
	at := int(sel.TargetList[0].GetResTarget().Location)
	if len(sel.GroupClause) > 0 || sel.HavingClause != nil || isDistinct(sel) {
		return c.errAt(at, "OVER aggregates with GROUP BY, HAVING or DISTINCT are not supported")
	}
	src, alias, err := c.overSource(q, sel, at)
	if err != nil {
		return err
	}
	if src == q.sink {
		return c.errAt(at, "a query cannot read the table it writes")
	}
	row := rowScope{t: src, alias: alias}
	first := &sqlprog.Program{In: src.Format, Prefix: src.Prefix, Columns: src.Columns, Out: sqlprog.FormatRow}
	if sel.WhereClause != nil {
		if first.Where, err = c.where(sel.WhereClause, row); err != nil {
			return err
		}
	}
	over := &sqlprog.Over{}
	if err := c.overWindow(calls, row, src, first, over); err != nil {
		return err
	}
	offset := len(first.Select)
	for i, col := range src.Columns {
		first.Select = append(first.Select, sqlexpr.Col(i, col.Type))
	}
	results := map[*pg.FuncCall]int{}
	for _, f := range calls {
		g, err := c.overAgg(f, row, first)
		if err != nil {
			return err
		}
		results[f] = len(over.Aggs)
		over.Aggs = append(over.Aggs, g)
	}
	for i, e := range first.Select {
		first.Names = append(first.Names, "_"+strconv.Itoa(i))
		over.Input = append(over.Input, e.Type)
	}
	if err := over.Check(); err != nil {
		return c.errAt(at, "%v", err)
	}
	out := over.Output()
	last := &sqlprog.Program{In: sqlprog.FormatRow, Out: q.sink.Format, Names: sinkNames(q.sink)}
	for i, t := range out {
		last.Columns = append(last.Columns, sqlprog.Column{Name: "_" + strconv.Itoa(i), Type: t})
	}
	for f, i := range results {
		results[f] = len(over.Input) + i
	}
	sc := overScope{row: row, offset: offset, results: results, types: out}
	exprs, locs, err := c.targets(sel.TargetList, sc, nil)
	if err != nil {
		return err
	}
	if last.Select, err = c.fitSink(q.sink, exprs, locs); err != nil {
		return err
	}
	q.ops = append(q.ops,
		operator{kind: "sql", suffix: "pre", prog: first},
		operator{kind: "keyBy", suffix: "key", keys: over.Keys},
		operator{kind: "sqlOver", suffix: "over", over: over},
		operator{kind: "sql", suffix: "select", prog: last})
	return nil
}

// overSource returns the table an OVER query reads: a table, or a
// GROUP BY over a join final at its bound (final.go).
func (c *compiler) overSource(q *query, sel *pg.SelectStmt, at int) (*Table, string, error) {
	if len(sel.FromClause) == 1 {
		if rs := sel.FromClause[0].GetRangeSubselect(); rs != nil {
			t, err := c.finalSource(q, rs, at)
			alias := ""
			if rs.Alias != nil {
				alias = rs.Alias.Aliasname
			}
			return t, alias, err
		}
	}
	if isJoin(sel) {
		return nil, "", c.errAt(at, "OVER aggregates over a join are not supported yet")
	}
	src, alias, err := c.from(sel)
	if err != nil {
		return nil, "", err
	}
	q.source = src
	return src, alias, nil
}

// overWindow compiles the OVER clauses' PARTITION BY and ORDER BY, which
// must be the same for every call, into first's SELECT list.
func (c *compiler) overWindow(calls []*pg.FuncCall, row rowScope, src *Table, first *sqlprog.Program, over *sqlprog.Over) error {
	var parts, orders []*sqlexpr.Expr
	for n, f := range calls {
		w := f.Over
		if w.Name != "" || w.Refname != "" {
			return c.errAt(int(w.Location), "a named window (OVER w) is not supported yet: write the OVER (...) out")
		}
		var ps, os []*sqlexpr.Expr
		for _, p := range w.PartitionClause {
			e, err := c.expr(p, row)
			if err != nil {
				return err
			}
			ps = append(ps, e)
		}
		var keys []sqlprog.SortKey
		for _, o := range w.OrderClause {
			sb := o.GetSortBy()
			e, err := c.expr(sb.Node, row)
			if err != nil {
				return err
			}
			if sb.UseOp != nil {
				return c.errAt(int(sb.Location), "ORDER BY ... USING is not supported")
			}
			k := sqlprog.SortKey{Desc: sb.SortbyDir == pg.SortByDir_SORTBY_DESC}
			switch sb.SortbyNulls {
			case pg.SortByNulls_SORTBY_NULLS_FIRST:
				k.NullsFirst = true
			case pg.SortByNulls_SORTBY_NULLS_DEFAULT:
				k.NullsFirst = k.Desc // NB: PostgreSQL's NULL is larger than every value
			}
			keys = append(keys, k)
			os = append(os, e)
		}
		if n == 0 {
			if len(os) == 0 || os[0].Op != sqlexpr.OpCol || os[0].Col != src.EventTime || keys[0].Desc {
				return c.errAt(int(w.Location), "an OVER aggregate needs ORDER BY the event-time column first, ascending (%s), then any keys", eventTimeName(src))
			}
			parts, orders, over.Order = ps, os, keys
			continue
		}
		if !reflect.DeepEqual(ps, parts) || !reflect.DeepEqual(os, orders) || !reflect.DeepEqual(keys, over.Order) {
			return c.errAt(int(w.Location), "every OVER of a query needs the same PARTITION BY and ORDER BY (each may have its own ROWS frame)")
		}
	}
	first.Select = append(first.Select, parts...)
	over.Keys, over.Time = len(parts), len(parts)
	for i, e := range orders {
		over.Order[i].Col = len(first.Select)
		first.Select = append(first.Select, e)
	}
	return nil
}

// eventTimeName names a table's event-time column for an error.
func eventTimeName(t *Table) string {
	if t.EventTime < 0 {
		return t.Name + " has none: declare a watermark"
	}
	return t.Columns[t.EventTime].Name
}

// overAgg compiles one aggregate call with OVER: its function, its
// argument (appended to first's SELECT list) and its frame.
func (c *compiler) overAgg(f *pg.FuncCall, row rowScope, first *sqlprog.Program) (sqlprog.OverAgg, error) {
	g := sqlprog.OverAgg{Fn: funcName(f), Arg: -1}
	switch {
	case f.AggDistinct || f.AggFilter != nil || len(f.AggOrder) > 0:
		return g, c.errAt(int(f.Location), "DISTINCT, FILTER and ORDER BY in an OVER aggregate are not supported")
	case f.AggStar && g.Fn != sqlprog.Count:
		return g, c.errAt(int(f.Location), "%s(*) is not an aggregate", strings.ToUpper(g.Fn))
	case !f.AggStar && len(f.Args) != 1:
		return g, c.errAt(int(f.Location), "%s takes one argument", strings.ToUpper(g.Fn))
	}
	if !f.AggStar {
		e, err := c.expr(f.Args[0], row)
		if err != nil {
			return g, err
		}
		g.Arg = len(first.Select)
		first.Select = append(first.Select, e)
	}
	w := f.Over
	opts := w.FrameOptions
	switch {
	case opts&frameRows == 0 || opts&frameEndCurrentRow == 0 || opts&^frameKnown != 0:
		return g, c.errAt(int(w.Location), "an OVER aggregate needs the frame ROWS BETWEEN n PRECEDING AND CURRENT ROW")
	case opts&frameStartUnbounded != 0:
		g.Preceding = sqlprog.Unbounded
	case opts&frameStartCurrentRow != 0:
		g.Preceding = 0
	case opts&frameStartOffsetPreceding != 0 && w.StartOffset.GetAConst().GetIval() != nil:
		g.Preceding = int(w.StartOffset.GetAConst().GetIval().Ival)
	case opts&frameStartOffsetPreceding != 0 && w.StartOffset.GetAConst() != nil && !w.StartOffset.GetAConst().Isnull:
		g.Preceding = 0 // NB: pg_query omits an Ival of 0
	default:
		return g, c.errAt(int(w.Location), "an OVER aggregate needs the frame ROWS BETWEEN n PRECEDING AND CURRENT ROW, n a constant, or UNBOUNDED PRECEDING")
	}
	if g.Preceding > sqlprog.MaxPreceding {
		return g, c.errAt(int(w.Location), "a ROWS frame reaches at most %d PRECEDING", sqlprog.MaxPreceding)
	}
	return g, nil
}

// overScope resolves the SELECT list of an OVER query over the sqlOver's
// output row: the table's columns from offset, each OVER call's result.
type overScope struct {
	row     rowScope
	offset  int
	results map[*pg.FuncCall]int
	types   []sqlrow.Type
}

func (s overScope) column(c *compiler, ref *pg.ColumnRef) (*sqlexpr.Expr, error) {
	e, err := s.row.column(c, ref)
	if err != nil {
		return nil, err
	}
	return sqlexpr.Col(e.Col+s.offset, e.Type), nil
}

func (s overScope) call(c *compiler, f *pg.FuncCall) (*sqlexpr.Expr, bool, error) {
	if i, ok := s.results[f]; ok {
		return sqlexpr.Col(i, s.types[i]), true, nil
	}
	name := funcName(f)
	switch {
	case f.Over != nil:
		return nil, true, c.errAt(int(f.Location), "%s() OVER is not supported here (OVER takes COUNT, SUM, AVG, MIN and MAX)", strings.ToUpper(name))
	case aggregates[name] || c.funcs[name] != nil || c.isWasmAggregate(name):
		return nil, true, c.errAt(int(f.Location), "%s is not supported in a query with OVER aggregates", strings.ToUpper(name))
	}
	return s.row.call(c, f)
}
