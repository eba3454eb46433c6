package jobspec

import (
	"maps"
	"slices"
	"strings"
)

// This file connects the steps of a job into its dataflow graph. Every
// operator and sink names the steps it reads by uid, in input: (one) or
// inputs: (a list); left out, its input is the step listed before it:
//
//   - the first operator reads the job's only source;
//   - every other operator reads the operator listed before it;
//   - every sink reads the last operator, or the only source of a job
//     without operators.
//
// So a linear spec (source:, operators:, sink:) needs no inputs at all and
// parses to the same Job as the graph spec that spells them out. The graph
// must be a DAG in which every input names a source or an operator, every
// step's output is read, a union has two or more inputs, a coProcess two
// and every other operator one, and a process, coProcess or window operator
// has a keyBy on every path from a source to it (keyed state needs a key).
// A coProcess's two inputs are keyed into the same key groups (the job's
// maxParallelism): a record of either input reaches the subtask that owns
// its key, where both functions share the key's state and timers.

// graphNode is one source or operator, as inputs see it.
type graphNode struct {
	path string // of the step: "sources[1]", "operators[3]"
	op   *Operator
	used bool
}

// graph fills in the Inputs of every operator and sink of j and checks the
// graph they make. raw is what the spec says.
func (b *builder) graph(j *Job, raw *rawJob) {
	if b.dupUIDs {
		return // reported; which step an input names is ambiguous
	}
	nodes := map[string]*graphNode{}
	for i := range j.Sources {
		if uid := j.Sources[i].UID; uid != "" {
			nodes[uid] = &graphNode{path: j.sourcePath(i)}
		}
	}
	for i := range j.Operators {
		if uid := j.Operators[i].UID; uid != "" {
			nodes[uid] = &graphNode{path: itemPath("operators", i), op: &j.Operators[i]}
		}
	}
	sinkUIDs := map[string]bool{}
	for _, s := range j.Sinks {
		sinkUIDs[s.UID] = true
	}
	in := inputResolver{b: b, nodes: nodes, sinks: sinkUIDs, sources: j.Sources}
	for i := range j.Operators {
		path := itemPath("operators", i)
		def := in.defaultOfOperator(i, j)
		var ok bool
		j.Operators[i].Inputs, ok = in.resolve(path, raw.Operators[i].Input, raw.Operators[i].Inputs, def, i == 0, j.Operators[i].UID)
		if ok {
			b.checkArity(path, &j.Operators[i])
			b.checkBroadcast(path, &j.Operators[i], nodes)
		}
	}
	for i := range j.Sinks {
		path := j.sinkPath(i)
		var r rawSink
		if i < len(raw.Sinks) && raw.Sinks[i] != nil {
			r = *raw.Sinks[i]
		} else if raw.Sink != nil {
			r = *raw.Sink
		}
		j.Sinks[i].Inputs, _ = in.resolve(path, r.Input, r.Inputs, in.defaultOfSink(j), len(j.Operators) == 0, "")
	}
	if b.p.rejected("operators") || b.p.rejected("sources") || b.p.rejected("sinks") {
		return
	}
	if b.checkAcyclic(j, nodes) {
		b.checkKeyed(j, nodes)
	}
	for _, uid := range slices.Sorted(maps.Keys(nodes)) {
		// NB: a sql operator that keeps a materialized view ends its
		// branch of the graph, as a sink does.
		if n := nodes[uid]; !n.used && (n.op == nil || n.op.SQL == nil || n.op.SQL.View == "") {
			b.p.add(n.path+".uid", "nothing reads %q: name it in the inputs of an operator or a sink", uid)
		}
	}
}

// inputResolver turns the uids a step names into checked inputs.
type inputResolver struct {
	b       *builder
	nodes   map[string]*graphNode
	sinks   map[string]bool
	sources []Source
}

// defaultOfOperator returns the input of operators[i] when it names none,
// or "" when there is no default.
func (r inputResolver) defaultOfOperator(i int, j *Job) string {
	if i > 0 {
		return j.Operators[i-1].UID
	}
	if len(j.Sources) == 1 {
		return j.Sources[0].UID
	}
	return ""
}

// defaultOfSink returns the input of a sink that names none, or "".
func (r inputResolver) defaultOfSink(j *Job) string {
	if n := len(j.Operators); n > 0 {
		return j.Operators[n-1].UID
	}
	if len(j.Sources) == 1 {
		return j.Sources[0].UID
	}
	return ""
}

// resolve returns the inputs of the step at path, whose own uid is self:
// what one and list name, or def when they name nothing. fromSource says
// that def would be the job's only source. ok is false when a problem was
// reported.
func (r inputResolver) resolve(path string, one Scalar, list []Scalar, def string, fromSource bool, self string) (_ []string, ok bool) {
	b := r.b
	switch {
	case one.set && list != nil:
		b.p.reject(path+".inputs", "a step has either input: or inputs:, not both")
		return nil, false
	case one.set:
		list = []Scalar{one}
	case list == nil:
		if def == "" {
			// Otherwise there is no source, or the uid def would be is
			// wrong: a problem already reported.
			if fromSource && len(r.sources) > 1 {
				b.p.add(path, "needs input: or inputs: (with several sources, no input is implied)")
			}
			return nil, false
		}
		if n := r.nodes[def]; n != nil {
			n.used = true
		}
		return []string{def}, true
	}
	var out []string
	ok = true
	for i, s := range list {
		p := itemPath(path+".inputs", i)
		if one.set {
			p = path + ".input"
		}
		uid, named := b.p.text(p, s)
		if !named {
			ok = false
			continue
		}
		n := r.nodes[uid]
		ok = ok && (n != nil && uid != self && !slices.Contains(out, uid))
		switch {
		case uid == self:
			b.p.reject(p, "%q is the operator itself: a step cannot read its own output", uid)
		case n == nil && r.sinks[uid]:
			b.p.reject(p, "%q is a sink, which has no output to read", uid)
		case n == nil:
			b.p.reject(p, "%q is not the uid of a source or an operator (%s)", uid, r.known())
		case slices.Contains(out, uid):
			b.p.reject(p, "%q is named twice", uid)
		default:
			n.used = true
			out = append(out, uid)
		}
	}
	return out, ok
}

// known lists the uids an input may name, for a message.
func (r inputResolver) known() string {
	var names []string
	for _, s := range r.sources {
		names = append(names, s.UID)
	}
	for uid, n := range r.nodes {
		if n.op != nil {
			names = append(names, uid)
		}
	}
	slices.Sort(names)
	return "known: " + strings.Join(names, ", ")
}

// checkArity checks the number of inputs of an operator.
func (b *builder) checkArity(path string, op *Operator) {
	if b.p.rejected(path+".inputs") || b.p.rejected(path+".input") || op.Type == "" {
		return
	}
	switch n := len(op.Inputs); {
	case op.Type == OperatorUnion && n < 2:
		b.p.add(path+".inputs", "a union needs two or more inputs, got %d", n)
	case op.Type == OperatorCoProcess && n != 2:
		b.p.add(path+".inputs", "a coProcess reads exactly two inputs, one per function, got %d (a union before an input merges several)", n)
	case op.Type.TwoInput() && n != 2:
		b.p.add(path+".inputs", "%s reads exactly two inputs, left then right, got %d (a union before an input merges several)", article(op.Type), n)
	case op.Type != OperatorUnion && !op.Type.TwoInput() && n > 1:
		b.p.add(path+".inputs", "a %s reads one input, got %d: put a union before it", op.Type, n)
	}
}

// checkAcyclic reports a cycle among the operators, once per cycle, and
// returns whether there is none.
func (b *builder) checkAcyclic(j *Job, nodes map[string]*graphNode) bool {
	const (
		unseen = iota
		onPath
		done
	)
	mark := map[string]int{}
	ok := true
	var visit func(uid string, path []string)
	visit = func(uid string, path []string) {
		n := nodes[uid]
		if n == nil || n.op == nil || mark[uid] == done {
			return
		}
		if mark[uid] == onPath {
			// path runs from readers to what they read; data flows the
			// other way.
			cycle := append(slices.Clone(path[slices.Index(path, uid):]), uid)
			slices.Reverse(cycle)
			b.p.add(n.path+".inputs", "the inputs make a cycle: %s (a job's graph has no cycles)", strings.Join(cycle, " -> "))
			ok = false
			return
		}
		mark[uid] = onPath
		for _, in := range n.op.Inputs {
			visit(in, append(path, uid))
		}
		mark[uid] = done
	}
	for i := range j.Operators {
		visit(j.Operators[i].UID, nil)
	}
	return ok
}

// checkKeyed reports every process, coProcess or window operator that some
// path from a source reaches without a keyBy. The graph has no cycle.
func (b *builder) checkKeyed(j *Job, nodes map[string]*graphNode) {
	memo := map[string]bool{}
	var keyed func(uid string) bool
	keyed = func(uid string) bool {
		n := nodes[uid]
		if n == nil || n.op == nil {
			return false // a source, or an input already reported
		}
		if k, ok := memo[uid]; ok {
			return k
		}
		// NB: an operator of unknown type might have been meant as a keyBy;
		// counting it as one spares a second message about the same mistake.
		k := n.op.Type == OperatorKeyBy || n.op.Type == ""
		if !k && len(n.op.Inputs) > 0 {
			k = true
			for _, in := range n.op.Inputs {
				k = k && keyed(in)
			}
		}
		memo[uid] = k
		return k
	}
	for i, op := range j.Operators {
		if !op.Type.Keyed() {
			continue
		}
		for idx, in := range op.Inputs {
			if idx == op.BroadcastInput() {
				continue // sent to every subtask, not by key
			}
			if !keyed(in) {
				b.p.add(itemPath("operators", i)+".type", "%s needs a keyBy before it (keyed state needs a key) on every path from a source; it reads %q, which is not keyed", op.Type, in)
				break
			}
		}
	}
}

// sourcePath returns the field path of Sources[i].
func (j *Job) sourcePath(i int) string {
	if j.sourcesListed {
		return itemPath("sources", i)
	}
	return "source"
}

// sinkPath returns the field path of Sinks[i].
func (j *Job) sinkPath(i int) string {
	if j.sinksListed {
		return itemPath("sinks", i)
	}
	return "sink"
}
