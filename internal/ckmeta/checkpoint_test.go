package ckmeta

import (
	"fmt"
	"slices"
	"testing"
)

// sourceMetadata returns a checkpoint of a source stage of 3 subtasks, which
// hold 2, 0 and 3 split states, followed by a stage without a source. The
// subtasks are listed out of order, as acknowledgements arrive.
func sourceMetadata() *Metadata {
	return &Metadata{
		Version: Version, ID: 7, MaxParallelism: 128,
		Stages: []Stage{{Name: "source", Parallelism: 3}, {Name: "sink", Parallelism: 3}},
		Subtasks: []SubtaskState{
			{Stage: 0, Subtask: 2, Source: [][]byte{[]byte("c0"), []byte("c1"), []byte("c2")}},
			{Stage: 1, Subtask: 0},
			{Stage: 0, Subtask: 0, Source: [][]byte{[]byte("a0"), []byte("a1")}},
			{Stage: 1, Subtask: 1},
			{Stage: 0, Subtask: 1, Source: [][]byte{}},
			{Stage: 1, Subtask: 2},
		},
	}
}

// TestRestoreForSpreadsSourceSplitsOverAnyParallelism restores the source
// stage at parallelisms 1, 3 and 5, through the JSON that carries metadata
// and restore handles, and checks that the restored lists hold every split
// state exactly once, in subtask order, evenly spread, and that each subtask
// gets its own list back at an unchanged parallelism.
func TestRestoreForSpreadsSourceSplitsOverAnyParallelism(t *testing.T) {
	all := []string{"a0", "a1", "c0", "c1", "c2"}
	tests := []struct {
		par  int
		want [][]string
	}{
		{1, [][]string{all}},
		{3, [][]string{{"a0", "a1"}, {}, {"c0", "c1", "c2"}}},
		{5, [][]string{{"a0"}, {"a1"}, {"c0"}, {"c1"}, {"c2"}}},
		{2, [][]string{{"a0", "a1", "c0"}, {"c1", "c2"}}},
		{7, [][]string{{"a0"}, {"a1"}, {"c0"}, {"c1"}, {"c2"}, {}, {}}},
	}
	md := roundTrip(t, sourceMetadata(), &Metadata{})
	for _, tt := range tests {
		var got [][]string
		for sub := range tt.par {
			r, err := md.RestoreFor(0, sub, tt.par)
			if err != nil {
				t.Fatal(err)
			}
			r = roundTrip(t, r, &Restore{})
			if r.Source == nil {
				t.Fatalf("parallelism %d: subtask %d restores no source state, so it would read its fresh share", tt.par, sub)
			}
			got = append(got, values(r.Source))
		}
		if !slices.EqualFunc(got, tt.want, slices.Equal) {
			t.Errorf("parallelism %d: restored %q, want %q", tt.par, got, tt.want)
		}
		if flat := slices.Concat(got...); !slices.Equal(flat, all) {
			t.Errorf("parallelism %d: restored %q in all, want each of %q once", tt.par, flat, all)
		}
	}
}

func TestRestoreForGivesNoSourceStateToAStageWithoutSource(t *testing.T) {
	md := sourceMetadata()
	for _, par := range []int{1, 3, 5} {
		r, err := md.RestoreFor(1, 0, par)
		if err != nil {
			t.Fatal(err)
		}
		if r = roundTrip(t, r, &Restore{}); r.Source != nil {
			t.Errorf("parallelism %d: the sink stage restores source state %q", par, r.Source)
		}
	}
}

func TestRestoreForRejectsSubtasksOutOfRange(t *testing.T) {
	md := sourceMetadata()
	if _, err := md.RestoreFor(0, 5, 5); err == nil {
		t.Error("restoring subtask 5 of 5 succeeded")
	}
	md.Subtasks[0].Subtask = 3
	if _, err := md.RestoreFor(0, 0, 3); err == nil {
		t.Error("a checkpoint with source subtask 3 of 3 restored")
	}
}

// roundTrip encodes v as JSON and decodes it into out.
func roundTrip[T any](t *testing.T, v, out *T) *T {
	t.Helper()
	b, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := Unmarshal(b, out); err != nil {
		t.Fatal(fmt.Errorf("%s: %w", b, err))
	}
	return out
}

func values(l [][]byte) []string {
	out := make([]string, len(l))
	for i, e := range l {
		out[i] = string(e)
	}
	return out
}
