package sqlc

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// Outer joins (docs/sql.md, "Outer joins"). A RIGHT JOIN is compiled as the
// LEFT JOIN of its tables in the other order (joinQuery swaps them), so a
// join's outer sides are "left" or "full":
//
//   - a window join's LEFT JOIN is the windowJoin's leftOuter kind; FULL
//     is not supported;
//   - an interval join's are the intervalJoin's sql: outer, appended: a
//     row that matched nothing is written with NULLs once the watermark
//     passes its interval;
//   - a regular join's (a state TTL, no time bound) retract, as Flink's
//     do: a row that matches nothing yet is written with NULLs at once and
//     deleted when its first match arrives, so the result is updating, a
//     changelog of insert and delete rows.

// outerSides returns the outer sides of a join type once a RIGHT JOIN's
// tables are swapped: "left" for LEFT and RIGHT, "full" for FULL, and ""
// for an inner join or one not supported.
func outerSides(jt pg.JoinType) string {
	switch jt {
	case pg.JoinType_JOIN_LEFT, pg.JoinType_JOIN_RIGHT:
		return "left"
	case pg.JoinType_JOIN_FULL:
		return "full"
	}
	return ""
}

// outerStep configures the join step for its outer sides; regular tells a
// regular join, which retracts.
func (c *compiler) outerStep(outer string, regular bool, on *joinOn, loc int) error {
	st := &on.step
	st.kind = "inner"
	switch {
	case outer == "":
		return nil
	case !st.interval && outer == "full":
		return c.errAt(loc, "a FULL window join is not supported yet (LEFT and RIGHT are)")
	case !st.interval:
		st.kind = "leftOuter"
		return nil
	}
	st.rows.Outer, st.rows.Changelog = outer, regular
	if outer == "full" {
		fullJoinNullKeys(on)
	}
	return nil
}

// fullJoinNullKeys keeps a FULL join's rows with a NULL key from matching
// each other: both sides keep them, and keyBy makes equal keys of NULLs,
// so each side's keys get one more, TRUE on the right and, on the left,
// whether all its keys are NOT NULL. A left row with a NULL key then has
// a key no right row has.
func fullJoinNullKeys(on *joinOn) {
	var notNull []*sqlexpr.Expr
	for _, k := range on.keys[0] {
		e, _ := sqlexpr.New(sqlexpr.OpNotNull, "", 0, k)
		notNull = append(notNull, e)
	}
	all := notNull[0]
	if len(notNull) > 1 {
		all, _ = sqlexpr.New(sqlexpr.OpAnd, "", 0, notNull...)
	}
	on.keys[0] = append(on.keys[0], all)
	on.keys[1] = append(on.keys[1], sqlexpr.Lit(sqlrow.Bool(true)))
}

// keepsNulls tells whether side i of the join keeps its rows with a NULL
// key, which join nothing: an outer side's are written alone.
func (st *joinStep) keepsNulls(i int) bool {
	if i == 0 {
		return st.kind == "leftOuter" || st.rows.Outer != ""
	}
	return st.rows.Outer == "full"
}

// retracting tells whether a compiled join query's result is updating: a
// changelog of inserts and deletes, which a SELECT DISTINCT's group would
// take for upserts, and a GROUP BY (groupupdating.go) or a Top-N
// (topnjoin.go) over the join would count or rank as rows: all three
// refuse it.
func (q *query) retracting() bool {
	for _, op := range q.ops {
		if op.join != nil && op.join.rows.Changelog {
			return true
		}
	}
	return false
}
