package sqlc

import (
	"slices"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// A Top-N query ranks a table's rows per partition and keeps the first N
// (docs/sql.md, "Top-N and deduplication"):
//
//	SELECT cols FROM (
//	  SELECT cols, ROW_NUMBER() OVER (PARTITION BY p ORDER BY o) AS rn FROM t [WHERE ...]
//	) [alias] WHERE rn <= N [AND ...]
//
// It compiles to sql (partition keys, sort keys, the inner SELECT list) ->
// keyBy row:P -> sqlTopN -> sql (the outer WHERE; the SELECT list, as a
// changelog): the sqlTopN emits each rank whose row changed as the row
// partition..., sort..., inner..., rank. A window Top-N (windowtopn.go)
// puts a window whose function ranks in the sqlTopN's place.

// isTopN reports whether a SELECT reads a subquery, which the dialect
// allows only for Top-N.
func isTopN(sel *pg.SelectStmt) bool {
	return len(sel.FromClause) == 1 && sel.FromClause[0].GetRangeSubselect() != nil
}

// topNQuery compiles INSERT INTO sink SELECT ... FROM (SELECT ...,
// ROW_NUMBER() OVER (...) AS rn FROM t) WHERE rn <= N, and its window
// forms (windowtopn.go).
func (c *compiler) topNQuery(q *query, sel *pg.SelectStmt) error {
	rs := sel.FromClause[0].GetRangeSubselect()
	inner := rs.Subquery.GetSelectStmt()
	if inner == nil || len(inner.TargetList) == 0 {
		return c.errAt(0, "FROM (subquery) takes a SELECT")
	}
	// NB: pg_query gives a subquery in FROM no location; its SELECT list has one.
	at := int(inner.TargetList[0].GetResTarget().Location)
	if err := c.unsupported(inner); err != nil {
		return err
	}
	switch {
	case len(inner.GroupClause) > 0 || inner.HavingClause != nil || c.hasAggregate(inner.TargetList):
		return c.errAt(at, "a subquery is only supported for Top-N, without GROUP BY (rank a GROUP BY's rows from a subquery of the Top-N's subquery)")
	case len(sel.GroupClause) > 0 || sel.HavingClause != nil || c.hasAggregate(sel.TargetList):
		return c.errAt(at, "GROUP BY over a Top-N is not supported")
	}
	src, agg, alias, err := c.topNSource(q, inner, at)
	if err != nil {
		return err
	}
	row := rowScope{t: src, alias: alias}
	sub := &subScope{}
	if rs.Alias != nil {
		sub.alias = rs.Alias.Aliasname
	}
	var over *pg.WindowDef
	var items []*sqlexpr.Expr
	var itemNames []string
	var bounds []boundItem
	rank := &sqlprog.TopN{}
	for _, n := range inner.TargetList {
		rt := n.GetResTarget()
		if f := rt.Val.GetFuncCall(); f != nil && rankFns[funcName(f)] {
			if over != nil {
				return c.errAt(int(f.Location), "a Top-N ranks once: this is a second ranking function")
			}
			if f.Over == nil || rt.Name == "" {
				return c.errAt(int(f.Location), "write %s() OVER (PARTITION BY ... ORDER BY ...) AS rn", strings.ToUpper(funcName(f)))
			}
			over, sub.rank, rank.Fn = f.Over, rt.Name, funcName(f)
			continue
		}
		if ref := rt.Val.GetColumnRef(); ref != nil {
			if _, _, star := columnName(ref); star {
				for i, col := range src.Columns {
					items = append(items, sqlexpr.Col(i, col.Type))
					itemNames = append(itemNames, col.Name)
				}
				continue
			}
		}
		if b, ok := c.windowBoundItem(rt, src); ok {
			bounds = append(bounds, b)
			continue
		}
		e, err := c.expr(rt.Val, row)
		if err != nil {
			return err
		}
		name := rt.Name
		if ref := rt.Val.GetColumnRef(); ref != nil && name == "" {
			name, _, _ = columnName(ref)
		}
		items = append(items, e)
		itemNames = append(itemNames, name)
	}
	if over == nil {
		return c.errAt(at, "a subquery is only supported for Top-N: its SELECT list needs ROW_NUMBER(), RANK() or DENSE_RANK() OVER (PARTITION BY ... ORDER BY ...) AS rn")
	}
	first := &sqlprog.Program{In: src.Format, Prefix: src.Prefix, Columns: src.Columns, Out: sqlprog.FormatRow}
	if inner.WhereClause != nil {
		if first.Where, err = c.where(inner.WhereClause, row); err != nil {
			return err
		}
	}
	win, err := c.partition(over, src, agg, row, first, rank)
	if err != nil {
		return err
	}
	if err := c.sortKeys(over, row, first, rank); err != nil {
		return err
	}
	offset := len(first.Select)
	first.Select = append(first.Select, items...)
	for i, e := range first.Select {
		first.Names = append(first.Names, "_"+strconv.Itoa(i))
		rank.Input = append(rank.Input, e.Type)
	}
	sub.types = append([]sqlrow.Type{}, rank.Input...)
	for i, name := range itemNames {
		sub.names, sub.cols = append(sub.names, name), append(sub.cols, offset+i)
	}
	if win != nil {
		// NB: a window Top-N's row goes on with its window's bounds.
		sub.types = append(sub.types, sqlrow.BigInt, sqlrow.BigInt)
	}
	if err := c.boundItems(bounds, win, src, sub, len(rank.Input)); err != nil {
		return err
	}
	sub.types = append(sub.types, sqlrow.BigInt)
	rest, err := c.rankLimit(sel.WhereClause, at, sub, rank)
	if err != nil {
		return err
	}
	last := &sqlprog.Program{In: sqlprog.FormatRow, Out: q.sink.Format, Names: sinkNames(q.sink), Changelog: win == nil}
	for i, t := range sub.types {
		last.Columns = append(last.Columns, sqlprog.Column{Name: "_" + strconv.Itoa(i), Type: t})
	}
	var where []*sqlexpr.Expr
	if win == nil && rank.Retracts() {
		// NB: a retraction is a delete: its last column is FALSE.
		where = append(where, sqlexpr.Col(len(last.Columns), sqlrow.Boolean))
		last.Columns = append(last.Columns, sqlprog.Column{Name: "_" + strconv.Itoa(len(last.Columns)), Type: sqlrow.Boolean})
	}
	for _, n := range rest {
		w, err := c.where(n, sub)
		if err != nil {
			return err
		}
		where = append(where, w)
	}
	if last.Where, err = allOf(where); err != nil {
		return err
	}
	exprs, locs, err := c.targets(sel.TargetList, sub, nil)
	if err != nil {
		return err
	}
	if last.Select, err = c.fitSink(q.sink, exprs, locs); err != nil {
		return err
	}
	middle := operator{kind: "sqlTopN", suffix: "topn", topN: rank}
	if win != nil {
		middle = operator{kind: "window", suffix: "topn", topN: rank, window: *win}
	}
	q.ops = append(q.ops,
		operator{kind: "sql", suffix: "pre", prog: first},
		operator{kind: "keyBy", suffix: "key", keys: rank.Keys},
		middle,
		operator{kind: "sql", suffix: "select", prog: last})
	return nil
}

// rankFns are the functions that number a Top-N's rows.
var rankFns = map[string]bool{sqlprog.RowNumber: true, sqlprog.Rank: true, sqlprog.DenseRank: true}

// sortKeys compiles the ranking's ORDER BY into sort keys, appended to
// first's SELECT list.
func (c *compiler) sortKeys(over *pg.WindowDef, row rowScope, first *sqlprog.Program, rank *sqlprog.TopN) error {
	if len(over.OrderClause) == 0 {
		return c.errAt(int(over.Location), "a Top-N needs ORDER BY in its OVER (...)")
	}
	for _, o := range over.OrderClause {
		sb := o.GetSortBy()
		e, err := c.expr(sb.Node, row)
		if err != nil {
			return err
		}
		k := sqlprog.SortKey{Col: len(first.Select), Desc: sb.SortbyDir == pg.SortByDir_SORTBY_DESC}
		switch sb.SortbyNulls {
		case pg.SortByNulls_SORTBY_NULLS_FIRST:
			k.NullsFirst = true
		case pg.SortByNulls_SORTBY_NULLS_DEFAULT:
			k.NullsFirst = k.Desc // NB: PostgreSQL's NULL is larger than every value
		}
		if sb.UseOp != nil {
			return c.errAt(int(sb.Location), "ORDER BY ... USING is not supported")
		}
		rank.Order = append(rank.Order, k)
		first.Select = append(first.Select, e)
	}
	return nil
}

// rankLimit finds, among the outer WHERE's conjuncts, the one that bounds
// the rank (rn <= N, rn < N or rn = 1) and sets N; it returns the others.
func (c *compiler) rankLimit(where *pg.Node, at int, sub *subScope, rank *sqlprog.TopN) ([]*pg.Node, error) {
	var rest []*pg.Node
	found := false
	for _, x := range conjunctsOf(where) {
		a := x.GetAExpr()
		if found || a == nil || a.Kind != pg.A_Expr_Kind_AEXPR_OP || !sub.isRank(a.Lexpr) || a.Rexpr.GetAConst().GetIval() == nil {
			rest = append(rest, x)
			continue
		}
		n := int(a.Rexpr.GetAConst().GetIval().Ival)
		switch opName(a) {
		case "<=":
			rank.N = n
		case "<":
			rank.N = n - 1
		case "=":
			if n != 1 {
				return nil, c.errAt(int(a.Location), "%s = %d: only %s = 1 (or <= N) is supported", sub.rank, n, sub.rank)
			}
			rank.N = 1
		default:
			rest = append(rest, x)
			continue
		}
		if rank.N < 1 {
			return nil, c.errAt(int(a.Location), "the rank bound keeps no row")
		}
		found = true
	}
	if !found {
		if where != nil {
			at = location(where)
		}
		return nil, c.errAt(at, "a Top-N needs WHERE %s <= N (a constant) outside the subquery: an unbounded ranking is not supported", sub.rank)
	}
	return rest, nil
}

// conjunctsOf returns the terms of a WHERE, none for no WHERE.
func conjunctsOf(n *pg.Node) []*pg.Node {
	if n == nil {
		return nil
	}
	return conjuncts(n)
}

// subScope resolves the columns of a Top-N's subquery: its SELECT list by
// name, and the rank.
type subScope struct {
	alias string
	// names are the SELECT list's names, cols their columns in the
	// ranked row, types the ranked row's types, the rank last.
	names []string
	cols  []int
	types []sqlrow.Type
	rank  string
	// timestamps are the window bounds, in milliseconds, that read as
	// TIMESTAMPs (a window Top-N over a TIMESTAMP event time).
	timestamps []int
}

// isRank reports whether n names the rank column.
func (s *subScope) isRank(n *pg.Node) bool {
	ref := n.GetColumnRef()
	if ref == nil {
		return false
	}
	name, qual, star := columnName(ref)
	return !star && name == s.rank && (qual == "" || qual == s.alias)
}

func (s *subScope) column(c *compiler, ref *pg.ColumnRef) (*sqlexpr.Expr, error) {
	name, qual, star := columnName(ref)
	if star {
		return nil, c.errAt(int(ref.Location), "* is not supported over a Top-N: name the columns")
	}
	if qual != "" && qual != s.alias {
		return nil, c.errAt(int(ref.Location), "unknown table %q (the query reads a subquery%s)", qual, map[bool]string{true: " called " + s.alias, false: ""}[s.alias != ""])
	}
	if name == s.rank {
		return sqlexpr.Col(len(s.types)-1, sqlrow.BigInt), nil
	}
	for i, n := range s.names {
		if n == name {
			e := sqlexpr.Col(s.cols[i], s.types[s.cols[i]])
			if slices.Contains(s.timestamps, s.cols[i]) {
				e, _ = sqlexpr.New(sqlexpr.OpCast, "", sqlrow.Timestamp, e)
			}
			return e, nil
		}
	}
	return nil, c.errAt(int(ref.Location), "unknown column %q: the subquery's SELECT list names %v and %s", name, s.names, s.rank)
}

func (s *subScope) call(c *compiler, f *pg.FuncCall) (*sqlexpr.Expr, bool, error) {
	return rowScope{}.call(c, f)
}
