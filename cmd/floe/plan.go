package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
	"github.com/spf13/cobra"
)

// planLong explains floe plan.
const planLong = `Checks a job spec and prints its graph: every source, operator and sink with
the steps it reads, then the stages Floe deploys (chained steps, each x its
parallelism) and the edges between them (hash, forward or rebalance). It runs
nothing and does not read the spec's modules.`

// planCommand prints the dataflow graph of a job spec and the stages Floe
// would deploy for it.
func planCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use: "plan JOB.yaml [--set key=value]... [--parallelism N]", Short: "check a job spec and print its graph and stages",
		Long: planLong, Args: positional("JOB.yaml"),
	}
	set := cmd.Flags().StringArray("set", nil, "set a job parameter, `key=value` (repeatable)")
	parallelism := cmd.Flags().Int("parallelism", 0, "default parallelism of the job, overriding the spec's (0 keeps it)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		p, err := planSpec(args[0], *set, *parallelism)
		if err != nil {
			fmt.Fprintf(stderr, "floe plan: %v\n", err)
			return exitCode(1)
		}
		fmt.Fprint(stdout, describePlan(p))
		return nil
	}
	return cmd
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
		fmt.Fprintf(&sb, " <- %s", strings.Join(op.Inputs, ", "))
		if op.Broadcast != "" {
			fmt.Fprintf(&sb, " (broadcast %s)", op.Broadcast)
		}
		sb.WriteByte('\n')
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
