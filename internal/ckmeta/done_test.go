package ckmeta

import "testing"

// TestDone checks which subtasks a restore need not deploy: those recorded
// finished, at the parallelism the restore runs, holding no sink output
// for the final commit.
func TestDone(t *testing.T) {
	m := &Metadata{
		Stages: []Stage{{Name: "src", Parallelism: 2}, {Name: "sink", Parallelism: 2}},
		Subtasks: []SubtaskState{
			{Stage: 0, Subtask: 0, Finished: true, Source: [][]byte{}},
			{Stage: 0, Subtask: 1, Source: [][]byte{[]byte("split")}},
			{Stage: 1, Subtask: 0, Finished: true, Sink: []byte(`{"pending":["a"]}`)},
			{Stage: 1, Subtask: 1, Finished: true},
		},
	}
	for _, c := range []struct {
		stage, sub, par int
		want            bool
	}{
		{0, 0, 2, true},  // a finished source
		{0, 1, 2, false}, // a running source
		{1, 0, 2, false}, // an ending sink: its output awaits the final commit
		{1, 1, 2, true},  // a finished sink
		{0, 0, 3, false}, // a rescale redistributes the stage
		{2, 0, 1, false}, // no such stage
	} {
		if got := m.Done(c.stage, c.sub, c.par); got != c.want {
			t.Errorf("Done(%d, %d, %d) = %v, want %v", c.stage, c.sub, c.par, got, c.want)
		}
	}
}
