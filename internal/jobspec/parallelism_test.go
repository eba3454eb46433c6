package jobspec_test

import (
	"reflect"
	"strings"
	"testing"

	_ "github.com/floe-stream/floe/host/connector/builtin"
	. "github.com/floe-stream/floe/internal/jobspec"
)

// parallelismSpec has one stage of each kind with an explicit parallelism
// and one without.
var parallelismSpec = y(
	"name: p",
	"parallelism: 2",
	"maxParallelism: 16",
	"source: {type: generator, uid: src}",
	"modules: {m: m.wasm}",
	"operators:",
	"  - {type: map, uid: a, module: m, function: f, parallelism: 3}",
	"  - {type: map, uid: b, module: m, function: f}",
	"sink: {type: stdout, uid: out, parallelism: 1}",
)

// stageParallelism lists the parallelism of source, operators and sink.
func stageParallelism(j *Job) []int {
	out := []int{j.SourceParallelism(0)}
	for i := range j.Operators {
		out = append(out, j.OperatorParallelism(i))
	}
	return append(out, j.SinkParallelism(0))
}

func TestWithParallelism(t *testing.T) {
	tests := []struct {
		n       int
		want    []int
		wantErr string
	}{
		{n: 2, want: []int{2, 3, 2, 1}},
		{n: 8, want: []int{8, 3, 8, 1}},
		{n: 16, want: []int{16, 3, 16, 1}},
		{n: 17, want: []int{2, 3, 2, 1}, wantErr: "parallelism override: 17 exceeds maxParallelism 16"},
		{n: 0, want: []int{2, 3, 2, 1}, wantErr: "parallelism override: must be >= 1, got 0"},
	}
	for _, tt := range tests {
		job, err := Parse([]byte(parallelismSpec), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		err = job.WithParallelism(tt.n)
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("WithParallelism(%d) = %v, want error %q", tt.n, err, tt.wantErr)
		}
		if got := stageParallelism(job); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("WithParallelism(%d): stages %v, want %v", tt.n, got, tt.want)
		}
	}
}
