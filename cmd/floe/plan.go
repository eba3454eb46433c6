package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
)

// planCmd prints the dataflow graph of a job spec and the stages Floe
// would deploy for it, without running anything or reading its modules.
func planCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var set stringList
	var parallelism int
	fs.Var(&set, "set", "set a job parameter, `key=value` (repeatable)")
	fs.IntVar(&parallelism, "parallelism", 0, "default parallelism of the job, overriding the spec's (0 keeps it)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: floe plan JOB.yaml [flags]\n\n"+
			"Checks a job spec and prints its graph: every source, operator and sink with\n"+
			"the steps it reads, then the stages Floe deploys (chained steps, each x its\n"+
			"parallelism) and the edges between them (hash, forward or rebalance).\n\nFlags:\n")
		fs.PrintDefaults()
	}
	spec, rest, err := splitSpec(args)
	if err == nil {
		err = fs.Parse(rest)
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err == nil && spec == "" && fs.NArg() > 0 {
		spec, err = fs.Arg(0), checkExtra(fs.Args()[1:])
	} else if err == nil {
		err = checkExtra(fs.Args())
	}
	if err == nil && spec == "" {
		err = errors.New("no job spec given")
	}
	if err != nil {
		fmt.Fprintf(stderr, "floe plan: %v\n", err)
		fs.Usage()
		return 2
	}
	p, err := planSpec(spec, set, parallelism)
	if err != nil {
		fmt.Fprintf(stderr, "floe plan: %v\n", err)
		return 1
	}
	fmt.Fprint(stdout, describePlan(p))
	return 0
}

// planSpec loads and plans the spec at path.
func planSpec(path string, set []string, parallelism int) (*plan.Plan, error) {
	params, err := jobspec.ParseSet(set)
	if err != nil {
		return nil, err
	}
	job, err := jobspec.Load(path, params)
	if err != nil {
		return nil, err
	}
	if parallelism != 0 {
		if err := job.WithParallelism(parallelism); err != nil {
			return nil, err
		}
	}
	return plan.Build(job)
}

// describePlan prints a job's graph, step by step, and its stages.
func describePlan(p *plan.Plan) string {
	var sb strings.Builder
	job := p.Job
	fmt.Fprintf(&sb, "job %s\n\ngraph:\n", job.Name)
	for i, s := range job.Sources {
		fmt.Fprintf(&sb, "  source %s (%s) x%d\n", s.UID, s.Type, job.SourceParallelism(i))
	}
	for i, op := range job.Operators {
		fmt.Fprintf(&sb, "  %s %s", op.Type, op.UID)
		if op.Type != jobspec.OperatorKeyBy && op.Type != jobspec.OperatorUnion {
			fmt.Fprintf(&sb, " x%d", job.OperatorParallelism(i))
		}
		fmt.Fprintf(&sb, " <- %s\n", strings.Join(op.Inputs, ", "))
	}
	for i, s := range job.Sinks {
		fmt.Fprintf(&sb, "  sink %s (%s) x%d <- %s\n", s.UID, s.Type, job.SinkParallelism(i), strings.Join(s.Inputs, ", "))
	}
	sb.WriteString("\nstages:\n")
	for _, line := range strings.SplitAfter(p.String(), "\n") {
		if line != "" {
			sb.WriteString("  " + line)
		}
	}
	return sb.String()
}
