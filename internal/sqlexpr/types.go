package sqlexpr

import (
	"fmt"

	"github.com/floe-stream/floe/internal/sqlrow"
)

// TypeOf returns the result type of an operator applied to arguments of the
// given types, or why it does not apply. The compiler builds every node
// with it, and Check runs it again over a tree that arrived in a spec.
func TypeOf(op Op, fn string, cast sqlrow.Type, args []sqlrow.Type) (sqlrow.Type, error) {
	switch op {
	case OpAdd, OpSub, OpMul, OpDiv, OpMod:
		a, b := args[0], args[1]
		if a == sqlrow.Timestamp || b == sqlrow.Timestamp {
			return timeArith(op, a, b)
		}
		if !isNum(a) || !isNum(b) {
			return 0, fmt.Errorf("%s wants numbers, got %s and %s", op, a, b)
		}
		if a == sqlrow.Double || b == sqlrow.Double {
			return sqlrow.Double, nil
		}
		return sqlrow.BigInt, nil
	case OpNeg:
		return numeric(args)
	case OpConcat:
		for _, t := range args {
			if t != sqlrow.Varchar && t != sqlrow.Null {
				return 0, fmt.Errorf("|| wants VARCHAR operands, got %s (CAST it)", t)
			}
		}
		return sqlrow.Varchar, nil
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe:
		if _, ok := Unify(args[0], args[1]); !ok {
			return 0, fmt.Errorf("cannot compare %s with %s", args[0], args[1])
		}
		return sqlrow.Boolean, nil
	case OpAnd, OpOr, OpNot:
		for _, t := range args {
			if t != sqlrow.Boolean && t != sqlrow.Null {
				return 0, fmt.Errorf("%s wants BOOLEAN operands, got %s", op, t)
			}
		}
		return sqlrow.Boolean, nil
	case OpIsNull, OpNotNull:
		return sqlrow.Boolean, nil
	case OpLike, OpILike:
		if len(args) != 2 && len(args) != 3 {
			return 0, fmt.Errorf("%s takes a string, a pattern and an optional escape, got %d operands", op, len(args))
		}
		for _, t := range args {
			if t != sqlrow.Varchar && t != sqlrow.Null {
				return 0, fmt.Errorf("LIKE wants VARCHAR operands, got %s", t)
			}
		}
		return sqlrow.Boolean, nil
	case OpCase:
		return caseType(args)
	case OpCast:
		if cast == sqlrow.Null {
			return 0, fmt.Errorf("cannot cast to NULL")
		}
		return cast, nil
	case OpCall:
		return TypeOfCall(fn, args)
	}
	return 0, fmt.Errorf("unknown operator %q", op)
}

// caseType checks that every WHEN is a BOOLEAN and returns the type the
// results share.
func caseType(args []sqlrow.Type) (sqlrow.Type, error) {
	out := sqlrow.Null
	for i, t := range args {
		if i%2 == 0 && i+1 < len(args) {
			if t != sqlrow.Boolean && t != sqlrow.Null {
				return 0, fmt.Errorf("CASE WHEN wants a BOOLEAN condition, got %s", t)
			}
			continue
		}
		u, ok := Unify(out, t)
		if !ok {
			return 0, fmt.Errorf("CASE results of types %s and %s", out, t)
		}
		out = u
	}
	return out, nil
}

// New returns the node op(args...), typed, or an error if the operator does
// not apply to them. For OpCast, cast is the target type; for OpCall, fn
// is the function.
func New(op Op, fn string, cast sqlrow.Type, args ...*Expr) (*Expr, error) {
	ts := make([]sqlrow.Type, len(args))
	for i, a := range args {
		ts[i] = a.Type
	}
	t, err := TypeOf(op, fn, cast, ts)
	if err != nil {
		return nil, err
	}
	e := &Expr{Op: op, Type: t, Fn: fn, Args: args}
	if err := e.prepare(); err != nil {
		return nil, err
	}
	return e, nil
}

// Check verifies that e is well formed over rows of the given column
// types: every column exists and every node's type is the one its
// operator gives its arguments. NB: it also compiles each regexp_like node's
// constant pattern (prepare), so it runs before the tree is evaluated,
// never while.
func Check(e *Expr, cols []sqlrow.Type) error {
	if e == nil {
		return fmt.Errorf("missing expression")
	}
	switch e.Op {
	case OpCol:
		if e.Col < 0 || e.Col >= len(cols) {
			return fmt.Errorf("column %d of a row of %d", e.Col, len(cols))
		}
		if cols[e.Col] != e.Type {
			return fmt.Errorf("column %d is %s, the expression says %s", e.Col, cols[e.Col], e.Type)
		}
		return nil
	case OpLit:
		if e.Lit.T != e.Type {
			return fmt.Errorf("literal %v typed %s", e.Lit, e.Type)
		}
		return nil
	}
	ts := make([]sqlrow.Type, len(e.Args))
	for i, a := range e.Args {
		if err := Check(a, cols); err != nil {
			return err
		}
		ts[i] = a.Type
	}
	if n := arity[e.Op]; n > 0 && len(e.Args) != n {
		return fmt.Errorf("%s takes %d operands, got %d", e.Op, n, len(e.Args))
	}
	t, err := TypeOf(e.Op, e.Fn, e.Type, ts)
	if err != nil {
		return err
	}
	if t != e.Type {
		return fmt.Errorf("%s gives %s, the expression says %s", e.Op, t, e.Type)
	}
	return e.prepare()
}

var arity = map[Op]int{
	OpAdd: 2, OpSub: 2, OpMul: 2, OpDiv: 2, OpMod: 2, OpConcat: 2,
	OpEq: 2, OpNe: 2, OpLt: 2, OpLe: 2, OpGt: 2, OpGe: 2,
	OpNeg: 1, OpNot: 1, OpIsNull: 1, OpNotNull: 1, OpCast: 1,
}
