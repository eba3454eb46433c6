package jobspec_test

import (
	"fmt"

	_ "github.com/floe-stream/floe/host/connector/builtin"
	"github.com/floe-stream/floe/host/connector/generator"
	"github.com/floe-stream/floe/internal/jobspec"
)

func ExampleParse() {
	spec := []byte(`
name: numbers
params:
  count: "100"
source: {type: generator, uid: gen, count: "${count}"}
operators:
  - {type: keyBy, uid: by-value, key: value}
sink: {type: stdout, uid: out}
`)
	job, err := jobspec.Parse(spec, ".", map[string]string{"count": "5"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(job.Name, job.Sources[0].Spec.(*generator.Spec).Count, job.Sources[0].Bounded(), job.Operators[0].Key)
	// Output: numbers 5 true value
}

func ExampleParse_errors() {
	spec := []byte(`
name: broken
maxParallelism: 8
source: {type: generator, uid: gen, rate: fast}
operators:
  - {type: reduce, uid: sum}
sink: {type: stdout, uid: out, parallelism: 16}
`)
	_, err := jobspec.Parse(spec, ".", nil)
	fmt.Println(err)
	// Output:
	// line 4: source.rate: must be a number >= 0, got "fast"
	// line 6: operators[0].type: unknown operator type "reduce" (want map, filter, flatMap, keyBy, process, coProcess, window, intervalJoin, windowJoin, union, sql, sqlGroup, sqlTopN or sqlOver)
	// line 7: sink.parallelism: 16 exceeds maxParallelism 8
}

func ExampleJob_WithParallelism() {
	spec := []byte(`
name: scaled
source: {type: generator, uid: gen, parallelism: 1}
sink: {type: stdout, uid: out}
`)
	job, _ := jobspec.Parse(spec, ".", nil)
	if err := job.WithParallelism(4); err != nil {
		fmt.Println(err)
	}
	fmt.Println(job.SourceParallelism(0), job.SinkParallelism(0))
	fmt.Println(job.WithParallelism(500))
	// Output:
	// 1 4
	// parallelism override: 500 exceeds maxParallelism 128
}
