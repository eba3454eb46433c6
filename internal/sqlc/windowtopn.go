package sqlc

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// A window Top-N ranks the rows of each window (docs/sql.md, "Window
// Top-N"), in one of two forms:
//
//	-- the rows of a table, per window of it
//	SELECT ... FROM (
//	  SELECT cols, window_end, RANK() OVER (PARTITION BY TUMBLE(ts, size) [, k] ORDER BY o) AS rk FROM t
//	) WHERE rk <= N
//	-- the rows of a windowed GROUP BY, per window
//	SELECT ... FROM (
//	  SELECT cols, RANK() OVER (PARTITION BY window_start, window_end [, k] ORDER BY o) AS rk
//	  FROM (SELECT k, window_start, window_end, COUNT(*) AS n FROM t GROUP BY k, HOP(ts, slide, size))
//	) WHERE rk <= N
//
// Either compiles as a Top-N (topn.go) whose sqlTopN is a window whose
// function ranks (a sqlprog.TopN as its sql:): the window's rows are
// complete when it fires, so its result is appended, not updated, and
// RANK() and DENSE_RANK() need no retractions. Over a GROUP BY, the
// GROUP BY's operators come first and the ranking window is a tumbling
// one of the GROUP BY's slide: a window of the GROUP BY emits its rows at
// its last instant, which falls in exactly one of them.

// subqueryConnector marks the Table that stands for a Top-N's windowed
// GROUP BY: its rows are the GROUP BY's SELECT list, as rows.
const subqueryConnector = "(subquery)"

// aggSource is a Top-N's windowed GROUP BY: its window, and the columns of
// its rows that hold window_start and window_end (-1 if not selected).
type aggSource struct {
	win        windowSpec
	start, end int
}

// boundItem is window_start, window_end, TUMBLE_END(...) and the like in
// the SELECT list of a window Top-N over a table.
type boundItem struct {
	name, bound string // bound is start or end
	f           *pg.FuncCall
	at          int
}

// topNSource returns what a Top-N's subquery reads: a table, or a
// windowed GROUP BY in a subquery of its own, whose operators it adds to
// q.
func (c *compiler) topNSource(q *query, inner *pg.SelectStmt, at int) (*Table, *aggSource, string, error) {
	if len(inner.FromClause) == 1 {
		if rs := inner.FromClause[0].GetRangeSubselect(); rs != nil {
			return c.aggSource(q, rs, at)
		}
	}
	if isJoin(inner) {
		src, err := c.joinSource(q, inner, at)
		return src, nil, "", err
	}
	src, alias, err := c.from(inner)
	if err != nil {
		return nil, nil, "", err
	}
	if src == q.sink {
		return nil, nil, "", c.errAt(at, "a query cannot read the table it writes")
	}
	q.source = src
	return src, nil, alias, nil
}

// aggSource compiles FROM (SELECT ... GROUP BY ..., window) under a Top-N
// and returns the table its rows make.
func (c *compiler) aggSource(q *query, rs *pg.RangeSubselect, at int) (*Table, *aggSource, string, error) {
	sel := rs.Subquery.GetSelectStmt()
	if sel == nil || len(sel.TargetList) == 0 {
		return nil, nil, "", c.errAt(at, "FROM (subquery) takes a SELECT")
	}
	at = int(sel.TargetList[0].GetResTarget().Location)
	if err := c.unsupported(sel); err != nil {
		return nil, nil, "", err
	}
	if isJoin(sel) || isTopN(sel) || isDistinct(sel) || len(sel.GroupClause) == 0 {
		return nil, nil, "", c.errAt(at, "a Top-N's subquery reads a table or a windowed GROUP BY of one")
	}
	src, alias, err := c.from(sel)
	if err != nil {
		return nil, nil, "", err
	}
	if src == q.sink {
		return nil, nil, "", c.errAt(at, "a query cannot read the table it writes")
	}
	var names []string
	for _, n := range sel.TargetList {
		rt := n.GetResTarget()
		name := rt.Name
		if ref := rt.Val.GetColumnRef(); ref != nil && name == "" {
			name, _, _ = columnName(ref)
		}
		if name == "" {
			return nil, nil, "", c.errAt(int(rt.Location), "name this column with AS: the Top-N reads it by name")
		}
		names = append(names, name)
	}
	virt := &Table{Name: "subquery", Connector: subqueryConnector, Format: sqlprog.FormatRow, EventTime: -1}
	scope := rowScope{t: src, alias: alias, calls: &udfCalls{width: len(src.Columns)}}
	sq := &query{source: src, sink: virt}
	if err := c.groupBy(sq, sel, scope); err != nil {
		return nil, nil, "", err
	}
	c.placeCalls(sq, scope.calls)
	var win *operator
	for i := range sq.ops {
		if sq.ops[i].kind == "window" {
			win = &sq.ops[i]
		}
		sq.ops[i].suffix = "agg-" + sq.ops[i].suffix
	}
	switch {
	case win == nil:
		return nil, nil, "", c.errAt(at, "a Top-N over a GROUP BY without a window ranks an updating result, which is not supported yet")
	case win.window.kind == "session":
		return nil, nil, "", c.errAt(at, "a window Top-N ranks TUMBLE or HOP windows, not SESSION ones")
	}
	out := &aggSource{win: win.window, start: -1, end: -1}
	last := sq.ops[len(sq.ops)-1].prog
	last.Names = names
	for i, e := range last.Select {
		virt.Columns = append(virt.Columns, sqlprog.Column{Name: names[i], Type: e.Type})
		switch col := uncast(e); {
		case col.Op == sqlexpr.OpCol && col.Col == win.agg.Keys:
			out.start = i
		case col.Op == sqlexpr.OpCol && col.Col == win.agg.Keys+1:
			out.end = i
		}
	}
	q.source = src
	q.ops = append(q.ops, sq.ops...)
	name := ""
	if rs.Alias != nil {
		name = rs.Alias.Aliasname
	}
	return virt, out, name, nil
}

// uncast returns e without a CAST around it: a window bound of a
// TIMESTAMP event time is its column cast to TIMESTAMP (timeBound).
func uncast(e *sqlexpr.Expr) *sqlexpr.Expr {
	if e.Op == sqlexpr.OpCast && len(e.Args) == 1 {
		return e.Args[0]
	}
	return e
}

// partition compiles the ranking's PARTITION BY into keys, the start of
// first's SELECT list, and returns the window it ranks in, or nil for a
// Top-N over a whole table.
func (c *compiler) partition(over *pg.WindowDef, src *Table, agg *aggSource, row rowScope, first *sqlprog.Program, rank *sqlprog.TopN) (*windowSpec, error) {
	var win *windowSpec
	start, end := false, false
	for _, p := range over.PartitionClause {
		if f := p.GetFuncCall(); f != nil && windowFns[funcName(f)] != "" {
			switch {
			case agg != nil:
				return nil, c.errAt(int(f.Location), "the subquery's rows are a window's already: PARTITION BY window_start, window_end")
			case win != nil:
				return nil, c.errAt(int(f.Location), "a Top-N ranks in one window, this is the second")
			}
			ws, err := c.window(f, src)
			if err != nil {
				return nil, err
			}
			if ws.kind == "session" {
				return nil, c.errAt(int(f.Location), "a window Top-N ranks TUMBLE or HOP windows, not SESSION ones")
			}
			win = &ws
			continue
		}
		e, err := c.expr(p, row)
		if err != nil {
			return nil, err
		}
		if agg != nil && e.Op == sqlexpr.OpCol {
			start, end = start || e.Col == agg.start, end || e.Col == agg.end
		}
		first.Select = append(first.Select, e)
	}
	rank.Keys = len(first.Select)
	if agg == nil {
		return win, nil
	}
	if !start || !end {
		return nil, c.errAt(int(over.Location), "a Top-N over a windowed GROUP BY partitions by its window_start and window_end (a ranking across windows is not supported)")
	}
	ws := windowSpec{kind: "tumbling", size: agg.win.size}
	if agg.win.kind == "sliding" {
		ws.size = agg.win.slide
	}
	return &ws, nil
}

// windowBoundItem reports whether a SELECT list item of a Top-N over a
// table is a window bound: window_start or window_end (when the table has
// no such column), or TUMBLE_START(...) and the like.
func (c *compiler) windowBoundItem(rt *pg.ResTarget, src *Table) (boundItem, bool) {
	if src.Connector == subqueryConnector {
		return boundItem{}, false
	}
	if ref := rt.Val.GetColumnRef(); ref != nil {
		name, _, star := columnName(ref)
		if star || (name != "window_start" && name != "window_end") || src.column(name) >= 0 {
			return boundItem{}, false
		}
		b := boundItem{name: name, bound: strings.TrimPrefix(name, "window_"), at: int(rt.Location)}
		if rt.Name != "" {
			b.name = rt.Name
		}
		return b, true
	}
	f := rt.Val.GetFuncCall()
	if f == nil || windowBounds[funcName(f)] == "" {
		return boundItem{}, false
	}
	b := boundItem{name: rt.Name, bound: windowBounds[funcName(f)], f: f, at: int(f.Location)}
	if b.name == "" {
		b.name = funcName(f)
	}
	return b, true
}

// boundItems gives the window bounds of the SELECT list their columns,
// those the window Top-N appends to each row, after checking that each
// names the ranking's window.
func (c *compiler) boundItems(items []boundItem, win *windowSpec, src *Table, sub *subScope, width int) error {
	for _, b := range items {
		if win == nil {
			return c.errAt(b.at, "%s: the Top-N ranks in no window (PARTITION BY TUMBLE(...) or HOP(...))", b.name)
		}
		if b.f != nil {
			kind, _, _ := strings.Cut(funcName(b.f), "_")
			ws, err := c.window(&pg.FuncCall{Funcname: []*pg.Node{pg.MakeStrNode(kind)}, Args: b.f.Args, Location: b.f.Location}, src)
			if err != nil {
				return err
			}
			if ws != *win {
				return c.errAt(b.at, "%s does not name the window of the Top-N's PARTITION BY", strings.ToUpper(funcName(b.f)))
			}
		}
		col := width
		if b.bound == "end" {
			col++
		}
		sub.names, sub.cols = append(sub.names, b.name), append(sub.cols, col)
		if timeBound(sqlexpr.Col(col, sqlrow.BigInt), src).Type == sqlrow.Timestamp {
			sub.timestamps = append(sub.timestamps, col)
		}
	}
	return nil
}
