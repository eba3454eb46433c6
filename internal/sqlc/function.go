package sqlc

import (
	"fmt"
	"path/filepath"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// This file compiles scalar Wasm functions: CREATE FUNCTION declares one,
// and a call of it over a table's columns becomes a sql operator that calls
// the module (a program with Returns set, host/sqlop.Call) placed before
// the query's first operator, which then reads the table's row with the
// function's result appended as one more column.

// Function is a scalar function exported by a Wasm module.
type Function struct {
	Name string
	// Params are the types of its arguments, Returns that of its result.
	Params  []sqlrow.Type
	Names   []string
	Returns sqlrow.Type
	// Path is the module's file; Module the name the spec gives it;
	// Export the function the module exports.
	Path, Module, Export string
	// Kind is a scalar function's, an aggregate's (aggfunc.go) or a
	// table function's (tablefunc.go), whose result columns are Rows.
	Kind funcKind
	Rows []sqlprog.Column
	// at is the offset of the CREATE FUNCTION in the script.
	at int
}

// createFunction compiles
//
//	CREATE FUNCTION f(a BIGINT, b VARCHAR) RETURNS VARCHAR
//	  LANGUAGE wasm AS 'module.wasm' [, 'export']
func (c *compiler) createFunction(s *pg.CreateFunctionStmt, at int) error {
	if s.IsProcedure || s.SqlBody != nil {
		return c.errAt(at, "a function is a Wasm module's export: CREATE FUNCTION f(args) RETURNS type LANGUAGE wasm AS 'module.wasm'")
	}
	f, err := c.newFunction(s.Funcname[len(s.Funcname)-1].GetString_().Sval, at)
	if err != nil {
		return err
	}
	for _, p := range s.Parameters {
		fp := p.GetFunctionParameter()
		if fp.Mode == pg.FunctionParameterMode_FUNC_PARAM_TABLE {
			if err := c.tableColumn(f, fp); err != nil {
				return err
			}
			continue
		}
		if fp.Mode != pg.FunctionParameterMode_FUNC_PARAM_IN && fp.Mode != pg.FunctionParameterMode_FUNC_PARAM_DEFAULT {
			return c.errAt(int(fp.ArgType.Location), "%s: only IN arguments", f.Name)
		}
		t, err := udfType(fp.ArgType)
		if err != nil {
			return c.errAt(int(fp.ArgType.Location), "%v", err)
		}
		f.Params, f.Names = append(f.Params, t), append(f.Names, fp.Name)
	}
	if s.ReturnType == nil {
		return c.errAt(at, "%s: RETURNS type is required", f.Name)
	}
	if err := c.returns(f, s.ReturnType); err != nil {
		return err
	}
	if err := c.functionOptions(f, s.Options); err != nil {
		return err
	}
	if c.funcs == nil {
		c.funcs = map[string]*Function{}
	}
	c.funcs[f.Name] = f
	return nil
}

// newFunction starts the declaration of the function name, at offset at:
// a name that no built-in function or other declared function has.
func (c *compiler) newFunction(name string, at int) (*Function, error) {
	f := &Function{Name: strings.ToLower(name), at: at}
	_, err := sqlexpr.TypeOfCall(f.Name, nil)
	builtin := err == nil || !strings.HasPrefix(err.Error(), "unknown function")
	if builtin || aggregates[f.Name] || windowFns[f.Name] != "" || windowBounds[f.Name] != "" {
		return nil, c.errAt(at, "%s is a built-in function: name yours otherwise", f.Name)
	}
	if _, dup := c.funcs[f.Name]; dup {
		return nil, c.errAt(at, "function %s is declared twice", f.Name)
	}
	return f, nil
}

// functionOptions reads LANGUAGE and AS.
func (c *compiler) functionOptions(f *Function, opts []*pg.Node) error {
	lang := ""
	for _, o := range opts {
		d := o.GetDefElem()
		switch d.Defname {
		case "language":
			lang = strings.ToLower(d.Arg.GetString_().Sval)
			if lang != "wasm" {
				return c.errAt(int(d.Location), "LANGUAGE %s: a function is a Wasm module's (LANGUAGE wasm)", lang)
			}
		case "as":
			items := d.Arg.GetList().GetItems()
			if len(items) == 0 || len(items) > 2 {
				return c.errAt(int(d.Location), "AS 'module.wasm' [, 'export']")
			}
			f.Path = items[0].GetString_().Sval
			f.Export = f.Name
			if len(items) == 2 {
				f.Export = items[1].GetString_().Sval
			}
		default:
			return c.errAt(int(d.Location), "%s: only LANGUAGE wasm and AS 'module.wasm' are supported", strings.ToUpper(d.Defname))
		}
	}
	if f.Path == "" {
		return c.errAt(f.at, "%s: AS 'module.wasm' is required: the module that exports the function", f.Name)
	}
	return c.resolveModule(f)
}

// resolveModule names f's module in the spec: by its digest's name, or by
// its file's, the file relative to the script's directory.
func (c *compiler) resolveModule(f *Function) error {
	ref, isRef, err := jobspec.ParseModuleRef(f.Path)
	switch {
	case err != nil:
		return c.errAt(f.at, "%s: %v", f.Name, err)
	case isRef:
		f.Module = ref.Name
		if f.Module == "" {
			f.Module = "m_" + ref.Digest[:12]
		}
		return nil
	case c.byRef:
		return c.errAt(f.at, "%s: a script sent to a cluster names its module by digest, AS 'sha256:...' as floe module push prints, not by a path (%s)", f.Name, f.Path)
	}
	if !filepath.IsAbs(f.Path) && !strings.HasPrefix(f.Path, "${") {
		f.Path = filepath.Join(c.dir, f.Path)
	}
	f.Module = uidPart(strings.TrimSuffix(filepath.Base(f.Path), filepath.Ext(f.Path)))
	return nil
}

// udfCalls are the calls of Wasm functions in one query, in the order
// they run; the k-th call's result is column width+k of the row the
// query's first operator reads.
type udfCalls struct {
	width int
	list  []udfCall
}

type udfCall struct {
	fn   *Function
	args []*sqlexpr.Expr
	key  string
}

// udfArg checks argument e (node a, from 0 at i) of a call of Wasm
// function f against its parameter's type: a NULL, or a BIGINT where a
// DOUBLE is due, is cast; any other mismatch is an error at a.
func (c *compiler) udfArg(f *Function, i int, a *pg.Node, e *sqlexpr.Expr) (*sqlexpr.Expr, error) {
	switch want := f.Params[i]; {
	case e.Type == want:
		return e, nil
	case e.Type == sqlrow.Null || (e.Type == sqlrow.BigInt && want == sqlrow.Double):
		return sqlexpr.New(sqlexpr.OpCast, "", want, e)
	default:
		return nil, c.errAt(location(a), "argument %d of %s is a %s, the function takes %s (CAST it)", i+1, f.Name, e.Type, want)
	}
}

// callFunction compiles a call of the Wasm function f over a row: its
// arguments, checked against f's parameters, and a reference to the
// column that will hold its result.
func (c *compiler) callFunction(f *Function, call *pg.FuncCall, s rowScope) (*sqlexpr.Expr, error) {
	if err := c.notScalar(f, call); err != nil {
		return nil, err
	}
	if call.AggStar || call.AggDistinct || call.Over != nil {
		return nil, c.errAt(int(call.Location), "%s is a scalar function", f.Name)
	}
	if len(call.Args) != len(f.Params) {
		return nil, c.errAt(int(call.Location), "%s takes %d argument(s) (%s), got %d", f.Name, len(f.Params), f.signature(), len(call.Args))
	}
	args := make([]*sqlexpr.Expr, len(call.Args))
	for i, a := range call.Args {
		e, err := c.expr(a, s)
		if err != nil {
			return nil, err
		}
		if e, err = c.udfArg(f, i, a, e); err != nil {
			return nil, err
		}
		args[i] = e
	}
	if s.calls == nil {
		return nil, c.errAt(int(call.Location), "%s is not allowed here", f.Name)
	}
	key := f.Name
	for _, a := range args {
		key += "," + exprKey(a)
	}
	for k, prev := range s.calls.list {
		if prev.key == key {
			return sqlexpr.Col(s.calls.width+k, f.Returns), nil
		}
	}
	s.calls.list = append(s.calls.list, udfCall{fn: f, args: args, key: key})
	return sqlexpr.Col(s.calls.width+len(s.calls.list)-1, f.Returns), nil
}

func (f *Function) signature() string {
	ts := make([]string, len(f.Params))
	for i, t := range f.Params {
		ts[i] = t.String()
	}
	return strings.Join(ts, ", ")
}

// placeCalls puts the operators that call the query's Wasm functions
// before its first operator: one that reads the table's records into rows,
// then one per call, each appending its result to the row.
func (c *compiler) placeCalls(q *query, calls *udfCalls) {
	if calls == nil || len(calls.list) == 0 {
		return
	}
	first := q.ops[0].prog
	cols := append([]sqlprog.Column(nil), first.Columns...)
	read := &sqlprog.Program{In: first.In, Prefix: first.Prefix, Columns: first.Columns, Out: sqlprog.FormatRow}
	for i, col := range cols {
		read.Select = append(read.Select, sqlexpr.Col(i, col.Type))
		read.Names = append(read.Names, col.Name)
	}
	ops := []operator{{kind: "sql", suffix: "read", prog: read}}
	for k, call := range calls.list {
		p := &sqlprog.Program{In: sqlprog.FormatRow, Columns: append([]sqlprog.Column(nil), cols...),
			Select: call.args, Names: argNames(call.fn), Out: sqlprog.FormatRow, Returns: call.fn.Returns}
		ops = append(ops, operator{kind: "sql", suffix: fmt.Sprintf("call%d-%s", k+1, uidPart(call.fn.Name)), prog: p, fn: call.fn})
		cols = append(cols, sqlprog.Column{Name: fmt.Sprintf("%s#%d", call.fn.Name, k+1), Type: call.fn.Returns})
	}
	first.In, first.Prefix, first.Columns = sqlprog.FormatRow, "", cols
	q.ops = append(ops, q.ops...)
}

func argNames(f *Function) []string {
	names := make([]string, len(f.Params))
	for i, n := range f.Names {
		if names[i] = n; n == "" {
			names[i] = fmt.Sprintf("$%d", i+1)
		}
	}
	return names
}

// modules returns the spec's modules section: each function's module by
// name, and an error if two files would take one name.
func (c *compiler) modules() (map[string]string, error) {
	if len(c.funcs) == 0 {
		return nil, nil
	}
	m := map[string]string{}
	for _, q := range c.queries {
		for _, op := range q.ops {
			for _, fn := range append([]*Function{op.fn}, op.aggFns...) {
				if fn == nil {
					continue
				}
				if p, ok := m[fn.Module]; ok && p != fn.Path {
					return nil, c.errAt(fn.at, "modules %s and %s share the name %s: rename one file", p, fn.Path, fn.Module)
				}
				m[fn.Module] = fn.Path
			}
		}
	}
	return m, nil
}

// opFuncs returns, for each operator of the spec in order, the Wasm
// function it calls, or nil.
func (c *compiler) opFuncs() []*Function {
	var fs []*Function
	for _, q := range c.queries {
		for _, op := range q.ops {
			fn := op.fn
			if len(op.aggFns) == 1 {
				fn = op.aggFns[0] // NB: with more, a problem names its function
			}
			fs = append(fs, fn)
		}
	}
	return fs
}
