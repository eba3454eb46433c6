package sqlexpr

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/floe-stream/floe/internal/sqlrow"
)

// Op is the kind of an expression node.
type Op string

// The operators. Binary operators have two Args, unary ones one.
const (
	OpCol     Op = "col"     // the row's column Col
	OpLit     Op = "lit"     // the constant Lit
	OpAdd     Op = "+"       // BIGINT or DOUBLE
	OpSub     Op = "-"       //
	OpMul     Op = "*"       //
	OpDiv     Op = "/"       //
	OpMod     Op = "%"       //
	OpNeg     Op = "neg"     // unary minus
	OpConcat  Op = "||"      // VARCHAR || VARCHAR
	OpEq      Op = "="       // comparisons of two values of one type (BIGINT and DOUBLE compare as numbers)
	OpNe      Op = "<>"      //
	OpLt      Op = "<"       //
	OpLe      Op = "<="      //
	OpGt      Op = ">"       //
	OpGe      Op = ">="      //
	OpAnd     Op = "and"     // any number of Args
	OpOr      Op = "or"      // any number of Args
	OpNot     Op = "not"     //
	OpIsNull  Op = "isnull"  //
	OpNotNull Op = "notnull" //
	OpCase    Op = "case"    // Args: when1, then1, when2, then2, ..., [else]
	OpCast    Op = "cast"    // to Type
	OpCall    Op = "call"    // the function Fn
	OpLike    Op = "like"    // VARCHAR LIKE pattern [ESCAPE char]: % any run of characters, _ one
	OpILike   Op = "ilike"   // LIKE ignoring case
)

// Expr is one node of an expression tree.
type Expr struct {
	Op Op `json:"op"`
	// Type is the node's result type.
	Type sqlrow.Type `json:"type"`
	// Col is the column of an OpCol node, counting from 0.
	Col int `json:"col,omitempty"`
	// Lit is the value of an OpLit node.
	Lit sqlrow.Value `json:"lit,omitzero"`
	// Fn is the function of an OpCall node, in lower case.
	Fn   string  `json:"fn,omitempty"`
	Args []*Expr `json:"args,omitempty"`

	// re is a regexp_like node's constant pattern, compiled once by
	// prepare; nil when the pattern is not a constant.
	re *regexp.Regexp
}

// Col returns a reference to column i of type t.
func Col(i int, t sqlrow.Type) *Expr { return &Expr{Op: OpCol, Col: i, Type: t} }

// Lit returns the constant v.
func Lit(v sqlrow.Value) *Expr { return &Expr{Op: OpLit, Lit: v, Type: v.T} }

// ErrOverflow reports BIGINT arithmetic out of range.
var ErrOverflow = errors.New("BIGINT out of range")

// ErrDivByZero reports a division or modulo by zero.
var ErrDivByZero = errors.New("division by zero")

// Eval evaluates e over row r.
func (e *Expr) Eval(r sqlrow.Row) (sqlrow.Value, error) {
	switch e.Op {
	case OpCol:
		return r[e.Col], nil
	case OpLit:
		return e.Lit, nil
	case OpAnd, OpOr:
		return e.logic(r)
	case OpIsNull, OpNotNull:
		v, err := e.Args[0].Eval(r)
		if err != nil {
			return v, err
		}
		return sqlrow.Bool(v.IsNull() == (e.Op == OpIsNull)), nil
	case OpCase:
		return e.evalCase(r)
	case OpCall:
		if v, ok, err := e.evalLazy(r); ok {
			return v, err
		}
	case OpAdd, OpSub, OpMul, OpDiv, OpMod:
		return e.evalArith(r)
	}
	args := make([]sqlrow.Value, len(e.Args))
	for i, a := range e.Args {
		v, err := a.Eval(r)
		if err != nil {
			return v, err
		}
		if v.IsNull() {
			return sqlrow.Value{}, nil
		}
		args[i] = v
	}
	return e.apply(args)
}

// evalArith computes a binary arithmetic node as apply would, without
// the argument slice that apply takes: NB: the hottest node of
// projections, and an allocation per row saved (measured by the
// nexmark-q1-sql bench row).
func (e *Expr) evalArith(r sqlrow.Row) (sqlrow.Value, error) {
	a, err := e.Args[0].Eval(r)
	if err != nil || a.IsNull() {
		return sqlrow.Value{}, err
	}
	b, err := e.Args[1].Eval(r)
	if err != nil || b.IsNull() {
		return sqlrow.Value{}, err
	}
	return arith(e.Op, a, b)
}

// apply computes a strict node (NULL in, NULL out) from its non-NULL args.
func (e *Expr) apply(a []sqlrow.Value) (sqlrow.Value, error) {
	switch e.Op {
	case OpAdd, OpSub, OpMul, OpDiv, OpMod:
		return arith(e.Op, a[0], a[1])
	case OpNeg:
		if a[0].T == sqlrow.Double {
			return sqlrow.Float(-a[0].F), nil
		}
		return arith(OpSub, sqlrow.Int(0), a[0])
	case OpConcat:
		return sqlrow.Str(a[0].S + a[1].S), nil
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe:
		return sqlrow.Bool(holds(e.Op, compare(a[0], a[1]))), nil
	case OpNot:
		return sqlrow.Bool(!a[0].True()), nil
	case OpCast:
		return Cast(a[0], e.Type)
	case OpLike, OpILike:
		return e.evalLike(a)
	case OpCall:
		if e.Fn == "regexp_like" {
			return e.regexpLike(a)
		}
		f := strict[e.Fn]
		if f == nil {
			return sqlrow.Value{}, fmt.Errorf("unknown function %s", e.Fn)
		}
		return f(a)
	}
	return sqlrow.Value{}, fmt.Errorf("unknown operator %q", e.Op)
}

// logic is AND and OR over any number of arguments, three-valued: FALSE
// wins an AND and TRUE an OR, else a NULL makes the result NULL.
func (e *Expr) logic(r sqlrow.Row) (sqlrow.Value, error) {
	decisive := e.Op == OpOr
	sawNull := false
	for _, a := range e.Args {
		v, err := a.Eval(r)
		if err != nil {
			return v, err
		}
		if v.IsNull() {
			sawNull = true
			continue
		}
		if v.True() == decisive {
			return sqlrow.Bool(decisive), nil
		}
	}
	if sawNull {
		return sqlrow.Value{}, nil
	}
	return sqlrow.Bool(!decisive), nil
}

func (e *Expr) evalCase(r sqlrow.Row) (sqlrow.Value, error) {
	n := len(e.Args)
	for i := 0; i+1 < n; i += 2 {
		c, err := e.Args[i].Eval(r)
		if err != nil {
			return c, err
		}
		if c.True() {
			return coerce(e.Args[i+1], r, e.Type)
		}
	}
	if n%2 == 1 {
		return coerce(e.Args[n-1], r, e.Type)
	}
	return sqlrow.Value{}, nil
}

// coerce evaluates a and widens a BIGINT result to DOUBLE when t is.
func coerce(a *Expr, r sqlrow.Row, t sqlrow.Type) (sqlrow.Value, error) {
	v, err := a.Eval(r)
	if err == nil && v.T == sqlrow.BigInt && t == sqlrow.Double {
		v = sqlrow.Float(float64(v.I))
	}
	return v, err
}
