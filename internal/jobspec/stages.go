package jobspec

import (
	"strconv"
	"strings"
)

// This file builds the steps of the job's graph: its sources, its operators
// and its sinks. graph.go then connects them.

// sources returns the job's sources: the one under source:, or those listed
// under sources:. listed tells which.
func (b *builder) sources(one *rawSource, list []*rawSource) (out []Source, listed bool) {
	switch {
	case one != nil && list != nil:
		b.p.reject("sources", "a job has either source: or sources:, not both")
	case one != nil:
		return []Source{b.source("source", one)}, false
	case len(list) == 0:
		b.p.add("source", "required (or sources: a list of them)")
	}
	for i, r := range list {
		out = append(out, b.source(itemPath("sources", i), r))
	}
	return out, true
}

// source returns the source at path.
func (b *builder) source(path string, r *rawSource) Source {
	if r == nil {
		r = &rawSource{}
	}
	s := Source{
		Type:        SourceType(b.p.choice(path+".type", r.Type, "source type", "", sources.names(false)...)),
		UID:         b.uid(path+".uid", r.UID),
		Parallelism: b.parallelism(path+".parallelism", r.Parallelism),
	}
	if t := sources.lookup(string(s.Type)); t != nil {
		s.Spec, _ = b.buildSection(sources, t, path, r.node, sourceCommon, s.UID).(SourceSpec)
	}
	s.EventTime = b.eventTime(path, r.Timestamps, r.Watermarks)
	return s
}

// The fields of every source and every sink section.
var (
	sourceCommon = commonFields(rawSourceType)
	sinkCommon   = commonFields(rawSinkType)
)

// operators returns the job's operators. Whether a keyed operator has a
// keyBy before it is checked once the graph is known (graph.go).
func (b *builder) operators(raws []rawOperator) []Operator {
	if len(raws) > maxOperators {
		b.p.reject("operators", "a job has at most %d operators, this one has %d", maxOperators, len(raws))
		return nil
	}
	ops := make([]Operator, len(raws))
	for i := range raws {
		ops[i] = b.operator(itemPath("operators", i), &raws[i], true)
	}
	return ops
}

// operator returns one operator; keyed says whether a keyBy comes before it.
func (b *builder) operator(path string, r *rawOperator, keyed bool) Operator {
	op := Operator{
		Type:        OperatorType(b.p.choice(path+".type", r.Type, "operator type", "", operatorTypes...)),
		UID:         b.uid(path+".uid", r.UID),
		Parallelism: b.parallelism(path+".parallelism", r.Parallelism),
	}
	switch op.Type {
	case "":
		// The type is missing or unknown, which is reported already.
	case OperatorKeyBy:
		b.keyBy(path, r, &op)
	case OperatorUnion:
		b.p.only(path+".key", r.Key, "keyBy")
		b.p.only(path+".module", r.Module, "an operator that calls a function")
		b.p.only(path+".function", r.Function, "an operator that calls a function")
	case OperatorWindow:
		b.p.only(path+".key", r.Key, "keyBy")
		b.window(path, r, &op)
	case OperatorCoProcess:
		b.p.only(path+".key", r.Key, "keyBy")
		b.coProcess(path, r, &op)
	case OperatorIntervalJoin:
		b.intervalJoin(path, r, &op)
	case OperatorWindowJoin:
		b.windowJoin(path, r, &op)
	case OperatorSQL:
		b.p.only(path+".key", r.Key, "keyBy")
		b.sqlOperator(path, r, &op)
	case OperatorSQLGroup:
		b.p.only(path+".key", r.Key, "keyBy")
		b.sqlGroup(path, r, &op)
	case OperatorSQLTopN:
		b.p.only(path+".key", r.Key, "keyBy")
		b.sqlTopN(path, r, &op)
	case OperatorSQLOver:
		b.p.only(path+".key", r.Key, "keyBy")
		b.sqlOver(path, r, &op)
	default:
		b.p.only(path+".key", r.Key, "keyBy")
		op.Module, op.Function = b.function(path, r)
		b.called(path+".function", op.Module, op.Function, FunctionKind(op.Type))
	}
	switch op.Type {
	case OperatorWindow:
		b.notJoin(path, r)
	case OperatorIntervalJoin, OperatorWindowJoin:
		// They check the window fields they do not have.
	default:
		b.notWindow(path, r)
		b.notJoin(path, r)
	}
	op.SideOutputs = b.sideOutputs(path, r.SideOutputs)
	if op.Type != OperatorSQL && op.Type != OperatorWindow && op.Type != OperatorSQLGroup && op.Type != OperatorSQLTopN && op.Type != OperatorSQLOver && op.Join == nil {
		b.p.only(path+".sql", r.SQL, "a sql, sqlGroup, sqlTopN or sqlOver operator, a window or a join")
	}
	if op.Type != OperatorCoProcess {
		b.p.only(path+".functions", listScalar(r.Functions), "a coProcess (which names two functions)")
		b.p.only(path+".broadcast", r.Broadcast, "a coProcess (one of whose two inputs may be broadcast)")
	} else if r.Broadcast.set {
		op.Broadcast, _ = b.p.text(path+".broadcast", r.Broadcast)
	}
	if op.Type.Keyed() && !keyed {
		b.p.add(path+".type", "%s needs a keyBy before it (keyed state needs a key)", op.Type)
	}
	return op
}

var operatorTypes = []string{string(OperatorMap), string(OperatorFilter), string(OperatorFlatMap), string(OperatorKeyBy), string(OperatorProcess), string(OperatorCoProcess), string(OperatorWindow), string(OperatorIntervalJoin), string(OperatorWindowJoin), string(OperatorUnion), string(OperatorSQL), string(OperatorSQLGroup), string(OperatorSQLTopN), string(OperatorSQLOver)}

// coProcess fills in the module and the two functions of a coProcess:
// functions: [F1, F2], F1 for the records of its first input and F2 for
// those of its second.
func (b *builder) coProcess(path string, r *rawOperator, op *Operator) {
	b.p.only(path+".function", r.Function, "an operator with one input (a coProcess names functions: [first, second], one per input)")
	op.Module = b.module(path+".module", r.Module)
	fp := path + ".functions"
	switch {
	case r.Functions == nil:
		b.p.reject(fp, "required: the two functions of a coProcess, one per input, as [first, second]")
		return
	case len(r.Functions) != 2:
		b.p.reject(fp, "a coProcess names two functions, one per input, got %d", len(r.Functions))
		return
	}
	fns := [2]string{}
	for i, s := range r.Functions {
		fns[i], _ = b.p.text(itemPath(fp, i), s)
		b.called(itemPath(fp, i), op.Module, fns[i], FunctionProcess)
	}
	op.Function, op.Function2 = fns[0], fns[1]
}

// listScalar stands for a list field in p.only, which asks only whether a
// field is set.
func listScalar(l []Scalar) Scalar {
	if l == nil {
		return Scalar{}
	}
	return Scalar{set: true}
}

// function returns the module and function an operator names.
func (b *builder) function(path string, r *rawOperator) (module, function string) {
	module = b.module(path+".module", r.Module)
	function, _ = b.p.text(path+".function", r.Function)
	return module, function
}

// keyBy fills in the key of a keyBy operator, and its key selector function
// when the key is one.
func (b *builder) keyBy(path string, r *rawOperator, op *Operator) {
	op.Key = b.key(path+".key", r.Key)
	switch op.Key.Kind {
	case KeyFunction:
		op.Module, op.Function = b.function(path, r)
		b.called(path+".function", op.Module, op.Function, FunctionKeySelector)
	case KeyValue, KeyCSV, KeyRow, KeyRowText:
		b.p.only(path+".module", r.Module, "a keyBy whose key is function")
		b.p.only(path+".function", r.Function, "a keyBy whose key is function")
	}
}

// key returns the key selector at path.
func (b *builder) key(path string, s Scalar) KeySelector {
	if !s.set {
		b.p.reject(path, "required (want value, csv:N, row:N, text:N or function)")
		return KeySelector{}
	}
	k, ok := parseKey(s.value)
	if !ok {
		b.p.reject(path, "invalid key %q (want value, csv:N with N >= 0, row:N or text:N with N >= 0, or function)", s.value)
	}
	return k
}

// parseKey parses value, function or csv:N.
func parseKey(s string) (KeySelector, bool) {
	switch s {
	case string(KeyValue), string(KeyFunction):
		return KeySelector{Kind: KeyKind(s)}, true
	}
	kind, digits, ok := strings.Cut(s, ":")
	if !ok || (kind != string(KeyCSV) && kind != string(KeyRow) && kind != string(KeyRowText)) || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return KeySelector{}, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil {
		return KeySelector{}, false
	}
	return KeySelector{Kind: KeyKind(kind), Field: n}, true
}

// sinks returns the job's sinks: the one under sink:, or those listed under
// sinks:. listed tells which.
func (b *builder) sinks(one *rawSink, list []*rawSink) (out []Sink, listed bool) {
	switch {
	case one != nil && list != nil:
		b.p.reject("sinks", "a job has either sink: or sinks:, not both")
	case one != nil:
		return []Sink{b.sink("sink", one)}, false
	case len(list) == 0 && !b.views:
		b.p.add("sink", "required (or sinks: a list of them)")
	}
	for i, r := range list {
		out = append(out, b.sink(itemPath("sinks", i), r))
	}
	return out, true
}

// sink returns the sink at path.
func (b *builder) sink(path string, r *rawSink) Sink {
	if r == nil {
		r = &rawSink{}
	}
	s := Sink{
		Type:        SinkType(b.p.choice(path+".type", r.Type, "sink type", "", sinks.names(false)...)),
		UID:         b.uid(path+".uid", r.UID),
		Parallelism: b.parallelism(path+".parallelism", r.Parallelism),
	}
	if t := sinks.lookup(string(s.Type)); t != nil {
		s.Spec = b.buildSection(sinks, t, path, r.node, sinkCommon, s.UID)
	}
	return s
}
