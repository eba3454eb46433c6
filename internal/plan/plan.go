// Package plan turns a validated job spec into stages: the units Floe
// deploys as parallel tasks.
//
// A job is a linear pipeline: source, operators, sink. Consecutive steps
// with the same parallelism are chained into one stage and hand records to
// each other directly, with no exchange and no copy between them. A stage
// ends where records must be redistributed: at a keyBy (the stage computes
// each record's key and key group, and its output is hash-partitioned by key
// group to the next stage's subtasks) or where the parallelism changes
// (output is rebalanced round-robin).
//
// Build is a pure function of the spec; the local runner and the scheduler
// both deploy what it returns.
package plan

import (
	"fmt"
	"strings"

	"github.com/floe-stream/floe/internal/jobspec"
)

// Partitioning is how a stage's output is spread over the next stage's
// subtasks.
type Partitioning int

const (
	// None: the stage ends in the sink.
	None Partitioning = iota
	// Hash sends each record to the subtask that owns its key group.
	Hash
	// Rebalance spreads batches round-robin over the subtasks.
	Rebalance
)

func (p Partitioning) String() string {
	return [...]string{"none", "hash", "rebalance"}[p]
}

// Stage is a chain of steps run by Parallelism parallel subtasks.
type Stage struct {
	// Index is the stage's position in Plan.Stages.
	Index int
	// Name lists the uids of the chained steps, e.g. "lines -> split".
	Name        string
	Parallelism int
	// Source is set on the first stage only.
	Source *jobspec.Source
	// Operators are the chained map, filter, flatMap and process steps, in
	// order.
	Operators []jobspec.Operator
	// KeyBy, when set, keys the stage's output; Output is then Hash.
	KeyBy *jobspec.Operator
	// Sink is set on the last stage only.
	Sink *jobspec.Sink
	// KeyedInput tells that the stage's input arrives hash-partitioned by
	// key group, with each record's key set.
	KeyedInput bool
	// Output is how the output reaches the next stage.
	Output Partitioning
}

// Stateful reports whether the stage runs a keyed operator.
func (s *Stage) Stateful() bool {
	for _, op := range s.Operators {
		if op.Type == jobspec.OperatorProcess || op.Type == jobspec.OperatorWindow {
			return true
		}
	}
	return false
}

// Plan is the stages of a job, source first.
type Plan struct {
	Job    *jobspec.Job
	Stages []Stage
}

// Build chains the job's steps into stages.
func Build(job *jobspec.Job) (*Plan, error) {
	b := &builder{job: job}
	b.start(job.SourceParallelism(), false)
	src := job.Source
	b.cur.Source = &src
	b.names = append(b.names, src.UID)
	for i := range job.Operators {
		if err := b.operator(i); err != nil {
			return nil, err
		}
	}
	sink := job.Sink
	b.next(job.SinkParallelism())
	b.cur.Sink = &sink
	b.names = append(b.names, sink.UID)
	b.finish()
	return &Plan{Job: job, Stages: b.stages}, nil
}

type builder struct {
	job    *jobspec.Job
	stages []Stage
	cur    *Stage
	names  []string
	// keyedAt is the index of the keyBy whose output the current stage
	// receives, while no other step came between; -1 otherwise.
	keyedAt int
}

func (b *builder) start(parallelism int, keyed bool) {
	b.stages = append(b.stages, Stage{Index: len(b.stages), Parallelism: parallelism, KeyedInput: keyed})
	b.cur = &b.stages[len(b.stages)-1]
	b.names = nil
}

func (b *builder) finish() { b.cur.Name = strings.Join(b.names, " -> ") }

// next makes sure the current stage can take a step of the given
// parallelism, starting a new stage when it cannot.
func (b *builder) next(parallelism int) {
	switch {
	case b.cur.KeyBy != nil:
		b.cur.Output = Hash
	case b.cur.Parallelism != parallelism:
		b.cur.Output = Rebalance
	default:
		return
	}
	b.finish()
	b.start(parallelism, b.cur.Output == Hash)
}

func (b *builder) operator(i int) error {
	op := b.job.Operators[i]
	if op.Type == jobspec.OperatorKeyBy {
		if b.cur.KeyBy != nil {
			// Two keyBys in a row: the second one re-keys the same stream.
			b.next(b.cur.Parallelism)
		}
		b.cur.KeyBy = &b.job.Operators[i]
		b.names = append(b.names, op.UID)
		return nil
	}
	afterKeyBy := b.cur.KeyBy != nil
	b.next(b.job.OperatorParallelism(i))
	if op.Type == jobspec.OperatorProcess && !afterKeyBy {
		return fmt.Errorf("operators[%d] (%s): a process operator must directly follow a keyBy, which gives it the key its state is scoped to", i, op.UID)
	}
	b.cur.Operators = append(b.cur.Operators, op)
	b.names = append(b.names, op.UID)
	return nil
}

// String renders the plan for logs: one line per stage.
func (p *Plan) String() string {
	var sb strings.Builder
	for _, s := range p.Stages {
		fmt.Fprintf(&sb, "stage %d [%s] x%d", s.Index, s.Name, s.Parallelism)
		if s.Output != None {
			fmt.Fprintf(&sb, " --%s-->", s.Output)
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}
