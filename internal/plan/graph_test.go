package plan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/floe-stream/floe/internal/jobspec"
)

// TestGraphs plans the specs of testdata/graphs and prints the stages with
// their output edges, then the channels each stage reads: for every input
// edge, the channels its senders use, subtask by subtask.
//
//	plan
//	<spec>
//	----
//	<stages and channels, or the error>
func TestGraphs(t *testing.T) {
	datadriven.RunTest(t, "testdata/graphs", func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "plan" {
			d.Fatalf(t, "unknown command %q", d.Cmd)
		}
		job, err := jobspec.Parse([]byte(d.Input), "/", nil)
		if err != nil {
			d.Fatalf(t, "parse: %v", err)
		}
		p, err := Build(job)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		checkEdges(t, p)
		var sb strings.Builder
		sb.WriteString(p.String())
		for _, s := range p.Stages {
			if len(s.Inputs) == 0 {
				continue
			}
			fmt.Fprintf(&sb, "stage %d reads %d channels:", s.Index, p.Channels(s.Index))
			for _, e := range s.Inputs {
				var chans []string
				for sub := 0; sub < p.Stages[e.From].Parallelism; sub++ {
					chans = append(chans, fmt.Sprint(p.Channel(e, sub)))
				}
				fmt.Fprintf(&sb, " %d/%s[%s]", e.From, e.Partitioning, strings.Join(chans, " "))
			}
			if s.KeyedInput {
				sb.WriteString(" keyed")
			}
			sb.WriteByte('\n')
			if len(s.Operators) > 0 && s.Operators[0].Type.TwoInput() {
				fmt.Fprintf(&sb, "stage %d channels by input of %s: %v\n", s.Index, s.Operators[0].UID, p.StepInputs(s.Index))
			}
		}
		return sb.String()
	})
}

// checkEdges checks that every edge is the same in both stages it joins,
// that stages come after the stages they read, and that the channels into
// each receiving subtask are numbered 0..Channels-1, each used by exactly
// one sending subtask.
func checkEdges(t *testing.T, p *Plan) {
	t.Helper()
	for _, s := range p.Stages {
		for i, e := range s.Inputs {
			if e.To != s.Index || e.Input != i || e.From >= s.Index || p.Stages[e.From].Outputs[e.Output] != e {
				t.Errorf("stage %d input %d: %+v does not match its sender", s.Index, i, e)
			}
		}
		for i, e := range s.Outputs {
			if e.From != s.Index || e.Output != i || p.Stages[e.To].Inputs[e.Input] != e {
				t.Errorf("stage %d output %d: %+v does not match its receiver", s.Index, i, e)
			}
		}
		for recv := 0; recv < s.Parallelism && len(s.Inputs) > 0; recv++ {
			used := make([]int, p.Channels(s.Index))
			for _, e := range s.Inputs {
				for sub := 0; sub < p.Stages[e.From].Parallelism; sub++ {
					for _, to := range p.Targets(e, sub) {
						if to == recv {
							used[p.Channel(e, sub)]++
						}
					}
				}
			}
			for c, n := range used {
				if n != 1 {
					t.Errorf("stage %d subtask %d: channel %d has %d senders", s.Index, recv, c, n)
				}
			}
			byInput := p.StepInputs(s.Index)
			for _, e := range s.Inputs {
				for sub := 0; sub < p.Stages[e.From].Parallelism; sub++ {
					if c := p.Channel(e, sub); byInput[c] != e.StepInput {
						t.Errorf("stage %d: channel %d of edge %+v maps to input %d", s.Index, c, e, byInput[c])
					}
				}
			}
		}
	}
}
