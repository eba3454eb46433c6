package sqlc

import (
	"slices"
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// A join of more than two tables, FROM t0 JOIN t1 ON c1 JOIN t2 ON c2 ...
// (docs/sql.md, "Joins of more than two tables"), is a chain of binary
// joins, each keyed on its own ON's keys:
//
//	t0, t1: sql (keys, then every column) -> keyBy ─┴> join ─> sql (keys of c2, then the joined row) -> keyBy ─┐
//	t2:     sql (keys, then every column) -> keyBy ────────────────────────────────────────────────────────┴> join -> ... -> sql (WHERE; the SELECT list)
//
// Every join of a chain but the last is inner, and the last may be LEFT,
// RIGHT or FULL: a retracting regular outer join (outerjoin.go), whose
// changelog no later join reads. The first may be an interval join or a
// regular one; the later ones are regular joins (SET state_ttl), whose
// left rows are joined rows: their event time is the latest of their
// tables' (the joined row's timestamp), and a later table's row joins
// those within the TTL of it. A later join cannot be an interval or window
// join, whose bound would be on one table's time while the joined row
// runs on the latest. The ON conditions that are not keys or the first
// join's time bound filter the joined rows before the next join (so that
// a row they drop cannot match an outer join's row), or, for the last
// join, the final row, as WHERE does; the last join's ON holds none when
// it is outer.

// chainScope resolves the columns of a chain's joined row: alias.column,
// or a column only one of its tables has.
type chainScope struct {
	tables []rowScope
	offset []int
}

func (s *chainScope) column(c *compiler, ref *pg.ColumnRef) (*sqlexpr.Expr, error) {
	name, qual, star := columnName(ref)
	if star {
		return nil, c.errAt(int(ref.Location), "* is not supported over a join: name the columns")
	}
	var col *sqlexpr.Expr
	found := -1
	for i, t := range s.tables {
		if qual != "" && qual != t.alias {
			continue
		}
		if j := t.t.column(name); j >= 0 {
			if found >= 0 {
				return nil, c.errAt(int(ref.Location), "column %q is in tables %s and %s: write %s.%s", name, s.tables[found].alias, t.alias, t.alias, name)
			}
			found, col = i, sqlexpr.Col(s.offset[i]+j, t.t.Columns[j].Type)
		}
	}
	if found >= 0 {
		return col, nil
	}
	if qual != "" && !slices.ContainsFunc(s.tables, func(t rowScope) bool { return t.alias == qual }) {
		return nil, c.errAt(int(ref.Location), "unknown table %q (the join reads %s)", qual, s.aliases())
	}
	return nil, c.errAt(int(ref.Location), "unknown column %q in %s", name, s.aliases())
}

func (s *chainScope) call(c *compiler, f *pg.FuncCall) (*sqlexpr.Expr, bool, error) {
	return rowScope{}.call(c, f)
}

func (s *chainScope) aliases() string {
	var out string
	for i, t := range s.tables {
		if i > 0 {
			out += ", "
		}
		out += t.alias
	}
	return out
}

// shift moves every table's columns n places right: keys put before them.
func (s *chainScope) shift(n int) {
	for i := range s.offset {
		s.offset[i] += n
	}
}

// chainJoin compiles a join of more than two tables; top is the last
// JOIN of the chain.
func (c *compiler) chainJoin(q *query, sel *pg.SelectStmt, top *pg.JoinExpr, where *pg.Node) error {
	var links []*pg.JoinExpr
	for je := top; je != nil; je = je.Larg.GetJoinExpr() {
		links = append([]*pg.JoinExpr{je}, links...)
	}
	tabs, err := c.chainTables(q, links)
	if err != nil {
		return err
	}
	for i, je := range links {
		loc := location(je.Rarg)
		switch {
		case je.IsNatural || len(je.UsingClause) > 0:
			return c.errAt(loc, "NATURAL and USING joins are not supported: write JOIN ... ON a.k = b.k")
		case je.Jointype != pg.JoinType_JOIN_INNER && (i < len(links)-1 || chainOuter(je.Jointype) == ""):
			return c.errAt(loc, "a join of more than two tables is a chain of inner joins, but for the last, which may be LEFT, RIGHT or FULL")
		case je.Quals == nil:
			return c.errAt(loc, "a join needs ON a.k = b.k (a CROSS JOIN is not supported)")
		}
	}
	if len(sel.GroupClause) > 0 || sel.HavingClause != nil || c.hasAggregate(sel.TargetList) {
		return c.errAt(int(sel.TargetList[0].GetResTarget().Location), "GROUP BY and aggregates over a join are not supported yet")
	}
	first, err := c.chainFirst(links[0], [2]rowScope{tabs[0], tabs[1]})
	if err != nil {
		return err
	}
	plan := &joinPlan{right: tabs[1].t}
	cs := &chainScope{}
	var columns []sqlprog.Column
	for i, s := range []rowScope{tabs[0], tabs[1]} {
		pre := chainPre(s.t.Format, s.t.Prefix, s.t.Columns, first.keys[i], nil, false, &columns)
		cs.tables, cs.offset = append(cs.tables, s), append(cs.offset, len(columns)-len(s.t.Columns))
		plan.sides[i] = []operator{{kind: "sql", suffix: [2]string{"left", "right"}[i] + "-pre", prog: pre}, {kind: "keyBy", suffix: [2]string{"left", "right"}[i] + "-key", keys: len(first.keys[i])}}
	}
	first.step.rows.Right = len(first.keys[1]) + len(tabs[1].t.Columns)
	if first.step.until > 0 {
		// NB: b.ts BETWEEN a.ts AND a.expires: the left row is its keys, then its columns
		first.step.rows.Until = len(first.keys[0]) + first.step.until
	}
	first.step.kind = "inner"
	q.source = tabs[0].t
	q.join = plan
	q.ops = append(q.ops, operator{kind: "intervalJoin", suffix: "join", join: &first.step})
	conds := first.rest
	for i := 2; i < len(tabs); i++ {
		rest, err := c.chainLink(q, links[i-1], tabs[i], i-1, cs, &columns, conds)
		if err != nil {
			return err
		}
		conds = rest
	}
	if where != nil {
		conds = append(conds, where)
	}
	return c.chainSelect(q, sel, conds, cs, columns, q.retracting())
}

// chainTables reads the chain's tables, in order, with their aliases.
func (c *compiler) chainTables(q *query, links []*pg.JoinExpr) ([]rowScope, error) {
	nodes := []*pg.Node{links[0].Larg}
	for _, je := range links {
		nodes = append(nodes, je.Rarg)
	}
	var tabs []rowScope
	for _, n := range nodes {
		rv := n.GetRangeVar()
		if rv == nil {
			return nil, c.errAt(location(n), "a join reads tables by name (a join of subqueries, or with a join on its right, is not supported yet)")
		}
		t, err := c.table(rv.Relname, int(rv.Location))
		if err != nil {
			return nil, err
		}
		if t == q.sink {
			return nil, c.errAt(int(rv.Location), "a query cannot read the table it writes")
		}
		s := rowScope{t: t, alias: t.Name}
		if rv.Alias != nil {
			s.alias = rv.Alias.Aliasname
		}
		if slices.ContainsFunc(tabs, func(o rowScope) bool { return o.alias == s.alias }) {
			return nil, c.errAt(int(rv.Location), "two tables of the join are called %s: give one an alias", s.alias)
		}
		tabs = append(tabs, s)
	}
	return tabs, nil
}

// chainFirst reads the first join's ON, over two tables, as a two-table
// join does; it is an interval or a regular join.
func (c *compiler) chainFirst(je *pg.JoinExpr, sides [2]rowScope) (*joinOn, error) {
	on, err := c.joinCondition(je.Quals, sides)
	if err != nil {
		return nil, err
	}
	switch {
	case len(on.keys[0]) == 0:
		return nil, c.errAt(location(je.Quals), "a join needs at least one equality of a left and a right expression in ON (a.k = b.k)")
	case on.timed && !on.step.interval:
		return nil, c.errAt(location(je.Quals), "a join of more than two tables is a chain of interval or regular joins (a window join joins two tables)")
	case !on.timed && c.props.stateTTL == 0:
		return nil, c.errAt(location(je.Quals), "a join needs a time bound in ON, or, for a regular join, SET state_ttl = '1h' before the query")
	case !on.timed:
		if err := c.regularJoin(sides, &on.step); err != nil {
			return nil, err
		}
	}
	return on, nil
}

// chainPre is the sql program before a join's keyBy: where conds hold
// and, unless the side is outer (keepNulls), the keys are all NOT NULL (a
// NULL key joins nothing), the keys, then every column of its input; it
// appends the columns it writes to cols.
func chainPre(in sqlprog.Format, prefix string, columns []sqlprog.Column, keys, conds []*sqlexpr.Expr, keepNulls bool, cols *[]sqlprog.Column) *sqlprog.Program {
	p := &sqlprog.Program{In: in, Prefix: prefix, Columns: columns, Out: sqlprog.FormatRow}
	where := conds
	for _, key := range keys {
		if keepNulls {
			break
		}
		e, _ := sqlexpr.New(sqlexpr.OpNotNull, "", 0, key)
		where = append(where, e)
	}
	p.Where, _ = allOf(where) // NB: an AND of BOOLEANs
	p.Select = append(p.Select, keys...)
	for j, col := range columns {
		p.Select = append(p.Select, sqlexpr.Col(j, col.Type))
	}
	for _, e := range p.Select {
		p.Names = append(p.Names, "_"+strconv.Itoa(len(p.Names)))
		*cols = append(*cols, sqlprog.Column{Name: "_" + strconv.Itoa(len(*cols)), Type: e.Type})
	}
	return p
}

// chainLink compiles the link-th later join of a chain: the joined rows
// so far (columns, read through cs) where the earlier joins' conditions
// conds hold, keyed on their side of ON's keys, joined with table right
// within the state TTL. It returns ON's other conditions.
func (c *compiler) chainLink(q *query, je *pg.JoinExpr, right rowScope, link int, cs *chainScope, columns *[]sqlprog.Column, conds []*pg.Node) ([]*pg.Node, error) {
	keys, rest, err := c.chainKeys(je.Quals, cs, right)
	if err != nil {
		return nil, err
	}
	var before []*sqlexpr.Expr
	for _, n := range conds {
		w, err := c.where(n, cs)
		if err != nil {
			return nil, err
		}
		before = append(before, w)
	}
	outer := chainOuter(je.Jointype)
	switch {
	case outer != "" && len(rest) > 0:
		return nil, c.errAt(location(rest[0]), "an outer join's ON holds only key equalities: move this condition to WHERE or the SELECT list")
	case len(keys[0]) == 0:
		return nil, c.errAt(location(je.Quals), "a join needs at least one equality of a left and a right expression in ON (a.k = b.k)")
	case c.props.stateTTL == 0:
		return nil, c.errAt(location(je.Quals), "the later joins of a chain are regular joins: SET state_ttl = '1h' before the query")
	case right.t.EventTime < 0:
		return nil, c.errAt(right.t.at, "table %s has no event time, which a regular join's state TTL is measured in: declare WITH (watermark = 'ts - 5s')", right.t.Name)
	}
	if outer == "full" {
		on := &joinOn{keys: keys}
		fullJoinNullKeys(on)
		keys = on.keys
	}
	n := strconv.Itoa(link + 1)
	var joined []sqlprog.Column
	mid := chainPre(sqlprog.FormatRow, "", *columns, keys[0], before, outer == "left" || outer == "full", &joined)
	cs.shift(len(keys[0]))
	pre := chainPre(right.t.Format, right.t.Prefix, right.t.Columns, keys[1], nil, outer == "right" || outer == "full", &joined)
	cs.tables, cs.offset = append(cs.tables, right), append(cs.offset, len(joined)-len(right.t.Columns))
	st := &joinStep{interval: true, lower: -c.props.stateTTL, upper: c.props.stateTTL, kind: "inner", link: link}
	st.rows.Right = len(keys[1]) + len(right.t.Columns)
	if outer != "" {
		st.rows.Outer, st.rows.Changelog = outer, true
		st.rows.Left = len(keys[0]) + len(*columns)
	}
	*columns = joined
	q.join.more = append(q.join.more, right.t)
	q.join.moreSides = append(q.join.moreSides, []operator{{kind: "sql", suffix: "right" + n + "-pre", prog: pre}, {kind: "keyBy", suffix: "right" + n + "-key", keys: len(keys[1])}})
	q.ops = append(q.ops, operator{kind: "sql", suffix: "left" + n + "-pre", prog: mid},
		operator{kind: "keyBy", suffix: "left" + n + "-key", keys: len(keys[0])},
		operator{kind: "intervalJoin", suffix: "join" + n, join: st})
	return rest, nil
}

// chainKeys reads a later join's ON: key equalities of an expression over
// the joined rows so far and one over the right table; a time bound is
// refused; anything else is returned.
func (c *compiler) chainKeys(n *pg.Node, cs *chainScope, right rowScope) (keys [2][]*sqlexpr.Expr, rest []*pg.Node, err error) {
	scopes := [2]scope{cs, right}
	for _, x := range conjuncts(n) {
		a := x.GetAExpr()
		if a != nil && a.Kind == pg.A_Expr_Kind_AEXPR_BETWEEN {
			return keys, nil, c.errAt(int(a.Location), "only the first join of a chain takes a time bound: the later ones are regular joins (SET state_ttl)")
		}
		if a == nil || a.Kind != pg.A_Expr_Kind_AEXPR_OP || a.Lexpr == nil || opName(a) != "=" {
			rest = append(rest, x)
			continue
		}
		if f := a.Lexpr.GetFuncCall(); f != nil && windowFns[funcName(f)] != "" {
			return keys, nil, c.errAt(int(a.Location), "only the first join of a chain takes a time bound: the later ones are regular joins (SET state_ttl)")
		}
		ls, le := c.scopeOf(a.Lexpr, scopes)
		rs, re := c.scopeOf(a.Rexpr, scopes)
		if ls < 0 || rs < 0 || ls == rs {
			rest = append(rest, x)
			continue
		}
		if ls == 1 {
			le, re = re, le
		}
		le, re, err := c.joinKeys(le, re, a, ls == 1)
		if err != nil {
			return keys, nil, err
		}
		keys[0], keys[1] = append(keys[0], le), append(keys[1], re)
	}
	return keys, rest, nil
}

// scopeOf returns the one scope whose columns alone n reads, with n
// compiled over it; -1 when it reads both, neither or none.
func (c *compiler) scopeOf(n *pg.Node, scopes [2]scope) (int, *sqlexpr.Expr) {
	side, e := -1, (*sqlexpr.Expr)(nil)
	for i, s := range scopes {
		x, err := c.expr(n, s)
		if err != nil || !readsColumn(x) {
			continue
		}
		if side >= 0 {
			return -1, nil
		}
		side, e = i, x
	}
	return side, e
}

// chainSelect compiles the last sql operator: the conditions over the
// final joined row, then the SELECT list.
func (c *compiler) chainSelect(q *query, sel *pg.SelectStmt, conds []*pg.Node, cs *chainScope, columns []sqlprog.Column, retracts bool) error {
	if retracts {
		columns = append(columns, sqlprog.Column{Name: "_" + strconv.Itoa(len(columns)), Type: sqlrow.BigInt})
	}
	last := &sqlprog.Program{In: sqlprog.FormatRow, Columns: columns, Out: q.sink.Format, Names: sinkNames(q.sink), Retracts: retracts}
	var err error
	if last.Where, err = c.conjunction(conds, cs); err != nil {
		return err
	}
	exprs, locs, err := c.targets(sel.TargetList, cs, nil)
	if err != nil {
		return err
	}
	if last.Select, err = c.fitSink(q.sink, exprs, locs); err != nil {
		return err
	}
	q.ops = append(q.ops, operator{kind: "sql", suffix: "select", prog: last})
	return nil
}

// inputs returns the join's inputs: the first join's are the ends of the
// first two tables' branches, a later one's the operator before it (the
// joined rows, keyed) and its table's branch.
func (st *joinStep) inputs(ends []string, prev string) []string {
	if st.link == 0 {
		return ends[:2]
	}
	return []string{prev, ends[st.link+1]}
}

// chainOuter returns the outer sides of a chain's last join: "left",
// "right" or "full", or "" for an inner join.
func chainOuter(jt pg.JoinType) string {
	switch jt {
	case pg.JoinType_JOIN_LEFT:
		return "left"
	case pg.JoinType_JOIN_RIGHT:
		return "right"
	case pg.JoinType_JOIN_FULL:
		return "full"
	}
	return ""
}
