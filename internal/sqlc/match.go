package sqlc

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// like compiles s [NOT] LIKE p [ESCAPE e] and s [NOT] ILIKE p [ESCAPE e].
// NB: PostgreSQL names LIKE ~~, NOT LIKE !~~, ILIKE ~~* and NOT ILIKE
// !~~*, and parses an ESCAPE into the call like_escape(p, e) as the
// right operand.
func (c *compiler) like(loc int, name string, sc scope, a *pg.A_Expr) (*sqlexpr.Expr, error) {
	op := sqlexpr.OpLike
	if a.Kind == pg.A_Expr_Kind_AEXPR_ILIKE {
		op = sqlexpr.OpILike
	}
	args := []*pg.Node{a.Lexpr, a.Rexpr}
	if f := a.Rexpr.GetFuncCall(); f != nil && funcName(f) == "like_escape" && len(f.Args) == 2 {
		args = []*pg.Node{a.Lexpr, f.Args[0], f.Args[1]}
	}
	e, err := c.build(loc, op, "", 0, sc, args...)
	if err != nil || !strings.HasPrefix(name, "!") {
		return e, err
	}
	return c.combine(loc, sqlexpr.OpNot, []*sqlexpr.Expr{e})
}

// regexpOps are PostgreSQL's regular expression match operators: ~, ~*
// (ignoring case) and their negations.
var regexpOps = map[string]bool{"~": true, "~*": true, "!~": true, "!~*": true}

// regexpOp compiles s ~ p as regexp_like(s, p), s ~* p as
// regexp_like(s, p, 'i'), and !~ and !~* as their negations.
func (c *compiler) regexpOp(loc int, name string, sc scope, a *pg.A_Expr) (*sqlexpr.Expr, error) {
	s, err := c.expr(a.Lexpr, sc)
	if err != nil {
		return nil, err
	}
	p, err := c.expr(a.Rexpr, sc)
	if err != nil {
		return nil, err
	}
	args := []*sqlexpr.Expr{s, p}
	if strings.HasSuffix(name, "*") {
		args = append(args, sqlexpr.Lit(sqlrow.Str("i")))
	}
	e, err := sqlexpr.New(sqlexpr.OpCall, "regexp_like", 0, args...)
	if err != nil {
		return nil, c.errAt(loc, "%s: %v", name, err)
	}
	if !strings.HasPrefix(name, "!") {
		return e, nil
	}
	return c.combine(loc, sqlexpr.OpNot, []*sqlexpr.Expr{e})
}
