package plan

import (
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/jobspec"
)

const head = `
name: j
parallelism: 2
modules: {m: m.wasm}
source: {type: generator, uid: src, count: 10}
sink: {type: stdout, uid: out%s}
operators:
`

func TestStagesBreakAtKeyByAndParallelismChanges(t *testing.T) {
	for _, tc := range []struct {
		name, sinkPar, ops string
		want               string
	}{
		{"all chained", "", `
  - {type: map, uid: a, module: m, function: f}
  - {type: filter, uid: b, module: m, function: f}`,
			"stage 0 [src -> a -> b -> out] x2\n"},
		{"keyBy splits", "", `
  - {type: flatMap, uid: split, module: m, function: f}
  - {type: keyBy, uid: by, key: value}
  - {type: process, uid: count, module: m, function: f}`,
			"stage 0 [src -> split -> by] x2 --hash--> 1\nstage 1 [count -> out] x2\n"},
		{"parallelism change rebalances", ", parallelism: 1", `
  - {type: map, uid: a, module: m, function: f, parallelism: 3}`,
			"stage 0 [src] x2 --rebalance--> 1\nstage 1 [a] x3 --rebalance--> 2\nstage 2 [out] x1\n"},
		{"keyBy before the sink hashes into it", ", parallelism: 3", `
  - {type: keyBy, uid: by, key: "csv:1"}`,
			"stage 0 [src -> by] x2 --hash--> 1\nstage 1 [out] x3\n"},
		{"two keyBys", "", `
  - {type: keyBy, uid: k1, key: value}
  - {type: process, uid: p1, module: m, function: f}
  - {type: keyBy, uid: k2, key: function, module: m, function: g}
  - {type: process, uid: p2, module: m, function: f, parallelism: 4}`,
			"stage 0 [src -> k1] x2 --hash--> 1\nstage 1 [p1 -> k2] x2 --hash--> 2\nstage 2 [p2] x4 --rebalance--> 3\nstage 3 [out] x2\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := strings.Replace(head, "%s", tc.sinkPar, 1) + tc.ops
			job, err := jobspec.Parse([]byte(spec), "/", nil)
			if err != nil {
				t.Fatal(err)
			}
			p, err := Build(job)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.String(); got != tc.want {
				t.Fatalf("plan:\n%s\nwant:\n%s", got, tc.want)
			}
			for i, s := range p.Stages {
				if s.KeyedInput != (i > 0 && p.Stages[i-1].Outputs[0].Partitioning == Hash) {
					t.Errorf("stage %d: KeyedInput %v", i, s.KeyedInput)
				}
			}
		})
	}
}

func TestProcessNeedsTheKeyByRightBeforeIt(t *testing.T) {
	spec := strings.Replace(head, "%s", "", 1) + `
  - {type: keyBy, uid: by, key: value}
  - {type: map, uid: a, module: m, function: f}
  - {type: process, uid: count, module: m, function: f}`
	job, err := jobspec.Parse([]byte(spec), "/", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Build(job)
	if err == nil || !strings.Contains(err.Error(), "operators[2] (count): a process operator must directly follow a keyBy") {
		t.Fatalf("got %v", err)
	}
}
