package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/floe-stream/floe/internal/jobspec"
)

// node is one step of the job's graph.
type node struct {
	uid         string
	source      *jobspec.Source
	op          *jobspec.Operator
	sink        *jobspec.Sink
	index       int // in Job.Operators, for messages
	inputs      []string
	parallelism int
	stage       int // where the step runs; -1 for keyBy and union
}

// virtual reports whether the step runs no code of its own.
func (n *node) virtual() bool {
	return n.op != nil && (n.op.Type == jobspec.OperatorKeyBy || n.op.Type == jobspec.OperatorUnion)
}

// producer is a step that runs code, as a reader sees it through keyBys and
// unions: the step, and the last keyBy on the way, if any.
type producer struct {
	uid   string
	keyBy *jobspec.Operator
}

type builder struct {
	job    *jobspec.Job
	nodes  map[string]*node
	stages []Stage
	// chained lists the uids of each stage's steps.
	chained [][]string
	// readers counts the edges that read each producing step.
	readers map[string]int
}

func newBuilder(job *jobspec.Job) *builder {
	b := &builder{job: job, nodes: map[string]*node{}, readers: map[string]int{}}
	for i := range job.Sources {
		s := &job.Sources[i]
		b.nodes[s.UID] = &node{uid: s.UID, source: s, parallelism: job.SourceParallelism(i), stage: -1}
	}
	for i := range job.Operators {
		op := &job.Operators[i]
		b.nodes[op.UID] = &node{uid: op.UID, op: op, index: i, inputs: op.Inputs, parallelism: job.OperatorParallelism(i), stage: -1}
	}
	for i := range job.Operators {
		if n := b.nodes[job.Operators[i].UID]; !n.virtual() {
			b.countReads(n)
		}
	}
	for i := range job.Sinks {
		b.countReads(b.sinkNode(i))
	}
	return b
}

// sinkNode returns the node of Sinks[i]; sinks are read by nothing, so
// they are not in nodes.
func (b *builder) sinkNode(i int) *node {
	s := &b.job.Sinks[i]
	return &node{uid: s.UID, sink: s, inputs: s.Inputs, parallelism: b.job.SinkParallelism(i), stage: -1}
}

// countReads counts the edges by which n reads its producers.
func (b *builder) countReads(n *node) {
	for _, p := range b.producers(n.inputs) {
		b.readers[p.uid]++
	}
}

// producers returns the steps that running code reads through inputs, in
// order, looking through keyBys and unions.
func (b *builder) producers(inputs []string) []producer {
	var out []producer
	for _, uid := range inputs {
		n := b.nodes[uid]
		switch {
		case n == nil:
			panic(fmt.Sprintf("plan: input %q of a validated job is not a step", uid))
		case !n.virtual():
			out = append(out, producer{uid: uid})
		case n.op.Type == jobspec.OperatorKeyBy:
			for _, p := range b.producers(n.inputs) {
				// NB: a keyBy of a keyed stream re-keys it; only the last
				// keyBy's key counts.
				out = append(out, producer{uid: p.uid, keyBy: n.op})
			}
		default:
			out = append(out, b.producers(n.inputs)...)
		}
	}
	return out
}

// order returns the uids of the operators that run code, each after every
// operator it reads.
func (b *builder) order() []string {
	var out []string
	seen := map[string]bool{}
	var visit func(uid string)
	visit = func(uid string) {
		n := b.nodes[uid]
		if seen[uid] || n.op == nil {
			return
		}
		seen[uid] = true
		for _, in := range n.inputs {
			visit(in)
		}
		if !n.virtual() {
			out = append(out, uid)
		}
	}
	for _, op := range b.job.Operators {
		visit(op.UID)
	}
	return out
}

// place starts a stage with n.
func (b *builder) place(n *node) *Stage {
	b.stages = append(b.stages, Stage{Index: len(b.stages), Parallelism: n.parallelism, Source: n.source})
	b.chained = append(b.chained, nil)
	s := &b.stages[len(b.stages)-1]
	b.chain(s, n)
	return s
}

// chain appends n to stage s.
func (b *builder) chain(s *Stage, n *node) {
	switch {
	case n.op != nil:
		s.Operators = append(s.Operators, *n.op)
	case n.sink != nil:
		s.Sink = n.sink
	}
	n.stage = s.Index
	b.chained[s.Index] = append(b.chained[s.Index], n.uid)
}

// placeReader puts the operator or sink n into a stage: chained onto the
// one step it reads when it can be, otherwise at the head of a stage of its
// own that reads all its edges.
func (b *builder) placeReader(n *node) error {
	var prods []producer
	var edges []Edge
	for input, uid := range n.inputs {
		for _, p := range b.producers([]string{uid}) {
			from := b.nodes[p.uid].stage
			e := Edge{From: from, Partitioning: Rebalance, KeyBy: p.keyBy, StepInput: input}
			switch {
			case n.op != nil && n.op.BroadcastInput() == input:
				e.Partitioning, e.KeyBy = Broadcast, nil
			case p.keyBy != nil:
				e.Partitioning = Hash
			case b.stages[from].Parallelism == n.parallelism:
				e.Partitioning = Forward
			}
			prods = append(prods, p)
			edges = append(edges, e)
		}
	}
	keyed := slices.ContainsFunc(edges, func(e Edge) bool { return e.Partitioning == Hash }) &&
		!slices.ContainsFunc(edges, func(e Edge) bool { return e.Partitioning != Hash && e.Partitioning != Broadcast })
	if n.op != nil && n.op.Type.Keyed() && n.op.Type != jobspec.OperatorWindow && !keyed {
		return fmt.Errorf("operators[%d] (%s): a %s operator must directly follow a keyBy, which gives it the key its state is scoped to", n.index, n.uid, n.op.Type)
	}
	if len(edges) == 1 && edges[0].Partitioning == Forward && b.readers[prods[0].uid] == 1 {
		b.chain(&b.stages[edges[0].From], n)
		return nil
	}
	s := b.place(n)
	s.KeyedInput = keyed
	for _, e := range edges {
		e.To = s.Index
		e.Input = len(s.Inputs)
		from := &b.stages[e.From]
		e.Output = len(from.Outputs)
		from.Outputs = append(from.Outputs, e)
		s.Inputs = append(s.Inputs, e)
	}
	return nil
}

// name names every stage by its steps and the keyBys of its output.
func (b *builder) name() {
	for i := range b.stages {
		s := &b.stages[i]
		names := b.chained[i]
		for _, e := range s.Outputs {
			if e.KeyBy != nil && !slices.Contains(names, e.KeyBy.UID) {
				names = append(names, e.KeyBy.UID)
			}
		}
		s.Name = strings.Join(names, " -> ")
	}
}
