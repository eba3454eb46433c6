package jobspec_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	. "github.com/floe-stream/floe/internal/jobspec"
)

// TestGraphs parses the specs of testdata/graphs, printing each job's graph
// (every step with the steps it reads) or the problems found.
//
//	parse
//	<spec>
//	----
//	<graph or problems>
func TestGraphs(t *testing.T) {
	datadriven.Walk(t, "testdata/graphs", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "parse" {
				d.Fatalf(t, "unknown command %q", d.Cmd)
			}
			job, err := Parse([]byte(d.Input), "/", nil)
			if err != nil {
				return err.Error() + "\n"
			}
			return describeGraph(job)
		})
	})
}

// describeGraph lists the steps of job with what each reads.
func describeGraph(job *Job) string {
	var sb strings.Builder
	for _, s := range job.Sources {
		fmt.Fprintf(&sb, "source %s (%s)\n", s.UID, s.Type)
	}
	for _, op := range job.Operators {
		fmt.Fprintf(&sb, "%s %s <- %s", op.Type, op.UID, strings.Join(op.Inputs, ", "))
		if op.Type == OperatorCoProcess {
			fmt.Fprintf(&sb, " (%s: %s, %s)", op.Module, op.Function, op.Function2)
		}
		if j := op.Join; j != nil {
			fmt.Fprintf(&sb, " (between [%v, %v] kind %q separator %q late %q function %q)", j.Lower, j.Upper, j.Kind, j.Separator, j.LateOutput, op.Function)
		}
		if w := op.Window; w != nil && op.Type == OperatorWindowJoin {
			fmt.Fprintf(&sb, " (window %s size %v slide %v gap %v lateness %v)", w.Kind, w.Size, w.Slide, w.Gap, w.AllowedLateness)
		}
		if op.Broadcast != "" {
			fmt.Fprintf(&sb, " broadcast %s (input %d)", op.Broadcast, op.BroadcastInput())
		}
		sb.WriteByte('\n')
	}
	for _, s := range job.Sinks {
		fmt.Fprintf(&sb, "sink %s (%s) <- %s\n", s.UID, s.Type, strings.Join(s.Inputs, ", "))
	}
	return sb.String()
}
