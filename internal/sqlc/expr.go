package sqlc

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// A scope resolves the names an expression refers to: columns, and the
// calls that are not scalar functions (aggregates, window bounds).
type scope interface {
	// column resolves a column reference.
	column(c *compiler, ref *pg.ColumnRef) (*sqlexpr.Expr, error)
	// call compiles f if the scope owns it; ok is false for a scalar
	// function.
	call(c *compiler, f *pg.FuncCall) (e *sqlexpr.Expr, ok bool, err error)
}

// expr compiles the expression n in scope sc.
func (c *compiler) expr(n *pg.Node, sc scope) (*sqlexpr.Expr, error) {
	if as, ok := sc.(*aggScope); ok {
		if e, ok := as.whole(c, n); ok {
			return e, nil
		}
	}
	switch x := n.Node.(type) {
	case *pg.Node_ColumnRef:
		return sc.column(c, x.ColumnRef)
	case *pg.Node_AConst:
		return c.constant(x.AConst)
	case *pg.Node_AExpr:
		return c.aExpr(x.AExpr, sc)
	case *pg.Node_BoolExpr:
		return c.boolExpr(x.BoolExpr, sc)
	case *pg.Node_NullTest:
		op := sqlexpr.OpIsNull
		if x.NullTest.Nulltesttype == pg.NullTestType_IS_NOT_NULL {
			op = sqlexpr.OpNotNull
		}
		return c.build(int(x.NullTest.Location), op, "", 0, sc, x.NullTest.Arg)
	case *pg.Node_CaseExpr:
		return c.caseExpr(x.CaseExpr, sc)
	case *pg.Node_TypeCast:
		return c.cast(x.TypeCast, sc)
	case *pg.Node_CoalesceExpr:
		return c.build(int(x.CoalesceExpr.Location), sqlexpr.OpCall, "coalesce", 0, sc, x.CoalesceExpr.Args...)
	case *pg.Node_MinMaxExpr:
		fn := "greatest"
		if x.MinMaxExpr.Op == pg.MinMaxOp_IS_LEAST {
			fn = "least"
		}
		return c.build(int(x.MinMaxExpr.Location), sqlexpr.OpCall, fn, 0, sc, x.MinMaxExpr.Args...)
	case *pg.Node_FuncCall:
		return c.funcCall(x.FuncCall, sc)
	case *pg.Node_SubLink:
		return nil, c.errAt(int(x.SubLink.Location), "subqueries are not supported yet")
	}
	return nil, c.errAt(location(n), "this kind of expression (%T) is not supported yet", n.Node)
}

// build compiles args and the node op over them, reporting a type error at
// loc.
func (c *compiler) build(loc int, op sqlexpr.Op, fn string, cast sqlrow.Type, sc scope, args ...*pg.Node) (*sqlexpr.Expr, error) {
	es := make([]*sqlexpr.Expr, len(args))
	for i, a := range args {
		e, err := c.expr(a, sc)
		if err != nil {
			return nil, err
		}
		es[i] = e
	}
	e, err := sqlexpr.New(op, fn, cast, es...)
	if err != nil {
		return nil, c.errAt(loc, "%v", err)
	}
	return e, nil
}

func (c *compiler) constant(k *pg.A_Const) (*sqlexpr.Expr, error) {
	switch v := k.Val.(type) {
	case *pg.A_Const_Ival:
		return sqlexpr.Lit(sqlrow.Int(int64(v.Ival.Ival))), nil
	case *pg.A_Const_Fval:
		if i, err := strconv.ParseInt(v.Fval.Fval, 10, 64); err == nil {
			return sqlexpr.Lit(sqlrow.Int(i)), nil // NB: an integer too long for Ival
		}
		f, err := strconv.ParseFloat(v.Fval.Fval, 64)
		if err != nil {
			return nil, c.errAt(int(k.Location), "bad number %s", v.Fval.Fval)
		}
		return sqlexpr.Lit(sqlrow.Float(f)), nil
	case *pg.A_Const_Sval:
		return sqlexpr.Lit(sqlrow.Str(v.Sval.Sval)), nil
	case *pg.A_Const_Boolval:
		return sqlexpr.Lit(sqlrow.Bool(v.Boolval.Boolval)), nil
	}
	if k.Isnull {
		return sqlexpr.Lit(sqlrow.Value{}), nil
	}
	return nil, c.errAt(int(k.Location), "this kind of constant is not supported")
}

// binaryOps maps PostgreSQL's operator names to sqlexpr's.
var binaryOps = map[string]sqlexpr.Op{
	"+": sqlexpr.OpAdd, "-": sqlexpr.OpSub, "*": sqlexpr.OpMul, "/": sqlexpr.OpDiv, "%": sqlexpr.OpMod,
	"||": sqlexpr.OpConcat, "=": sqlexpr.OpEq, "<>": sqlexpr.OpNe, "!=": sqlexpr.OpNe,
	"<": sqlexpr.OpLt, "<=": sqlexpr.OpLe, ">": sqlexpr.OpGt, ">=": sqlexpr.OpGe,
}

func (c *compiler) aExpr(a *pg.A_Expr, sc scope) (*sqlexpr.Expr, error) {
	loc := int(a.Location)
	name := ""
	if len(a.Name) > 0 {
		name = a.Name[len(a.Name)-1].GetString_().Sval
	}
	switch a.Kind {
	case pg.A_Expr_Kind_AEXPR_OP:
		if a.Lexpr == nil {
			switch name {
			case "-":
				return c.build(loc, sqlexpr.OpNeg, "", 0, sc, a.Rexpr)
			case "+":
				return c.expr(a.Rexpr, sc)
			}
			return nil, c.errAt(loc, "unknown prefix operator %s", name)
		}
		if regexpOps[name] {
			return c.regexpOp(loc, name, sc, a)
		}
		op, ok := binaryOps[name]
		if !ok {
			return nil, c.errAt(loc, "operator %s is not supported", name)
		}
		return c.build(loc, op, "", 0, sc, a.Lexpr, a.Rexpr)
	case pg.A_Expr_Kind_AEXPR_IN:
		// x IN (a, b) is x = a OR x = b; NOT IN is x <> a AND x <> b.
		op, join := sqlexpr.OpEq, sqlexpr.OpOr
		if name == "<>" {
			op, join = sqlexpr.OpNe, sqlexpr.OpAnd
		}
		var terms []*sqlexpr.Expr
		for _, item := range a.Rexpr.GetList().GetItems() {
			t, err := c.build(loc, op, "", 0, sc, a.Lexpr, item)
			if err != nil {
				return nil, err
			}
			terms = append(terms, t)
		}
		return c.combine(loc, join, terms)
	case pg.A_Expr_Kind_AEXPR_LIKE, pg.A_Expr_Kind_AEXPR_ILIKE:
		return c.like(loc, name, sc, a)
	case pg.A_Expr_Kind_AEXPR_NULLIF:
		return c.build(loc, sqlexpr.OpCall, "nullif", 0, sc, a.Lexpr, a.Rexpr)
	case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		bounds := a.Rexpr.GetList().GetItems()
		lo, err := c.build(loc, sqlexpr.OpGe, "", 0, sc, a.Lexpr, bounds[0])
		if err != nil {
			return nil, err
		}
		hi, err := c.build(loc, sqlexpr.OpLe, "", 0, sc, a.Lexpr, bounds[1])
		if err != nil {
			return nil, err
		}
		both, err := c.combine(loc, sqlexpr.OpAnd, []*sqlexpr.Expr{lo, hi})
		if err != nil || a.Kind == pg.A_Expr_Kind_AEXPR_BETWEEN {
			return both, err
		}
		return c.combine(loc, sqlexpr.OpNot, []*sqlexpr.Expr{both})
	}
	return nil, c.errAt(loc, "%s is not supported yet", strings.TrimPrefix(a.Kind.String(), "AEXPR_"))
}

func (c *compiler) combine(loc int, op sqlexpr.Op, args []*sqlexpr.Expr) (*sqlexpr.Expr, error) {
	e, err := sqlexpr.New(op, "", 0, args...)
	if err != nil {
		return nil, c.errAt(loc, "%v", err)
	}
	return e, nil
}

func (c *compiler) boolExpr(b *pg.BoolExpr, sc scope) (*sqlexpr.Expr, error) {
	op := map[pg.BoolExprType]sqlexpr.Op{pg.BoolExprType_AND_EXPR: sqlexpr.OpAnd,
		pg.BoolExprType_OR_EXPR: sqlexpr.OpOr, pg.BoolExprType_NOT_EXPR: sqlexpr.OpNot}[b.Boolop]
	return c.build(int(b.Location), op, "", 0, sc, b.Args...)
}

// caseExpr compiles CASE WHEN c THEN r ... [ELSE e] END, and the simple
// CASE x WHEN v THEN r ... END as CASE WHEN x = v THEN r ....
func (c *compiler) caseExpr(ce *pg.CaseExpr, sc scope) (*sqlexpr.Expr, error) {
	var args []*sqlexpr.Expr
	for _, w := range ce.Args {
		cw := w.GetCaseWhen()
		var cond *sqlexpr.Expr
		var err error
		if ce.Arg != nil {
			cond, err = c.build(int(cw.Location), sqlexpr.OpEq, "", 0, sc, ce.Arg, cw.Expr)
		} else {
			cond, err = c.expr(cw.Expr, sc)
		}
		if err != nil {
			return nil, err
		}
		res, err := c.expr(cw.Result, sc)
		if err != nil {
			return nil, err
		}
		args = append(args, cond, res)
	}
	if ce.Defresult != nil {
		d, err := c.expr(ce.Defresult, sc)
		if err != nil {
			return nil, err
		}
		args = append(args, d)
	}
	return c.combine(int(ce.Location), sqlexpr.OpCase, args)
}

func (c *compiler) cast(tc *pg.TypeCast, sc scope) (*sqlexpr.Expr, error) {
	if typeName(tc.TypeName) == "interval" {
		return c.intervalMillis(tc)
	}
	t, err := columnType(tc.TypeName)
	if err != nil {
		return nil, c.errAt(int(tc.TypeName.Location), "%v", err)
	}
	return c.build(int(tc.Location), sqlexpr.OpCast, "", t, sc, tc.Arg)
}

func (c *compiler) funcCall(f *pg.FuncCall, sc scope) (*sqlexpr.Expr, error) {
	if e, ok, err := sc.call(c, f); ok || err != nil {
		return e, err
	}
	name := funcName(f)
	if name == "extract" {
		return c.extract(f, sc)
	}
	if fn := c.funcs[name]; fn != nil {
		if err := c.notScalar(fn, f); err != nil {
			return nil, err
		}
		return nil, c.errAt(int(f.Location), "%s is a Wasm function: it takes a table's columns, so it is allowed in WHERE, GROUP BY, the arguments of aggregates and the SELECT list of a query without GROUP BY", name)
	}
	if f.AggStar || f.AggDistinct || f.Over != nil {
		return nil, c.errAt(int(f.Location), "%s(...) is not supported here", strings.ToUpper(name))
	}
	return c.build(int(f.Location), sqlexpr.OpCall, name, 0, sc, f.Args...)
}

func funcName(f *pg.FuncCall) string {
	if len(f.Funcname) == 0 {
		return ""
	}
	return strings.ToLower(f.Funcname[len(f.Funcname)-1].GetString_().Sval)
}

// columnName returns the name a column reference names, without a table
// qualifier, and the qualifier ("" for none).
func columnName(ref *pg.ColumnRef) (name, qual string, star bool) {
	var parts []string
	for _, f := range ref.Fields {
		if f.GetAStar() != nil {
			return "", strings.Join(parts, "."), true
		}
		parts = append(parts, f.GetString_().Sval)
	}
	if len(parts) == 0 {
		return "", "", false
	}
	return parts[len(parts)-1], strings.Join(parts[:len(parts)-1], "."), false
}

// location returns the offset of a node in the text, or 0 when it has
// none that this package knows.
func location(n *pg.Node) int {
	switch x := n.Node.(type) {
	case *pg.Node_ColumnRef:
		return int(x.ColumnRef.Location)
	case *pg.Node_AConst:
		return int(x.AConst.Location)
	case *pg.Node_AExpr:
		return int(x.AExpr.Location)
	case *pg.Node_FuncCall:
		return int(x.FuncCall.Location)
	case *pg.Node_TypeCast:
		return int(x.TypeCast.Location)
	case *pg.Node_BoolExpr:
		return int(x.BoolExpr.Location)
	case *pg.Node_CaseExpr:
		return int(x.CaseExpr.Location)
	case *pg.Node_MinMaxExpr:
		return int(x.MinMaxExpr.Location)
	case *pg.Node_NullTest:
		return int(x.NullTest.Location)
	case *pg.Node_RangeVar:
		return int(x.RangeVar.Location)
	case *pg.Node_JoinExpr:
		return location(x.JoinExpr.Larg)
	case *pg.Node_RangeSubselect:
		return 0
	}
	return 0
}

// rowScope resolves columns of one table's rows; it allows no aggregate.
type rowScope struct {
	t *Table
	// alias is the name the FROM clause gives the table.
	alias string
	// calls collects the query's calls of Wasm functions (function.go).
	calls *udfCalls
	// fnAlias names the table function joined with the table, whose
	// columns start at fnFrom (tablefunc.go); "" for none.
	fnAlias string
	fnFrom  int
}

func (s rowScope) column(c *compiler, ref *pg.ColumnRef) (*sqlexpr.Expr, error) {
	name, qual, star := columnName(ref)
	if star {
		return nil, c.errAt(int(ref.Location), "* is only allowed alone in a SELECT list")
	}
	if s.fnAlias != "" {
		return s.lateralColumn(c, ref)
	}
	if qual != "" && qual != s.alias && qual != s.t.Name {
		return nil, c.errAt(int(ref.Location), "unknown table %q (the query reads %s)", qual, s.alias)
	}
	i := s.t.column(name)
	if i < 0 {
		return nil, c.errAt(int(ref.Location), "unknown column %q (%s has: %s)", name, s.t.Name, s.t.columnNames())
	}
	return sqlexpr.Col(i, s.t.Columns[i].Type), nil
}

func (s rowScope) call(c *compiler, f *pg.FuncCall) (*sqlexpr.Expr, bool, error) {
	name := funcName(f)
	if aggregates[name] || windowFns[name] != "" || windowBounds[name] != "" {
		return nil, true, c.errAt(int(f.Location), "%s is not allowed here (only in a SELECT list or HAVING of a query with GROUP BY)", strings.ToUpper(name))
	}
	if fn := c.funcs[name]; fn != nil {
		e, err := c.callFunction(fn, f, s)
		return e, true, err
	}
	return nil, false, nil
}

// errAt returns an Error at offset off of the script.
func (c *compiler) errAt(off int, format string, args ...any) error {
	return errAt(c.src, off, format, args...)
}
