package sqlc

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// This file compiles Wasm aggregate functions: CREATE AGGREGATE declares
// one, and a call of it in a grouped query becomes one more aggregate of
// the query's window or sqlGroup (sqlprog.WasmCall), which calls the
// module's aggregate function through floe_window, once per batch of
// groups (host/sqlop).

// funcKind tells a scalar Wasm function from an aggregate and a table
// function.
type funcKind int

const (
	scalarFunc funcKind = iota
	aggregateFunc
	tableFunc
)

func (k funcKind) String() string {
	return [...]string{"a scalar function", "an aggregate function", "a table function"}[k]
}

// createAggregate compiles
//
//	CREATE AGGREGATE f(a BIGINT, ...) (RETURNS = BIGINT, MODULE = 'module.wasm' [, EXPORT = 'name'])
//
// PostgreSQL's CREATE AGGREGATE, whose definition names, instead of state
// and final functions, the result's type and the module whose aggregate
// function (its create, add, merge and result) computes it.
func (c *compiler) createAggregate(s *pg.DefineStmt, at int) error {
	if s.Kind != pg.ObjectType_OBJECT_AGGREGATE {
		return c.errAt(at, "this statement is not supported (want CREATE TABLE, CREATE FUNCTION, CREATE AGGREGATE, INSERT INTO ... SELECT, EXPLAIN or SET)")
	}
	const usage = "CREATE AGGREGATE f(a BIGINT, ...) (RETURNS = type, MODULE = 'module.wasm' [, EXPORT = 'name'])"
	f, err := c.newFunction(s.Defnames[len(s.Defnames)-1].GetString_().Sval, at)
	if err != nil {
		return err
	}
	f.Kind = aggregateFunc
	if len(s.Args) > 0 {
		for _, p := range s.Args[0].GetList().GetItems() {
			fp := p.GetFunctionParameter()
			if fp == nil || fp.ArgType == nil {
				return c.errAt(at, "%s: %s", f.Name, usage)
			}
			t, err := udfType(fp.ArgType)
			if err != nil {
				return c.errAt(int(fp.ArgType.Location), "%v", err)
			}
			f.Params, f.Names = append(f.Params, t), append(f.Names, fp.Name)
		}
	}
	if len(f.Params) == 0 {
		return c.errAt(at, "%s: an aggregate takes at least one argument: %s", f.Name, usage)
	}
	for _, n := range s.Definition {
		if err := c.aggregateOption(f, n.GetDefElem(), usage); err != nil {
			return err
		}
	}
	switch {
	case f.Returns == sqlrow.Null:
		return c.errAt(at, "%s: RETURNS = type is required: %s", f.Name, usage)
	case f.Path == "":
		return c.errAt(at, "%s: MODULE = 'module.wasm' is required: the module that exports the function", f.Name)
	}
	if f.Export == "" {
		f.Export = f.Name
	}
	if err := c.resolveModule(f); err != nil {
		return err
	}
	if c.funcs == nil {
		c.funcs = map[string]*Function{}
	}
	c.funcs[f.Name] = f
	return nil
}

// aggregateOption reads one item of CREATE AGGREGATE's definition.
func (c *compiler) aggregateOption(f *Function, d *pg.DefElem, usage string) error {
	switch d.Defname {
	case "returns":
		tn := d.Arg.GetTypeName()
		if tn == nil {
			return c.errAt(int(d.Location), "RETURNS = a type, such as BIGINT")
		}
		t, err := udfType(tn)
		if err != nil {
			return c.errAt(int(d.Location), "%v", err)
		}
		f.Returns = t
	case "module", "export":
		v := d.Arg.GetString_()
		if v == nil {
			return c.errAt(int(d.Location), "%s = 'text' (quoted)", strings.ToUpper(d.Defname))
		}
		if d.Defname == "module" {
			f.Path = v.Sval
		} else {
			f.Export = v.Sval
		}
	default:
		return c.errAt(int(d.Location), "%s: a Wasm aggregate is declared %s", strings.ToUpper(d.Defname), usage)
	}
	return nil
}

// isWasmAggregate reports whether name is a declared Wasm aggregate.
func (c *compiler) isWasmAggregate(name string) bool {
	f := c.funcs[name]
	return f != nil && f.Kind == aggregateFunc
}

// notScalar refuses a call of an aggregate or a table function where a
// scalar function's belongs.
func (c *compiler) notScalar(f *Function, call *pg.FuncCall) error {
	switch f.Kind {
	case aggregateFunc:
		return c.errAt(int(call.Location), "%s is an aggregate function: call it in the SELECT list or HAVING of a query with GROUP BY", f.Name)
	case tableFunc:
		return c.errAt(int(call.Location), "%s is a table function: call it in FROM (FROM t, LATERAL %s(...) AS u(...))", f.Name, f.Name)
	}
	return nil
}

// wasmAggregate compiles a call of the Wasm aggregate f in a grouped
// query: its arguments, computed over the table's rows after the keys (in
// pre), and the output column of its result. The same call twice is
// computed once.
func (s *aggScope) wasmAggregate(c *compiler, f *Function, call *pg.FuncCall) (*sqlexpr.Expr, error) {
	switch {
	case call.AggStar || call.AggDistinct:
		return nil, c.errAt(int(call.Location), "%s(*) and %s(DISTINCT ...) are not supported: pass its arguments", f.Name, f.Name)
	case call.Over != nil || call.AggFilter != nil || len(call.AggOrder) > 0:
		return nil, c.errAt(int(call.Location), "OVER, FILTER and ORDER BY in aggregates are not supported yet")
	case len(call.Args) != len(f.Params):
		return nil, c.errAt(int(call.Location), "%s takes %d argument(s) (%s), got %d", f.Name, len(f.Params), f.signature(), len(call.Args))
	}
	wc := &sqlprog.WasmCall{Module: f.Module, Function: f.Export, Returns: f.Returns}
	key := "wasm|" + f.Name
	n := len(s.pre)
	for i, a := range call.Args {
		e, err := c.expr(a, s.rs)
		if err != nil {
			return nil, err
		}
		if e, err = c.udfArg(f, i, a, e); err != nil {
			return nil, err
		}
		wc.Args = append(wc.Args, len(s.pre))
		s.pre = append(s.pre, e)
		key += "|" + exprKey(e)
	}
	if s.seen == nil {
		s.seen = map[string]int{}
	}
	idx, ok := s.seen[key]
	if ok {
		s.pre = s.pre[:n]
	} else {
		idx = len(s.aggs)
		s.aggs = append(s.aggs, sqlprog.Agg{Fn: sqlprog.Wasm, Arg: -1, Call: wc})
		s.seen[key] = idx
		s.wasmFns = append(s.wasmFns, f)
	}
	return s.output(s.keys+s.bounds()+idx, f.Returns), nil
}
