package sqlc

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// aggregates are the aggregate functions, windowFns the group windows of
// GROUP BY (by function name, their window kind), and windowBounds the
// functions that name a window's start or end in the SELECT list.
var (
	aggregates   = map[string]bool{"count": true, "sum": true, "min": true, "max": true, "avg": true}
	windowFns    = map[string]string{"tumble": "tumbling", "hop": "sliding", "session": "session"}
	windowBounds = map[string]string{
		"tumble_start": "start", "tumble_end": "end", "hop_start": "start", "hop_end": "end",
		"session_start": "start", "session_end": "end",
	}
)

// groupBy compiles a query with GROUP BY a window and columns:
//
//	sql (WHERE; key columns, then aggregate arguments) -> keyBy row:K ->
//	window (built-in aggregate) -> sql (HAVING; the SELECT list)
func (c *compiler) groupBy(q *query, sel *pg.SelectStmt, rs rowScope) error {
	as := &aggScope{rs: rs}
	win, groups, err := c.tvfGroup(sel)
	if err != nil {
		return err
	}
	for _, g := range groups {
		if f := g.GetFuncCall(); f != nil && windowFns[funcName(f)] != "" {
			if win != nil {
				return c.errAt(int(f.Location), "a query groups by one window, this is the second")
			}
			win = f
			continue
		}
		if g.GetAConst() != nil {
			return c.errAt(location(g), "GROUP BY a position or a constant is not supported: name the column or expression")
		}
		e, err := c.expr(g, rs)
		if err != nil {
			return err
		}
		name := ""
		if ref := g.GetColumnRef(); ref != nil {
			name, _, _ = columnName(ref)
		}
		text := exprKey(e)
		if slices.Contains(as.keyTexts, text) {
			return c.errAt(location(g), "GROUP BY names this twice")
		}
		as.keyNames = append(as.keyNames, name)
		as.keyTexts = append(as.keyTexts, text)
		as.pre = append(as.pre, e)
	}
	if err := c.tvfPartition(sel, as.keyNames); err != nil {
		return err
	}
	var ws windowSpec
	if win != nil {
		if ws, err = c.window(win, q.source); err != nil {
			return err
		}
	}
	as.win = win
	as.keys = len(as.pre)
	first := &sqlprog.Program{In: q.source.Format, Prefix: q.source.Prefix, Columns: q.source.Columns, Out: sqlprog.FormatRow}
	if sel.WhereClause != nil {
		if first.Where, err = c.where(sel.WhereClause, rs); err != nil {
			return err
		}
	}
	exprs, locs, err := c.targets(sel.TargetList, as, q.source)
	if err != nil {
		return err
	}
	last := &sqlprog.Program{In: sqlprog.FormatRow, Out: q.sink.Format, Names: sinkNames(q.sink), Changelog: win == nil}
	if sel.HavingClause != nil {
		if last.Where, err = c.where(sel.HavingClause, as); err != nil {
			return err
		}
	}
	if last.Select, err = c.fitSink(q.sink, exprs, locs); err != nil {
		return err
	}
	if len(as.pre) == 0 {
		// NB: COUNT(*) alone reads no column, but a row has one value at least.
		as.pre = append(as.pre, sqlexpr.Lit(sqlrow.Value{}))
	}
	first.Select = as.pre
	first.Names = make([]string, len(as.pre))
	for i := range first.Names {
		first.Names[i] = "_" + strconv.Itoa(i)
	}
	agg := &sqlprog.Aggregation{Input: first.OutputTypes(), Keys: as.keys, Aggs: as.aggs}
	out, middle := agg.Output(), operator{kind: "window", suffix: "window", agg: agg, window: ws, aggFns: as.wasmFns}
	if win == nil {
		// NB: an updating result: a changelog of each key's latest row.
		out, middle = agg.GroupOutput(), operator{kind: "sqlGroup", suffix: "group", agg: agg, aggFns: as.wasmFns}
	}
	for i, t := range out {
		last.Columns = append(last.Columns, sqlprog.Column{Name: "_" + strconv.Itoa(i), Type: t})
	}
	q.ops = append(q.ops,
		operator{kind: "sql", suffix: "pre", prog: first},
		operator{kind: "keyBy", suffix: "key", keys: as.keys},
		middle,
		operator{kind: "sql", suffix: "select", prog: last})
	return nil
}

// window reads TUMBLE(ts, size), HOP(ts, slide, size) or SESSION(ts, gap):
// ts must be the table's event-time column.
func (c *compiler) window(f *pg.FuncCall, t *Table) (windowSpec, error) {
	name := funcName(f)
	ws := windowSpec{kind: windowFns[name]}
	want := map[string]int{"tumble": 2, "hop": 3, "session": 2}[name]
	usage := map[string]string{"tumble": "TUMBLE(ts, INTERVAL '10' SECOND)", "hop": "HOP(ts, slide, size), e.g. HOP(ts, INTERVAL '2' SECOND, INTERVAL '10' SECOND)",
		"session": "SESSION(ts, INTERVAL '30' SECOND)"}[name]
	if len(f.Args) != want {
		return ws, c.errAt(int(f.Location), "%s takes %d arguments: %s", strings.ToUpper(name), want, usage)
	}
	ref := f.Args[0].GetColumnRef()
	if ref == nil {
		return ws, c.errAt(location(f.Args[0]), "the first argument of %s is the table's event-time column", strings.ToUpper(name))
	}
	col, _, _ := columnName(ref)
	if ws.proc = col == t.procTime; ws.proc {
		if name == "session" {
			return ws, c.errAt(int(f.Location), "SESSION windows are in event time only: TUMBLE or HOP over %s", col)
		}
	} else if t.EventTime < 0 {
		return ws, c.errAt(int(ref.Location), "table %s has no event time: declare WITH (watermark = '%s - 5s')", t.Name, col)
	} else if et := t.Columns[t.EventTime].Name; col != et {
		return ws, c.errAt(int(ref.Location), "%s windows by the event-time column of %s, which is %q, not %q", strings.ToUpper(name), t.Name, et, col)
	}
	ds := make([]time.Duration, len(f.Args)-1)
	for i, a := range f.Args[1:] {
		d, err := c.interval(a)
		if err != nil {
			return ws, err
		}
		ds[i] = d
	}
	switch name {
	case "tumble":
		ws.size = ds[0]
	case "hop":
		ws.slide, ws.size = ds[0], ds[1]
		if ws.size%ws.slide != 0 {
			return ws, c.errAt(int(f.Location), "a HOP window's size (%v) must be a multiple of its slide (%v)", ws.size, ws.slide)
		}
	case "session":
		ws.gap = ds[0]
	}
	return ws, nil
}

// The interval fields of PostgreSQL's INTERVAL 'n' UNIT typmod.
var intervalUnits = map[int32]time.Duration{
	1 << 12: time.Second, 1 << 11: time.Minute, 1 << 10: time.Hour, 1 << 3: 24 * time.Hour,
}

// interval reads INTERVAL '10' SECOND (or MINUTE, HOUR, DAY), or
// INTERVAL '1.5 seconds', '500 milliseconds', '2 minutes'.
func (c *compiler) interval(n *pg.Node) (time.Duration, error) {
	tc := n.GetTypeCast()
	if tc == nil || typeName(tc.TypeName) != "interval" || tc.Arg.GetAConst().GetSval() == nil {
		return 0, c.errAt(location(n), "want an INTERVAL such as INTERVAL '10' SECOND")
	}
	text := strings.TrimSpace(tc.Arg.GetAConst().GetSval().Sval)
	loc := int(tc.Arg.GetAConst().Location)
	unit := time.Duration(0)
	if mods := tc.TypeName.Typmods; len(mods) > 0 {
		unit = intervalUnits[mods[0].GetAConst().GetIval().GetIval()]
		if unit == 0 {
			return 0, c.errAt(loc, "an INTERVAL's unit is SECOND, MINUTE, HOUR or DAY")
		}
	}
	num, word, _ := strings.Cut(text, " ")
	if unit == 0 {
		unit = map[string]time.Duration{"millisecond": time.Millisecond, "milliseconds": time.Millisecond, "ms": time.Millisecond,
			"second": time.Second, "seconds": time.Second, "s": time.Second, "minute": time.Minute, "minutes": time.Minute,
			"hour": time.Hour, "hours": time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour}[strings.ToLower(strings.TrimSpace(word))]
	} else if word != "" {
		unit = 0
	}
	f, err := strconv.ParseFloat(num, 64)
	d := time.Duration(f * float64(unit))
	if err != nil || unit == 0 || d < time.Millisecond || d%time.Millisecond != 0 {
		return 0, c.errAt(loc, "bad interval %q: want a whole number of milliseconds, at least 1, such as INTERVAL '10' SECOND or INTERVAL '500 milliseconds'", text)
	}
	return d, nil
}

// aggScope resolves the names of a grouped query's SELECT list and HAVING:
// grouping columns, aggregate calls and the window's bounds. Each
// aggregate's argument is compiled over the table's rows into pre, after
// the key columns; the result is a column of the window's output row
// key..., window_start, window_end, aggregate....
type aggScope struct {
	rs  rowScope
	win *pg.FuncCall
	// keyNames names the GROUP BY items that are columns ("" for an
	// expression); keyTexts holds every item's compiled form, so that the
	// same expression in the SELECT list is found to be a key.
	keyNames []string
	keyTexts []string
	keys     int
	pre      []*sqlexpr.Expr
	aggs     []sqlprog.Agg
	// seen maps an aggregate, by function and compiled argument, to its
	// index in aggs, so that a repeated COUNT(*) is computed once.
	seen map[string]int
	// wasmFns are the Wasm aggregates among aggs, in order (aggfunc.go).
	wasmFns []*Function
}

// exprKey identifies a compiled expression: two texts that compile alike
// (price/100 and PRICE / 100) are the same GROUP BY key.
func exprKey(e *sqlexpr.Expr) string {
	b, _ := json.Marshal(e)
	return string(b)
}

// whole returns the key column that n computes, when n is not a plain
// column but an expression GROUP BY names; ok is false otherwise.
func (s *aggScope) whole(c *compiler, n *pg.Node) (*sqlexpr.Expr, bool) {
	if n.GetColumnRef() != nil || n.GetAConst() != nil {
		return nil, false
	}
	e, err := c.expr(n, s.rs)
	if err != nil {
		return nil, false // NB: an aggregate, or a window bound: not a key
	}
	if i := slices.Index(s.keyTexts, exprKey(e)); i >= 0 {
		return s.output(i, e.Type), true
	}
	return nil, false
}

// bounds is the number of window bounds in the output row: window_start
// and window_end, or none for a GROUP BY without a window.
func (s *aggScope) bounds() int {
	if s.win == nil {
		return 0
	}
	return 2
}

// output returns the column of the window's output row at index i.
func (s *aggScope) output(i int, t sqlrow.Type) *sqlexpr.Expr { return sqlexpr.Col(i, t) }

func (s *aggScope) column(c *compiler, ref *pg.ColumnRef) (*sqlexpr.Expr, error) {
	name, _, star := columnName(ref)
	if star {
		return nil, c.errAt(int(ref.Location), "* is not allowed in a query with GROUP BY")
	}
	if i := slices.Index(s.keyNames, name); i >= 0 {
		return s.output(i, s.pre[i].Type), nil
	}
	switch {
	case s.win == nil && (name == "window_start" || name == "window_end"):
		return nil, c.errAt(int(ref.Location), "%s: the query groups by no window", name)
	}
	switch name {
	case "window_start":
		return s.bound(s.keys), nil
	case "window_end":
		return s.bound(s.keys + 1), nil
	}
	if _, err := s.rs.column(c, ref); err != nil {
		return nil, err
	}
	return nil, c.errAt(int(ref.Location), "column %q must appear in GROUP BY or be used in an aggregate function", name)
}

func (s *aggScope) call(c *compiler, f *pg.FuncCall) (*sqlexpr.Expr, bool, error) {
	name := funcName(f)
	if b := windowBounds[name]; b != "" {
		if s.win == nil {
			return nil, true, c.errAt(int(f.Location), "%s: the query groups by no window", strings.ToUpper(name))
		}
		if !strings.HasPrefix(name, funcName(s.win)+"_") {
			return nil, true, c.errAt(int(f.Location), "%s does not match the query's %s window", strings.ToUpper(name), strings.ToUpper(funcName(s.win)))
		}
		if b == "start" {
			return s.bound(s.keys), true, nil
		}
		return s.bound(s.keys + 1), true, nil
	}
	if windowFns[name] != "" {
		return nil, true, c.errAt(int(f.Location), "%s belongs in GROUP BY; use %s_START or %s_END (or window_start, window_end) in the SELECT list", strings.ToUpper(name), strings.ToUpper(name), strings.ToUpper(name))
	}
	if fn := c.funcs[name]; fn != nil && fn.Kind == aggregateFunc {
		e, err := s.wasmAggregate(c, fn, f)
		return e, true, err
	}
	if !aggregates[name] {
		return nil, false, nil
	}
	fn := name
	if f.AggDistinct {
		if name != sqlprog.Count {
			return nil, true, c.errAt(int(f.Location), "%s(DISTINCT ...) is not supported yet (COUNT(DISTINCT ...) is)", strings.ToUpper(name))
		}
		fn = sqlprog.CountDistinct
	}
	if f.Over != nil || f.AggFilter != nil || len(f.AggOrder) > 0 {
		return nil, true, c.errAt(int(f.Location), "OVER, FILTER and ORDER BY in aggregates are not supported yet")
	}
	a := sqlprog.Agg{Fn: fn, Arg: -1}
	switch {
	case f.AggStar && name == sqlprog.Count:
	case len(f.Args) != 1:
		return nil, true, c.errAt(int(f.Location), "%s takes one argument", strings.ToUpper(name))
	default:
		arg, err := c.expr(f.Args[0], s.rs)
		if err != nil {
			return nil, true, err
		}
		if _, err := sqlprog.ResultType(fn, arg.Type); err != nil {
			return nil, true, c.errAt(int(f.Location), "%v", err)
		}
		a.Arg = len(s.pre)
		s.pre = append(s.pre, arg)
	}
	key := fn + "|*"
	if a.Arg >= 0 {
		key = fn + "|" + exprKey(s.pre[a.Arg])
	}
	if s.seen == nil {
		s.seen = map[string]int{}
	}
	idx, ok := s.seen[key]
	if !ok {
		idx = len(s.aggs)
		s.aggs = append(s.aggs, a)
		s.seen[key] = idx
	} else if a.Arg >= 0 {
		s.pre = s.pre[:len(s.pre)-1]
	}
	var argType sqlrow.Type
	if a.Arg >= 0 {
		argType = s.pre[s.aggs[idx].Arg].Type
	}
	t, _ := sqlprog.ResultType(fn, argType)
	return s.output(s.keys+s.bounds()+idx, t), true, nil
}
