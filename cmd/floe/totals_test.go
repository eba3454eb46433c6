package main

import (
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
)

// TestTotals checks the summary's counts: what every source vertex read and
// what every vertex that no other reads wrote, for a line, a line without
// edges, and a graph of two sources, a union and two sinks.
func TestTotals(t *testing.T) {
	in := func(stages ...int) []api.VertexInput {
		var es []api.VertexInput
		for _, s := range stages {
			es = append(es, api.VertexInput{Stage: s, Partitioning: "hash"})
		}
		return es
	}
	tests := []struct {
		name    string
		v       []api.VertexStatus
		in, out int64
	}{
		{"line", []api.VertexStatus{{RecordsIn: 10, RecordsOut: 30}, {RecordsIn: 30, RecordsOut: 5, Inputs: in(0)}}, 10, 5},
		{"line without edges", []api.VertexStatus{{RecordsIn: 10, RecordsOut: 30}, {RecordsIn: 30, RecordsOut: 5}}, 10, 5},
		{"two sources, fan-out", []api.VertexStatus{
			{RecordsIn: 3, RecordsOut: 3},
			{RecordsIn: 4, RecordsOut: 4},
			{RecordsIn: 7, RecordsOut: 7, Inputs: in(0, 1)},
			{RecordsIn: 7, RecordsOut: 2, Inputs: in(2)},
			{RecordsIn: 7, RecordsOut: 6, Inputs: in(2)},
		}, 7, 8},
		{"no vertices", nil, 0, 0},
	}
	for _, tt := range tests {
		gotIn, gotOut := totals(api.JobStatus{Vertices: tt.v})
		if gotIn != tt.in || gotOut != tt.out {
			t.Errorf("%s: totals = %d, %d; want %d, %d", tt.name, gotIn, gotOut, tt.in, tt.out)
		}
	}
}
