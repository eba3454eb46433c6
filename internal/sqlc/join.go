package sqlc

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// A join query reads two tables, left and right, joined on equal keys and
// a time bound (docs/sql.md, "Joins"):
//
//	left:  sql (keys, then every column) -> keyBy row:K ─┐
//	right: sql (keys, then every column) -> keyBy row:K ─┴> intervalJoin or windowJoin -> sql (WHERE; the SELECT list)
//
// The join's SQL combiner (host/sqlop.JoinRows) makes each pair the row
//
//	left keys..., left columns..., right keys..., right columns... [, window_start, window_end]
//
// which the last sql operator reads through a joinScope.

// joinPlan is what a join query has before its join: the right table and
// the operators of each side.
type joinPlan struct {
	right *Table
	sides [2][]operator
	// more and moreSides are the later tables of a chain of joins and
	// their operators (multijoin.go).
	more      []*Table
	moreSides [][]operator
}

// joinStep is the join operator's configuration.
type joinStep struct {
	interval     bool
	lower, upper time.Duration // interval join
	kind         string        // window join: inner or leftOuter
	window       windowSpec
	rows         sqlprog.JoinRows
	link         int // the join's place in a chain of joins (multijoin.go)

	// until is the left table's column, counting from 1, that bounds an
	// interval join from above per row (joinbound.go); 0 for none.
	until int
}

// isJoin reports whether a SELECT reads a JOIN, or two tables (FROM a, b).
func isJoin(sel *pg.SelectStmt) bool {
	switch len(sel.FromClause) {
	case 1:
		return sel.FromClause[0].GetJoinExpr() != nil
	case 2:
		return sel.FromClause[0].GetRangeVar() != nil && sel.FromClause[1].GetRangeVar() != nil
	}
	return false
}

// joinQuery compiles INSERT INTO sink SELECT ... FROM a JOIN b ON ....
// FROM a, b WHERE cond is the inner join a JOIN b ON cond, as Flink's
// interval joins are often written.
func (c *compiler) joinQuery(q *query, sel *pg.SelectStmt) error {
	je, where := sel.FromClause[0].GetJoinExpr(), sel.WhereClause
	if je != nil && je.Larg.GetJoinExpr() != nil {
		return c.chainJoin(q, sel, je, where)
	}
	if je == nil {
		je = &pg.JoinExpr{Jointype: pg.JoinType_JOIN_INNER, Larg: sel.FromClause[0], Rarg: sel.FromClause[1], Quals: where}
		if je.Quals == nil {
			return c.errAt(location(sel.FromClause[1]), "FROM a, b joins the two tables: WHERE needs a.k = b.k AND a time bound (a cross join is not supported)")
		}
		where = nil
	}
	var sides [2]rowScope
	for i, n := range []*pg.Node{je.Larg, je.Rarg} {
		rv := n.GetRangeVar()
		if rv == nil {
			return c.errAt(location(n), "a join reads two tables by name (a join of joins or of subqueries is not supported yet)")
		}
		t, err := c.table(rv.Relname, int(rv.Location))
		if err != nil {
			return err
		}
		if t == q.sink {
			return c.errAt(int(rv.Location), "a query cannot read the table it writes")
		}
		sides[i] = rowScope{t: t, alias: t.Name}
		if rv.Alias != nil {
			sides[i].alias = rv.Alias.Aliasname
		}
	}
	outer := outerSides(je.Jointype)
	if je.Jointype == pg.JoinType_JOIN_RIGHT {
		sides[0], sides[1] = sides[1], sides[0] // NB: a RIGHT JOIN is the LEFT JOIN of the other order
	}
	if sides[0].alias == sides[1].alias {
		return c.errAt(location(je.Rarg), "both sides of the join are called %s: give one an alias (FROM %s a JOIN %s b ON ...)", sides[0].alias, sides[0].t.Name, sides[1].t.Name)
	}
	loc := location(je.Rarg)
	switch {
	case je.IsNatural || len(je.UsingClause) > 0:
		return c.errAt(loc, "NATURAL and USING joins are not supported: write JOIN ... ON a.k = b.k")
	case je.Jointype != pg.JoinType_JOIN_INNER && outer == "":
		return c.errAt(loc, "only JOIN (inner), LEFT, RIGHT and FULL JOIN are supported")
	case je.Quals == nil:
		return c.errAt(loc, "a join needs ON a.k = b.k AND a time bound (a CROSS JOIN is not supported)")
	case len(sel.GroupClause) > 0 || sel.HavingClause != nil || c.hasAggregate(sel.TargetList):
		return c.errAt(int(sel.TargetList[0].GetResTarget().Location), "GROUP BY and aggregates over a join are not supported yet")
	}
	on, err := c.joinCondition(je.Quals, sides)
	if err != nil {
		return err
	}
	q.source = sides[0].t
	step := &on.step
	switch {
	case len(on.keys[0]) == 0:
		return c.errAt(location(je.Quals), "a join needs at least one equality of a left and a right expression in ON (a.k = b.k)")
	case !on.timed && c.props.stateTTL == 0:
		return c.errAt(location(je.Quals), "a join needs a time bound in ON: b.ts BETWEEN a.ts - INTERVAL '5' SECOND AND a.ts + INTERVAL '5' SECOND, or TUMBLE(a.ts, size) = TUMBLE(b.ts, size); or, for a regular join, SET state_ttl = '1h' before the query")
	case outer != "" && on.rest != nil:
		return c.errAt(on.restAt, "an outer join's ON holds only key equalities and the time bound: move this condition to WHERE or the SELECT list")
	case !on.timed:
		if err := c.regularJoin(sides, step); err != nil {
			return err
		}
	}
	if err := c.outerStep(outer, !on.timed, on, loc); err != nil {
		return err
	}
	return c.joinOps(q, sel, where, sides, on)
}

// regularJoin makes a join without a time bound keep its rows for the
// state TTL of event time: a row joins the other table's rows of its key
// whose event time is within the TTL of its own, an interval join of
// [-ttl, +ttl] (docs/sql.md, "Regular joins").
func (c *compiler) regularJoin(sides [2]rowScope, st *joinStep) error {
	for _, s := range sides {
		if s.t.EventTime < 0 {
			return c.errAt(s.t.at, "table %s has no event time, which a regular join's state TTL is measured in: declare WITH (watermark = 'ts - 5s')", s.t.Name)
		}
	}
	st.interval = true
	st.lower, st.upper = -c.props.stateTTL, c.props.stateTTL
	return nil
}

// stateTTL reads SET state_ttl's value: a duration of whole milliseconds,
// or 0 for none.
func stateTTL(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 || d%time.Millisecond != 0 {
		return 0, fmt.Errorf("want a duration such as '1h' or '30s', got %q", v)
	}
	return d, nil
}

// joinOn is a join's ON clause taken apart: the key expressions of each
// side, the time bound and what is left, a condition on the joined row.
type joinOn struct {
	keys   [2][]*sqlexpr.Expr
	timed  bool
	step   joinStep
	rest   []*pg.Node
	restAt int
}

// joinCondition reads ON's conjuncts.
func (c *compiler) joinCondition(n *pg.Node, sides [2]rowScope) (*joinOn, error) {
	on := &joinOn{}
	for _, x := range conjuncts(n) {
		ok, err := c.joinKey(x, sides, on)
		if err != nil {
			return nil, err
		}
		if !ok {
			ok, err = c.joinTime(x, sides, on)
			if err != nil {
				return nil, err
			}
		}
		if !ok {
			if on.rest == nil {
				on.restAt = location(x)
			}
			on.rest = append(on.rest, x)
		}
	}
	return on, nil
}

// conjuncts returns the terms of a chain of ANDs.
func conjuncts(n *pg.Node) []*pg.Node {
	if b := n.GetBoolExpr(); b != nil && b.Boolop == pg.BoolExprType_AND_EXPR {
		var out []*pg.Node
		for _, a := range b.Args {
			out = append(out, conjuncts(a)...)
		}
		return out
	}
	return []*pg.Node{n}
}

// sideOf returns the side (0 left, 1 right) whose columns alone n reads,
// compiled over that side's table; -1 when it reads both, neither or none.
func (c *compiler) sideOf(n *pg.Node, sides [2]rowScope) (int, *sqlexpr.Expr) {
	side, e := -1, (*sqlexpr.Expr)(nil)
	for i, s := range sides {
		x, err := c.expr(n, s)
		if err != nil || !readsColumn(x) {
			continue
		}
		if side >= 0 {
			return -1, nil // NB: an unqualified name both tables have
		}
		side, e = i, x
	}
	return side, e
}

func readsColumn(e *sqlexpr.Expr) bool {
	if e.Op == sqlexpr.OpCol {
		return true
	}
	for _, a := range e.Args {
		if readsColumn(a) {
			return true
		}
	}
	return false
}

// joinKey takes x if it is a key equality, left expression = right
// expression (in either order).
func (c *compiler) joinKey(x *pg.Node, sides [2]rowScope, on *joinOn) (bool, error) {
	a := x.GetAExpr()
	if a == nil || a.Kind != pg.A_Expr_Kind_AEXPR_OP || a.Lexpr == nil || opName(a) != "=" {
		return false, nil
	}
	if a.Lexpr.GetFuncCall() != nil && windowFns[funcName(a.Lexpr.GetFuncCall())] != "" {
		return false, nil
	}
	ls, le := c.sideOf(a.Lexpr, sides)
	rs, re := c.sideOf(a.Rexpr, sides)
	if ls < 0 || rs < 0 || ls == rs {
		return false, nil
	}
	if ls == 1 {
		le, re = re, le
	}
	le, re, err := c.joinKeys(le, re, a, ls == 1)
	if err != nil {
		return false, err
	}
	on.keys[0] = append(on.keys[0], le)
	on.keys[1] = append(on.keys[1], re)
	return true, nil
}

func opName(a *pg.A_Expr) string {
	if len(a.Name) == 0 {
		return ""
	}
	return a.Name[len(a.Name)-1].GetString_().Sval
}

// joinTime takes x if it is the join's time bound: an interval,
// x.ts BETWEEN y.ts [± INTERVAL] AND y.ts [± INTERVAL], or a window,
// TUMBLE(a.ts, size) = TUMBLE(b.ts, size) (or HOP(ts, slide, size)).
func (c *compiler) joinTime(x *pg.Node, sides [2]rowScope, on *joinOn) (bool, error) {
	a := x.GetAExpr()
	if a == nil {
		return false, nil
	}
	var ok bool
	var err error
	switch {
	case a.Kind == pg.A_Expr_Kind_AEXPR_BETWEEN:
		ok, err = c.joinInterval(a, sides, &on.step)
	case a.Kind == pg.A_Expr_Kind_AEXPR_OP && opName(a) == "=" && a.Lexpr.GetFuncCall() != nil && a.Rexpr.GetFuncCall() != nil:
		ok, err = c.joinWindow(a, sides, &on.step)
	}
	if ok && on.timed {
		return false, c.errAt(int(a.Location), "the join has a time bound already; it takes one")
	}
	on.timed = on.timed || ok
	return ok, err
}

// eventTime returns the side whose event-time column n names, or -1.
func (c *compiler) eventTime(n *pg.Node, sides [2]rowScope) (int, error) {
	ref := n.GetColumnRef()
	if ref == nil {
		return -1, nil
	}
	side, _ := c.sideOf(n, sides)
	if side < 0 {
		return -1, nil
	}
	t := sides[side].t
	name, _, _ := columnName(ref)
	if t.EventTime < 0 {
		return -1, c.errAt(int(ref.Location), "table %s has no event time, which a join needs: declare WITH (watermark = '%s - 5s')", t.Name, name)
	}
	if et := t.Columns[t.EventTime].Name; et != name {
		return -1, c.errAt(int(ref.Location), "a join's time bound is on the event-time column of %s, which is %q, not %q", t.Name, et, name)
	}
	return side, nil
}

// joinInterval reads x.ts BETWEEN y.ts + lo AND y.ts + hi.
func (c *compiler) joinInterval(a *pg.A_Expr, sides [2]rowScope, st *joinStep) (bool, error) {
	subject, err := c.eventTime(a.Lexpr, sides)
	if err != nil || subject < 0 {
		return false, err
	}
	items := a.Rexpr.GetList().GetItems()
	var d [2]time.Duration
	for i, b := range items {
		if i == 1 && subject == 1 {
			if col, ok := c.untilColumn(b, sides); ok {
				// NB: b.ts BETWEEN a.ts AND a.expires (joinbound.go)
				st.until, d[1] = col+1, maxInterval
				continue
			}
		}
		side, off, err := c.timeOffset(b, sides)
		if err != nil {
			return false, err
		}
		if side != 1-subject {
			return false, c.errAt(location(b), "an interval join's bounds are the other table's event time plus or minus an INTERVAL")
		}
		d[i] = off
	}
	if d[0] > d[1] {
		return false, c.errAt(int(a.Location), "the interval's lower bound (%v) is above its upper bound (%v)", d[0], d[1])
	}
	st.interval = true
	st.lower, st.upper = d[0], d[1]
	if subject == 0 {
		// NB: l in [r+lo, r+hi] is r in [l-hi, l-lo].
		st.lower, st.upper = -d[1], -d[0]
	}
	return true, nil
}

// timeOffset reads ts, ts + INTERVAL or ts - INTERVAL.
func (c *compiler) timeOffset(n *pg.Node, sides [2]rowScope) (int, time.Duration, error) {
	if a := n.GetAExpr(); a != nil && a.Kind == pg.A_Expr_Kind_AEXPR_OP && a.Lexpr != nil && (opName(a) == "+" || opName(a) == "-") {
		side, err := c.eventTime(a.Lexpr, sides)
		if err != nil || side < 0 {
			return -1, 0, err
		}
		d, err := c.interval(a.Rexpr)
		if opName(a) == "-" {
			d = -d
		}
		return side, d, err
	}
	side, err := c.eventTime(n, sides)
	return side, 0, err
}

// joinKeys gives the two sides' keys of an equality one type: a BIGINT
// compared with a DOUBLE is cast to DOUBLE, other mismatches are an error
// at a. swapped tells that left is a's right operand, so that the error
// names the types in the order written.
func (c *compiler) joinKeys(left, right *sqlexpr.Expr, a *pg.A_Expr, swapped bool) (*sqlexpr.Expr, *sqlexpr.Expr, error) {
	var err error
	switch {
	case left.Type == right.Type:
	case left.Type == sqlrow.BigInt && right.Type == sqlrow.Double:
		left, err = sqlexpr.New(sqlexpr.OpCast, "", sqlrow.Double, left)
	case left.Type == sqlrow.Double && right.Type == sqlrow.BigInt:
		right, err = sqlexpr.New(sqlexpr.OpCast, "", sqlrow.Double, right)
	default:
		if swapped {
			left, right = right, left
		}
		return nil, nil, c.errAt(int(a.Location), "the join compares a %s with a %s (CAST one side)", left.Type, right.Type)
	}
	return left, right, err
}

// joinWindow reads TUMBLE(a.ts, size) = TUMBLE(b.ts, size).
func (c *compiler) joinWindow(a *pg.A_Expr, sides [2]rowScope, st *joinStep) (bool, error) {
	fs := [2]*pg.FuncCall{a.Lexpr.GetFuncCall(), a.Rexpr.GetFuncCall()}
	var ws [2]windowSpec
	var at [2]int
	for i, f := range fs {
		name := funcName(f)
		if windowFns[name] == "" {
			return false, nil
		}
		if len(f.Args) == 0 {
			return false, c.errAt(int(f.Location), "%s needs the event-time column first", strings.ToUpper(name))
		}
		side, err := c.eventTime(f.Args[0], sides)
		if err != nil {
			return false, err
		}
		if side < 0 {
			return false, c.errAt(location(f.Args[0]), "the window's first argument is one table's event-time column (a.ts)")
		}
		if ws[i], err = c.window(f, sides[side].t); err != nil {
			return false, err
		}
		at[i] = side
	}
	if at[0] == at[1] {
		return false, c.errAt(int(a.Location), "a window join's windows are one on each table: TUMBLE(a.ts, size) = TUMBLE(b.ts, size)")
	}
	if ws[0] != ws[1] {
		return false, c.errAt(int(a.Location), "the two windows of a join must be the same")
	}
	st.window = ws[0]
	st.rows.Window = ws[0].size.Milliseconds()
	st.rows.Session = ws[0].kind == "session"
	return true, nil
}

// joinOps compiles the operators of a join query.
func (c *compiler) joinOps(q *query, sel *pg.SelectStmt, where *pg.Node, sides [2]rowScope, on *joinOn) error {
	k := len(on.keys[0])
	plan := &joinPlan{right: sides[1].t}
	js := &joinScope{sides: sides}
	var columns []sqlprog.Column
	for i, s := range sides {
		p := &sqlprog.Program{In: s.t.Format, Prefix: s.t.Prefix, Columns: s.t.Columns, Out: sqlprog.FormatRow}
		// NB: a NULL key joins nothing; a LEFT JOIN's left row with one is kept, unmatched.
		if !on.step.keepsNulls(i) {
			var notNull []*sqlexpr.Expr
			for _, key := range on.keys[i] {
				e, _ := sqlexpr.New(sqlexpr.OpNotNull, "", 0, key)
				notNull = append(notNull, e)
			}
			p.Where = notNull[0]
			if len(notNull) > 1 {
				p.Where, _ = sqlexpr.New(sqlexpr.OpAnd, "", 0, notNull...)
			}
		}
		p.Select = append(p.Select, on.keys[i]...)
		for j, col := range s.t.Columns {
			p.Select = append(p.Select, sqlexpr.Col(j, col.Type))
		}
		for _, e := range p.Select {
			p.Names = append(p.Names, "_"+strconv.Itoa(len(p.Names)))
			columns = append(columns, sqlprog.Column{Name: "_" + strconv.Itoa(len(columns)), Type: e.Type})
		}
		js.offset[i] = len(columns) - len(s.t.Columns)
		name := [2]string{"left", "right"}[i]
		plan.sides[i] = []operator{{kind: "sql", suffix: name + "-pre", prog: p}, {kind: "keyBy", suffix: name + "-key", keys: k}}
	}
	on.step.rows.Right = k + len(sides[1].t.Columns)
	if on.step.rows.Outer == "full" {
		on.step.rows.Left = k + len(sides[0].t.Columns)
	}
	if on.step.until > 0 {
		on.step.rows.Until = k + on.step.until
	}
	if on.step.rows.Window > 0 || on.step.rows.Session {
		js.bounds = len(columns)
		columns = append(columns, sqlprog.Column{Name: "_" + strconv.Itoa(len(columns)), Type: sqlrow.BigInt},
			sqlprog.Column{Name: "_" + strconv.Itoa(len(columns)+1), Type: sqlrow.BigInt})
	}
	if on.step.rows.Changelog {
		columns = append(columns, sqlprog.Column{Name: "_" + strconv.Itoa(len(columns)), Type: sqlrow.BigInt})
	}
	last := &sqlprog.Program{In: sqlprog.FormatRow, Columns: columns, Out: q.sink.Format, Names: sinkNames(q.sink), Retracts: on.step.rows.Changelog}
	conds := append([]*pg.Node{}, on.rest...)
	if where != nil {
		conds = append(conds, where)
	}
	var err error
	if last.Where, err = c.conjunction(conds, js); err != nil {
		return err
	}
	exprs, locs, err := c.targets(sel.TargetList, js, nil)
	if err != nil {
		return err
	}
	if last.Select, err = c.fitSink(q.sink, exprs, locs); err != nil {
		return err
	}
	kind := "intervalJoin"
	if !on.step.interval {
		kind = "windowJoin"
	}
	q.join = plan
	q.ops = append(q.ops, operator{kind: kind, suffix: "join", join: &on.step},
		operator{kind: "sql", suffix: "select", prog: last})
	return nil
}

// joinScope resolves the columns of a joined row: alias.column, or a
// column only one table has; window_start and window_end in a window join.
type joinScope struct {
	sides  [2]rowScope
	offset [2]int
	bounds int // the index of window_start, or 0 for none
}

func (s *joinScope) column(c *compiler, ref *pg.ColumnRef) (*sqlexpr.Expr, error) {
	name, qual, star := columnName(ref)
	if star {
		return nil, c.errAt(int(ref.Location), "* is not supported over a join: name the columns")
	}
	if qual == "" && s.bounds > 0 && (name == "window_start" || name == "window_end") {
		i := s.bounds
		if name == "window_end" {
			i++
		}
		return timeBound(sqlexpr.Col(i, sqlrow.BigInt), s.sides[0].t), nil
	}
	found := -1
	var col *sqlexpr.Expr
	for i, side := range s.sides {
		if qual != "" && qual != side.alias {
			continue
		}
		if j := side.t.column(name); j >= 0 {
			if found >= 0 {
				return nil, c.errAt(int(ref.Location), "column %q is in both tables: write %s.%s or %s.%s", name, s.sides[0].alias, name, s.sides[1].alias, name)
			}
			found, col = i, sqlexpr.Col(s.offset[i]+j, side.t.Columns[j].Type)
		}
	}
	if found >= 0 {
		return col, nil
	}
	if qual != "" && qual != s.sides[0].alias && qual != s.sides[1].alias {
		return nil, c.errAt(int(ref.Location), "unknown table %q (the join reads %s and %s)", qual, s.sides[0].alias, s.sides[1].alias)
	}
	return nil, c.errAt(int(ref.Location), "unknown column %q (%s has: %s; %s has: %s)", name,
		s.sides[0].alias, s.sides[0].t.columnNames(), s.sides[1].alias, s.sides[1].t.columnNames())
}

func (s *joinScope) call(c *compiler, f *pg.FuncCall) (*sqlexpr.Expr, bool, error) {
	return rowScope{}.call(c, f)
}

// branches writes the operators of both sides of a join query, after the
// sources, and returns the uids of their last operators: the join's
// inputs.
func (p *joinPlan) branches(ops *[]specOperator, q *query, prefix string) []string {
	var ends []string
	sides := append([][]operator{p.sides[0], p.sides[1]}, p.moreSides...)
	for i, t := range append([]*Table{q.source, p.right}, p.more...) {
		input := uidPart(t.Name)
		for _, op := range sides[i] {
			so := specOperator{Type: op.kind, UID: prefix + "-" + op.suffix, Input: input}
			if op.kind == "sql" {
				so.SQL = op.prog.String()
			} else {
				so.Key = "row:" + strconv.Itoa(op.keys)
			}
			*ops = append(*ops, so)
			input = so.UID
		}
		ends = append(ends, input)
	}
	return ends
}

// fill writes the join operator's fields.
func (st *joinStep) fill(so *specOperator, inputs []string) {
	so.Input, so.Inputs = "", inputs
	so.SQL = st.rows.String()
	if st.interval {
		so.Between = []string{signed(st.lower), signed(st.upper)}
		return
	}
	so.Join = st.kind
	so.Window = st.window.spec()
}

// signed writes d with its sign, as between: takes it.
func signed(d time.Duration) string {
	if d < 0 {
		return d.String()
	}
	return "+" + d.String()
}
