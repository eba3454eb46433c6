package jobspec

import (
	"math"
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
		Type:        SourceType(b.p.choice("source.type", r.Type, "source type", "", string(SourceFile), string(SourceGenerator), string(SourceKafka), string(SourceNexmark))),
		UID:         b.uid("source.uid", r.UID),
		Parallelism: b.parallelism("source.parallelism", r.Parallelism),
	}
	switch s.Type {
	case SourceFile:
		s.File = b.fileSource(r)
	case SourceGenerator:
		s.Generator = b.generatorSource(r)
	case SourceKafka:
		s.Kafka = b.kafkaSource(r)
	case SourceNexmark:
		s.Nexmark = b.nexmarkSource(r)
	}
	if s.Type == SourceFile || s.Type == SourceGenerator || s.Type == SourceNexmark {
		b.notKafkaSource(r)
	}
	if s.Type != "" && s.Type != SourceNexmark {
		b.notNexmarkSource(r)
	}
	s.EventTime = b.eventTime(r.Timestamps, r.Watermarks)
	return s
}

func (b *builder) fileSource(r *rawSource) *FileSource {
	for _, f := range []struct {
		name string
		s    scalar
	}{{"count", r.Count}, {"kind", r.Kind}, {"keys", r.Keys}, {"size", r.Size}} {
		b.p.only("source."+f.name, f.s, "a generator source")
	}
	path, _ := b.p.text("source.path", r.Path)
	return &FileSource{
		Path:   path,
		Rate:   b.p.rate("source.rate", r.Rate),
		Follow: b.p.boolean("source.follow", r.Follow, false),
	}
}

func (b *builder) generatorSource(r *rawSource) *GeneratorSource {
	b.p.only("source.path", r.Path, "a file source")
	b.p.only("source.follow", r.Follow, "a file source")
	g := &GeneratorSource{
		Count: b.p.integer("source.count", r.Count, 0, 0, math.MaxInt64),
		Rate:  b.p.rate("source.rate", r.Rate),
		Kind:  GeneratorKind(b.p.choice("source.kind", r.Kind, "generator kind", string(GeneratorSequence), string(GeneratorSequence), string(GeneratorRandom))),
	}
	switch g.Kind {
	case GeneratorRandom:
		g.Keys = b.p.integer("source.keys", r.Keys, 1000, 1, math.MaxInt64)
		g.Size = int(b.p.integer("source.size", r.Size, 16, 1, maxRecordSize))
	case GeneratorSequence:
		b.p.only("source.keys", r.Keys, "kind random")
		b.p.only("source.size", r.Size, "kind random")
	}
	return g
}

// maxRecordSize is the largest size of a random generator's records.
const maxRecordSize = 1 << 20

// operators returns the job's chain of operators.
func (b *builder) operators(raws []rawOperator) []Operator {
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
	case KeyValue, KeyCSV:
		b.p.only(path+".module", r.Module, "a keyBy whose key is function")
		b.p.only(path+".function", r.Function, "a keyBy whose key is function")
	}
}

// key returns the key selector at path.
func (b *builder) key(path string, s scalar) KeySelector {
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
		Type:        SinkType(b.p.choice("sink.type", r.Type, "sink type", "", string(SinkFile), string(SinkStdout), string(SinkKafka))),
		UID:         b.uid("sink.uid", r.UID),
		Parallelism: b.parallelism("sink.parallelism", r.Parallelism),
	}
	switch s.Type {
	case SinkFile:
		path, _ := b.p.text("sink.path", r.Path)
		s.File = &FileSink{Path: path}
	case SinkStdout:
		b.p.only("sink.path", r.Path, "a file sink")
	case SinkKafka:
		b.p.only("sink.path", r.Path, "a file sink")
		s.Kafka = b.kafkaSink(r)
	}
	if s.Type == SinkFile || s.Type == SinkStdout {
		b.notKafkaSink(r)
	}
	return s
}
