package sqlc

import (
	"slices"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// flinkDDL applies what rewrite.go took out of the column list of the
// CREATE TABLE whose name is at nameAt: a WATERMARK FOR clause, a PROCTIME()
// column.
func (c *compiler) flinkDDL(t *Table, nameAt int) error {
	if p, ok := c.flink.proctimes[nameAt]; ok {
		if t.column(p.col) >= 0 {
			return c.errAt(p.at, "column %q declared twice", p.col)
		}
		t.procTime = p.col
	}
	return c.ddlWatermark(t, nameAt)
}

// ddlWatermark applies the WATERMARK FOR clause that rewrite.go took out
// of the CREATE TABLE whose name is at nameAt, if there was one.
func (c *compiler) ddlWatermark(t *Table, nameAt int) error {
	w, ok := c.flink.watermarks[nameAt]
	if !ok {
		return nil
	}
	// NB: the expression is parsed where it stands: everything before it
	// is blank but for a SELECT, so its offsets are the script's.
	snippet := strings.Repeat(" ", w.exprAt-len("SELECT ")) + "SELECT " + c.src[w.exprAt:w.exprEnd]
	res, err := pg.Parse(snippet)
	if err != nil {
		return parseError(c.src, err)
	}
	e := res.Stmts[0].Stmt.GetSelectStmt().GetTargetList()[0].GetResTarget().Val
	var delay time.Duration
	ref := e.GetColumnRef()
	if a := e.GetAExpr(); a != nil && len(a.Name) == 1 && a.Name[0].GetString_().Sval == "-" && a.Lexpr != nil {
		ref = a.Lexpr.GetColumnRef()
		if delay, err = c.interval(a.Rexpr); err != nil {
			return err
		}
	}
	if ref == nil {
		return c.errAt(w.exprAt, "want WATERMARK FOR %s AS %s or %s - INTERVAL '5' SECOND", w.col, w.col, w.col)
	}
	if col, _, _ := columnName(ref); col != w.col {
		return c.errAt(int(ref.Location), "the watermark is the event-time column %q minus a delay, not %q", w.col, col)
	}
	if err := t.eventTime(w.col, delay); err != nil {
		return c.errAt(w.colAt, "WATERMARK FOR %s: %v", w.col, err)
	}
	return nil
}

// tvf returns the window table-valued function a query reads FROM, as the
// group window it is (TUMBLE(ts, size), HOP(ts, slide, size) or
// SESSION(ts, gap)), and the table it windows; nil if FROM is no window
// TVF.
func (c *compiler) tvf(sel *pg.SelectStmt) (*pg.FuncCall, *pg.RangeFunction, windowTVF) {
	if len(sel.FromClause) != 1 {
		return nil, nil, windowTVF{}
	}
	rf := sel.FromClause[0].GetRangeFunction()
	if rf == nil || len(rf.Functions) != 1 {
		return nil, nil, windowTVF{}
	}
	f := rf.Functions[0].GetList().GetItems()[0].GetFuncCall()
	if f == nil {
		return nil, nil, windowTVF{}
	}
	tvf, ok := c.flink.tvfs[int(f.Location)]
	if !ok || len(f.Args) == 0 {
		return nil, nil, windowTVF{}
	}
	win := &pg.FuncCall{Funcname: f.Funcname, Args: f.Args[1:], Location: f.Location}
	return win, rf, tvf
}

// tvfTable returns the table a window TVF reads and the name its rows go
// by: the TVF's alias, or the table's name.
func (c *compiler) tvfTable(sel *pg.SelectStmt) (*Table, string, error) {
	win, rf, _ := c.tvf(sel)
	f := rf.Functions[0].GetList().GetItems()[0].GetFuncCall()
	ref := f.Args[0].GetColumnRef()
	if ref == nil {
		return nil, "", c.errAt(location(f.Args[0]), "a window TVF reads a table: TABLE t")
	}
	name, _, _ := columnName(ref)
	t, err := c.table(name, int(ref.Location))
	if err != nil {
		return nil, "", err
	}
	if len(sel.GroupClause) == 0 {
		return nil, "", c.errAt(int(win.Location), "a window TVF's rows are aggregated: GROUP BY window_start, window_end[, keys] (a TVF's rows without GROUP BY are not supported yet)")
	}
	alias := t.Name
	if rf.Alias != nil {
		alias = rf.Alias.Aliasname
	}
	return t, alias, nil
}

// tvfGroup takes window_start and window_end out of a GROUP BY over a
// window TVF and returns the TVF's group window, or nil for a query that
// reads no TVF. Both bounds must be grouped by, as Flink requires.
func (c *compiler) tvfGroup(sel *pg.SelectStmt) (*pg.FuncCall, []*pg.Node, error) {
	win, _, _ := c.tvf(sel)
	if win == nil {
		return nil, sel.GroupClause, nil
	}
	var rest []*pg.Node
	seen := map[string]bool{}
	for _, g := range sel.GroupClause {
		if ref := g.GetColumnRef(); ref != nil {
			if name, _, _ := columnName(ref); name == "window_start" || name == "window_end" {
				seen[name] = true
				continue
			}
		}
		if f := g.GetFuncCall(); f != nil && windowFns[funcName(f)] != "" {
			return nil, nil, c.errAt(int(f.Location), "the query reads a window TVF: GROUP BY window_start, window_end instead of a group window")
		}
		rest = append(rest, g)
	}
	if !seen["window_start"] || !seen["window_end"] {
		return nil, nil, c.errAt(location(sel.GroupClause[0]), "a query over a window TVF groups by window_start and window_end (and keys)")
	}
	return win, rest, nil
}

// tvfPartition checks that a SESSION TVF's PARTITION BY columns are the
// query's GROUP BY keys: Floe's sessions are per key.
func (c *compiler) tvfPartition(sel *pg.SelectStmt, keyNames []string) error {
	win, _, tvf := c.tvf(sel)
	if win == nil || tvf.partition == nil {
		return nil
	}
	a, b := slices.Clone(tvf.partition), slices.Clone(keyNames)
	slices.Sort(a)
	slices.Sort(b)
	if !slices.Equal(a, b) {
		return c.errAt(tvf.partitionAt, "SESSION's PARTITION BY (%s) must name the GROUP BY's keys (%s): sessions are per key",
			strings.Join(tvf.partition, ", "), strings.Join(keyNames, ", "))
	}
	return nil
}
