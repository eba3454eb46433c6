// Package plan turns a validated job spec into stages: the units Floe
// deploys as parallel tasks, and the edges between them.
//
// A job is a dataflow graph (jobspec, graph.go): sources, operators and
// sinks, each operator and sink reading the steps it names. keyBy and union
// run no code of their own: a keyBy tells how the stream it reads is
// partitioned on its way to the steps that read the keyBy (the sending stage
// computes each record's key and key group, and sends it to the subtask that
// owns its key group: Hash), and a union makes its reader read every input
// of the union. Every other step reads its inputs over edges:
//
//   - Hash, after a keyBy;
//   - Forward, between steps of the same parallelism: subtask i sends to
//     subtask i of the reader only;
//   - Rebalance, where the parallelism changes: batches spread round-robin.
//
// A step is chained into the stage of the step it reads, handing records
// over directly with no exchange and no copy, when it reads exactly one
// Forward edge and is the only reader of that step. Everything else starts a
// stage: a source, a step after a keyBy or a parallelism change, a step with
// several inputs (a union's reader), and each reader of a step read by
// several (fan-out). A stage's inputs and outputs are its edges; a subtask
// reads all its input edges through one inbox, whose channels are numbered
// by input edge (Channel), and routes its output to every output edge.
//
// A coProcess, an intervalJoin and a windowJoin have two inputs, each
// keyed: such an operator always heads a stage, whose edges say by
// StepInput which of its inputs they carry (StepInputs maps the inbox's
// channels to them), so that the task runs the function of the input each
// batch came by, or tells a join's left records from its right ones. One input of a
// coProcess may be a broadcast input instead, carried by Broadcast edges
// (every record to every subtask); the stage's KeyedInput then says that its
// other input is hashed.
//
// Build is a pure function of the spec; the local runner, the scheduler and
// every task manager build the same plan from the same spec.
package plan

import (
	"fmt"
	"strings"

	"github.com/floe-stream/floe/internal/jobspec"
)

// Partitioning is how an edge spreads the sending stage's output over the
// receiving stage's subtasks.
type Partitioning int

const (
	// None is the partitioning of no edge: the zero value.
	None Partitioning = iota
	// Hash sends each record to the subtask that owns its key group.
	Hash
	// Rebalance spreads batches round-robin over the subtasks.
	Rebalance
	// Forward sends the output of subtask i to subtask i; both stages have
	// the same parallelism.
	Forward
	// Broadcast sends every record to every subtask: the broadcast input
	// of a coProcess (jobspec.Operator.Broadcast).
	Broadcast
)

func (p Partitioning) String() string {
	return [...]string{"none", "hash", "rebalance", "forward", "broadcast"}[p]
}

// Edge carries the output of one stage to another.
type Edge struct {
	// From and To are the indexes of the sending and receiving stages.
	From, To int
	// Partitioning says which of To's subtasks gets each record.
	Partitioning Partitioning
	// KeyBy is the keyBy whose key the sending stage computes for the
	// edge; set exactly when Partitioning is Hash.
	KeyBy *jobspec.Operator
	// Input is the edge's index in Stages[To].Inputs, and Output its index
	// in Stages[From].Outputs.
	Input, Output int
	// StepInput is the index, in the Inputs of the receiving stage's first
	// step, of the input whose records the edge carries (a union's inputs
	// all count as the union). A coProcess runs its first function on the
	// records of input 0 and its second on those of input 1.
	StepInput int
}

// Stage is a chain of steps run by Parallelism parallel subtasks.
type Stage struct {
	// Index is the stage's position in Plan.Stages.
	Index int
	// Name lists the uids of the chained steps, then the keyBys of the
	// stage's output, e.g. "lines -> split -> by-word".
	Name        string
	Parallelism int
	// Source is set on a stage that begins with a source, which then has
	// no Inputs.
	Source *jobspec.Source
	// Operators are the chained map, filter, flatMap, process and window
	// steps, in order.
	Operators []jobspec.Operator
	// Sink is set on a stage that ends in a sink, which then has no
	// Outputs.
	Sink *jobspec.Sink
	// KeyedInput tells that all the stage's input arrives hash-partitioned
	// by key group, with each record's key set; but for a broadcast input,
	// whose records go to every subtask unkeyed.
	KeyedInput bool
	// Inputs are the edges the stage reads, in the order its first step
	// names them; Outputs the edges it writes.
	Inputs, Outputs []Edge
}

// Stateful reports whether the stage runs a keyed operator.
func (s *Stage) Stateful() bool {
	for _, op := range s.Operators {
		if op.Type.Keyed() {
			return true
		}
	}
	return false
}

// StepInputs returns, for each channel into a subtask of stage s (numbered
// as Channel numbers them), the StepInput of the edge it belongs to: which
// of the stage's first step's inputs its records come by.
func (p *Plan) StepInputs(s int) []int {
	out := make([]int, 0, p.Channels(s))
	for _, e := range p.Stages[s].Inputs {
		for range p.width(e) {
			out = append(out, e.StepInput)
		}
	}
	return out
}

// Plan is the stages of a job: each stage after the stages it reads.
type Plan struct {
	Job    *jobspec.Job
	Stages []Stage
}

// Sources returns the indexes of the stages that begin with a source.
func (p *Plan) Sources() []int {
	var out []int
	for i := range p.Stages {
		if p.Stages[i].Source != nil {
			out = append(out, i)
		}
	}
	return out
}

// Channels returns how many channels end in each subtask of stage s: one
// for each Forward input edge, and one per sending subtask for each other.
func (p *Plan) Channels(s int) int {
	n := 0
	for _, e := range p.Stages[s].Inputs {
		n += p.width(e)
	}
	return n
}

// width returns the channels edge e has into each receiving subtask.
func (p *Plan) width(e Edge) int {
	if e.Partitioning == Forward {
		return 1
	}
	return p.Stages[e.From].Parallelism
}

// Channel returns the index, among the channels into each receiving
// subtask, of the channel by which subtask sub of e.From sends over e.
func (p *Plan) Channel(e Edge, sub int) int {
	at := 0
	for _, in := range p.Stages[e.To].Inputs[:e.Input] {
		at += p.width(in)
	}
	if e.Partitioning == Forward {
		return at
	}
	return at + sub
}

// Targets returns the subtasks of e.To that subtask sub of e.From sends to
// over e.
func (p *Plan) Targets(e Edge, sub int) []int {
	if e.Partitioning == Forward {
		return []int{sub}
	}
	out := make([]int, p.Stages[e.To].Parallelism)
	for i := range out {
		out[i] = i
	}
	return out
}

// Build plans the job's graph as stages.
func Build(job *jobspec.Job) (*Plan, error) {
	b := newBuilder(job)
	for i := range job.Sources {
		b.place(b.nodes[job.Sources[i].UID])
	}
	for _, uid := range b.order() {
		if err := b.placeReader(b.nodes[uid]); err != nil {
			return nil, err
		}
	}
	for i := range job.Sinks {
		if err := b.placeReader(b.sinkNode(i)); err != nil {
			return nil, err
		}
	}
	b.name()
	return &Plan{Job: job, Stages: b.stages}, nil
}

// String renders the plan for logs and floe plan: one line per stage, with
// its output edges.
func (p *Plan) String() string {
	var sb strings.Builder
	for _, s := range p.Stages {
		fmt.Fprintf(&sb, "stage %d [%s] x%d", s.Index, s.Name, s.Parallelism)
		for i, e := range s.Outputs {
			if i > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, " --%s--> %d", e.Partitioning, e.To)
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}
