package jobspec

import (
	"strconv"
	"strings"
)

// This file builds the stages of the job's chain: its source, its operators
// and its sink.

// source returns the job's source.
func (b *builder) source(r *rawSource) Source {
	if r == nil {
		b.p.add("source", "required")
		return Source{}
	}
	s := Source{
		Type:        SourceType(b.p.choice("source.type", r.Type, "source type", "", sources.names(false)...)),
		UID:         b.uid("source.uid", r.UID),
		Parallelism: b.parallelism("source.parallelism", r.Parallelism),
	}
	if t := sources.lookup(string(s.Type)); t != nil {
		s.Spec, _ = b.buildSection(sources, t, "source", r.node, sourceCommon, s.UID).(SourceSpec)
	}
	s.EventTime = b.eventTime(r.Timestamps, r.Watermarks)
	return s
}

// The fields of every source and every sink section.
var (
	sourceCommon = commonFields(rawSourceType)
	sinkCommon   = commonFields(rawSinkType)
)

// operators returns the job's chain of operators.
func (b *builder) operators(raws []rawOperator) []Operator {
	if len(raws) > maxOperators {
		b.p.reject("operators", "a job has at most %d operators, this one has %d", maxOperators, len(raws))
		return nil
	}
	ops := make([]Operator, len(raws))
	keyed := false
	for i := range raws {
		ops[i] = b.operator(itemPath("operators", i), &raws[i], keyed)
		// NB: an operator of unknown type might have been meant as a keyBy;
		// counting it as one spares a second message about the same mistake.
		keyed = keyed || ops[i].Type == OperatorKeyBy || ops[i].Type == ""
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
	case OperatorWindow:
		b.p.only(path+".key", r.Key, "keyBy")
		b.window(path, r, &op)
	default:
		b.p.only(path+".key", r.Key, "keyBy")
		op.Module, op.Function = b.function(path, r)
		b.called(path+".function", op.Module, op.Function, FunctionKind(op.Type))
	}
	if op.Type != OperatorWindow {
		b.notWindow(path, r)
	}
	op.SideOutputs = b.sideOutputs(path, r.SideOutputs)
	if (op.Type == OperatorProcess || op.Type == OperatorWindow) && !keyed {
		b.p.add(path+".type", "%s needs a keyBy before it (keyed state needs a key)", op.Type)
	}
	return op
}

var operatorTypes = []string{string(OperatorMap), string(OperatorFilter), string(OperatorFlatMap), string(OperatorKeyBy), string(OperatorProcess), string(OperatorWindow)}

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
	case KeyValue, KeyCSV:
		b.p.only(path+".module", r.Module, "a keyBy whose key is function")
		b.p.only(path+".function", r.Function, "a keyBy whose key is function")
	}
}

// key returns the key selector at path.
func (b *builder) key(path string, s Scalar) KeySelector {
	if !s.set {
		b.p.reject(path, "required (want value, csv:N or function)")
		return KeySelector{}
	}
	k, ok := parseKey(s.value)
	if !ok {
		b.p.reject(path, "invalid key %q (want value, csv:N with N >= 0, or function)", s.value)
	}
	return k
}

// parseKey parses value, function or csv:N.
func parseKey(s string) (KeySelector, bool) {
	switch s {
	case string(KeyValue), string(KeyFunction):
		return KeySelector{Kind: KeyKind(s)}, true
	}
	digits, ok := strings.CutPrefix(s, "csv:")
	if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return KeySelector{}, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil {
		return KeySelector{}, false
	}
	return KeySelector{Kind: KeyCSV, Field: n}, true
}

// sink returns the job's sink.
func (b *builder) sink(r *rawSink) Sink {
	if r == nil {
		b.p.add("sink", "required")
		return Sink{}
	}
	s := Sink{
		Type:        SinkType(b.p.choice("sink.type", r.Type, "sink type", "", sinks.names(false)...)),
		UID:         b.uid("sink.uid", r.UID),
		Parallelism: b.parallelism("sink.parallelism", r.Parallelism),
	}
	if t := sinks.lookup(string(s.Type)); t != nil {
		s.Spec = b.buildSection(sinks, t, "sink", r.node, sinkCommon, s.UID)
	}
	return s
}
