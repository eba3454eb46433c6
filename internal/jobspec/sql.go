package jobspec

import "github.com/floe-stream/floe/internal/sqlprog"

// This file reads the operators that the SQL compiler (internal/sqlc)
// emits: a sql operator, and a window whose aggregate function is built in.
// Their sql: field is the JSON of a sqlprog.Program or
// sqlprog.Aggregation; it is checked here, so a spec edited by hand fails
// with its line rather than in a task.

// sqlOperator fills in a sql operator from its program.
// A program that returns a value (a SQL function call) names the module
// and the function it calls, a map; no other program does.
func (b *builder) sqlOperator(path string, r *rawOperator, op *Operator) {
	text, ok := b.p.text(path+".sql", r.SQL)
	var prog *sqlprog.Program
	var err error
	if ok {
		prog, err = sqlprog.ParseProgram(text)
	}
	if prog != nil && prog.IsCall() {
		op.SQL = prog
		op.Module, op.Function = b.function(path, r)
		b.called(path+".function", op.Module, op.Function, FunctionMap)
		return
	}
	b.p.only(path+".module", r.Module, "an operator that calls a function (a sql operator runs its program)")
	b.p.only(path+".function", r.Function, "an operator that calls a function (a sql operator runs its program)")
	if err != nil {
		b.p.reject(path+".sql", "%v", err)
	}
	op.SQL = prog
	b.views = b.views || (prog != nil && prog.View != "")
}

// sqlWindow fills in the aggregation of a window whose aggregate function
// is SQL's built-in one, or the ranking of a window Top-N.
func (b *builder) sqlWindow(path string, r *rawOperator, op *Operator) {
	for name, s := range map[string]Scalar{"module": r.Module, "function": r.Function, "aggregate": r.Aggregate, "process": r.Process} {
		b.p.only(path+"."+name, s, "a window with a Wasm function (this one's is sql:)")
	}
	text, _ := b.p.text(path+".sql", r.SQL)
	if sqlprog.IsTopN(text) {
		// NB: a window Top-N: the window's function ranks its rows.
		rank, err := sqlprog.ParseTopN(text)
		if err != nil {
			b.p.reject(path+".sql", "%v", err)
			return
		}
		op.SQLTopN = rank
		op.Window.Aggregate = true
		return
	}
	agg, err := sqlprog.ParseAggregation(text)
	if err != nil {
		b.p.reject(path+".sql", "%v", err)
		return
	}
	op.SQLAggregation = agg
	op.Window.Aggregate = true
	b.sqlAggregates(path, agg)
}

// sqlGroup fills in the aggregation of a sqlGroup operator.
func (b *builder) sqlGroup(path string, r *rawOperator, op *Operator) {
	b.p.only(path+".module", r.Module, "an operator that calls a function (a sqlGroup runs its aggregation)")
	b.p.only(path+".function", r.Function, "an operator that calls a function (a sqlGroup runs its aggregation)")
	text, ok := b.p.text(path+".sql", r.SQL)
	if !ok {
		return
	}
	agg, err := sqlprog.ParseAggregation(text)
	if err != nil {
		b.p.reject(path+".sql", "%v", err)
		return
	}
	op.SQLAggregation = agg
	b.sqlAggregates(path, agg)
}

// sqlAggregates checks the Wasm aggregate functions an aggregation calls:
// each module declared, and each function an aggregate function of it.
func (b *builder) sqlAggregates(path string, agg *sqlprog.Aggregation) {
	idx, _ := agg.WasmAggs()
	for _, i := range idx {
		c := agg.Aggs[i].Call
		if _, ok := b.modules[c.Module]; !ok && !b.p.rejected("modules") {
			b.p.reject(path+".sql", "aggs[%d]: module %q is not declared in modules (%s)", i, c.Module, b.declared())
			continue
		}
		b.called(path+".sql", c.Module, c.Function, FunctionAggregate)
	}
}

// sqlTopN fills in the ranking of a sqlTopN operator.
func (b *builder) sqlTopN(path string, r *rawOperator, op *Operator) {
	b.p.only(path+".module", r.Module, "an operator that calls a function (a sqlTopN runs its ranking)")
	b.p.only(path+".function", r.Function, "an operator that calls a function (a sqlTopN runs its ranking)")
	text, ok := b.p.text(path+".sql", r.SQL)
	if !ok {
		return
	}
	rank, err := sqlprog.ParseTopN(text)
	if err != nil {
		b.p.reject(path+".sql", "%v", err)
		return
	}
	op.SQLTopN = rank
}

// sqlOver fills in the frame aggregation of a sqlOver operator.
func (b *builder) sqlOver(path string, r *rawOperator, op *Operator) {
	b.p.only(path+".module", r.Module, "an operator that calls a function (a sqlOver runs its aggregation)")
	b.p.only(path+".function", r.Function, "an operator that calls a function (a sqlOver runs its aggregation)")
	text, ok := b.p.text(path+".sql", r.SQL)
	if !ok {
		return
	}
	over, err := sqlprog.ParseOver(text)
	if err != nil {
		b.p.reject(path+".sql", "%v", err)
		return
	}
	op.SQLOver = over
}
