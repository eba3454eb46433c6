package ckmeta

import (
	"fmt"
	"slices"
	"testing"

	"github.com/floe-stream/floe/storage/keygroup"
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

// TestRestoreForFinishedSubtasks restores a checkpoint taken after one
// branch of a job ended: a source subtask that read everything, a sink
// subtask that waits for the final commit with all its output, and a task
// between them that ended. The restored source reads nothing, the restored
// sink gets its final state to commit, at an unchanged parallelism and
// after a rescale, and nothing keyed comes from a finished subtask.
func TestRestoreForFinishedSubtasks(t *testing.T) {
	full := func(name string) []File { return []File{{Path: name, Size: 1, Full: true}} }
	md := roundTrip(t, &Metadata{
		Version: Version, ID: 9, MaxParallelism: 128,
		Stages: []Stage{{Name: "short", Parallelism: 2}, {Name: "map", Parallelism: 2}, {Name: "sink", Parallelism: 2}},
		Subtasks: []SubtaskState{
			{Stage: 0, Subtask: 0, Source: [][]byte{}, Finished: true},
			{Stage: 0, Subtask: 1, Source: [][]byte{[]byte("spent")}, Finished: true},
			{Stage: 1, Subtask: 0, KeyGroups: keygroup.RangeFor(128, 2, 0), Keyed: full("m0"), Finished: true},
			{Stage: 1, Subtask: 1, KeyGroups: keygroup.RangeFor(128, 2, 1), Keyed: full("m1")},
			{Stage: 2, Subtask: 0, Sink: []byte("final-0"), Finished: true},
			{Stage: 2, Subtask: 1, Sink: []byte("final-1"), Finished: true},
		},
	}, &Metadata{})
	for _, par := range []int{2, 1, 3} {
		var srcs, sinks []string
		var keyed []string
		for sub := range par {
			r, err := md.RestoreFor(0, sub, par)
			if err != nil {
				t.Fatal(err)
			}
			if r.Source == nil {
				t.Fatalf("parallelism %d: source subtask %d restores no source state, so it would read again", par, sub)
			}
			srcs = append(srcs, values(r.Source)...)
			if r, err = md.RestoreFor(2, sub, par); err != nil {
				t.Fatal(err)
			}
			sinks = append(sinks, values(r.Sink)...)
			if r, err = md.RestoreFor(1, sub, par); err != nil {
				t.Fatal(err)
			}
			for _, k := range r.Keyed {
				keyed = append(keyed, k.Files[0].Path)
			}
		}
		if want := []string{"spent"}; !slices.Equal(srcs, want) {
			t.Errorf("parallelism %d: sources restore %q, want %q", par, srcs, want)
		}
		if want := []string{"final-0", "final-1"}; !slices.Equal(sinks, want) {
			t.Errorf("parallelism %d: sinks restore %q, want %q", par, sinks, want)
		}
		if want := []string{"m1"}; !slices.Equal(slices.Compact(keyed), want) {
			t.Errorf("parallelism %d: keyed state restored from %q, want only %q", par, keyed, want)
		}
	}
}
