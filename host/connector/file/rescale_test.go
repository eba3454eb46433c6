package file

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/connectortest"
	"github.com/floe-stream/floe/internal/ckmeta"
)

// rescales are chains of parallelisms a job runs at, one after another,
// each restored from the Positions of the one before redistributed with
// ckmeta.EvenSplit.
var rescales = [][]int{
	{3, 5}, {5, 1}, {2, 4}, {4, 1}, {1, 3}, {4, 4}, {7, 2}, {3, 5, 2}, {2, 7, 3, 1}, {1, 16, 1},
}

// TestRescaleReadsEveryLineExactlyOnce reads a file at each parallelism of a
// chain for a random number of batches per instance, takes every instance's
// Position, redistributes them with EvenSplit to the next parallelism and
// Seeks fresh instances there; the last parallelism reads to the end. The
// lines read over all runs must be the file's lines, each exactly once.
func TestRescaleReadsEveryLineExactlyOnce(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	files := map[string][]byte{"numbered": numberedFile(500)}
	for _, c := range splitCases {
		files[c.name] = []byte(c.content)
	}
	for i := range 20 {
		files[fmt.Sprint("random ", i)] = randomContent(r)
	}
	for name, content := range files {
		path := writeTemp(t, content)
		for _, chain := range rescales {
			cfg := SourceConfig{Path: path, BufferSize: []int{16, 64, 0}[r.IntN(3)]}
			got := readRescaled(t, r, cfg, chain)
			want := expectedLines(content)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("%s, parallelisms %v: read (sorted)\n%q\nwant\n%q", name, chain, got, want)
			}
		}
	}
}

// numberedFile returns n distinct lines of varied lengths.
func numberedFile(n int) []byte {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%d%s\n", i, strings.Repeat("x", i%37))
	}
	return []byte(b.String())
}

// readRescaled runs cfg at each parallelism of chain in turn, as described
// at TestRescaleReadsEveryLineExactlyOnce, and returns every line read.
func readRescaled(t *testing.T, r *rand.Rand, cfg SourceConfig, chain []int) []string {
	t.Helper()
	var got []string
	var states [][][]byte
	for step, p := range chain {
		last := step == len(chain)-1
		if step > 0 {
			states = ckmeta.EvenSplit(states, p)
		}
		lists := make([][][]byte, p)
		for i := range p {
			src := openSeeked(t, cfg, connector.SplitInfo{Subtask: i, Parallelism: p}, states, i)
			lines, pos := readSome(t, src, r, last)
			got, lists[i] = append(got, lines...), pos
		}
		states = lists
	}
	return got
}

// openSeeked opens split of cfg and, unless states is nil, Seeks it to
// states[i].
func openSeeked(t *testing.T, cfg SourceConfig, split connector.SplitInfo, states [][][]byte, i int) connector.Source {
	t.Helper()
	src, err := OpenSource(cfg, split)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	if states != nil {
		if err := src.Seek(states[i]); err != nil {
			t.Fatalf("split %+v: Seek: %v", split, err)
		}
	}
	return src
}

// readSome reads src to its end if all is set, or else for a random number of
// batches of a random size, and returns the lines read and the Position
// after them.
func readSome(t *testing.T, src connector.Source, r *rand.Rand, all bool) ([]string, [][]byte) {
	t.Helper()
	ctx, max := context.Background(), 1+r.IntN(6)
	var lines []string
	var err error
	if all {
		lines, err = connectortest.Drain(ctx, src, max)
	} else {
		lines, err = connectortest.Take(ctx, src, max, r.IntN(8))
	}
	if err != nil {
		t.Fatal(err)
	}
	pos, err := src.Position()
	if err != nil {
		t.Fatal(err)
	}
	return lines, pos
}

// TestFollowSplitMovesWithItsState runs a followed file at parallelism 1,
// rescales to 2 and back to 1. Only the instance that holds the follow split,
// whatever its subtask, reads; the other idles, and neither ends.
func TestFollowSplitMovesWithItsState(t *testing.T) {
	path := writeTemp(t, []byte("a\nb\n"))
	clock := connectortest.NewFakeClock(epoch)
	cfg := SourceConfig{Path: path, Follow: true, Clock: clock}
	one := openSeeked(t, cfg, connector.SplitInfo{Subtask: 0, Parallelism: 1}, nil, 0)
	if got := nextOnce(t, one, clock, 10); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("at parallelism 1 got %q", got)
	}
	states := ckmeta.EvenSplit([][][]byte{position(t, one)}, 2)
	// Give the follow split to subtask 1, so that it is the state, not the
	// subtask, that decides who reads.
	states[0], states[1] = states[1], states[0]
	appendFile(t, path, "c\nd\n")
	two := []connector.Source{
		openSeeked(t, cfg, connector.SplitInfo{Subtask: 0, Parallelism: 2}, states, 0),
		openSeeked(t, cfg, connector.SplitInfo{Subtask: 1, Parallelism: 2}, states, 1),
	}
	for round, want := range [][]string{{"c", "d"}, nil} {
		if got := nextOnce(t, two[0], clock, 10); got != nil {
			t.Errorf("round %d: subtask 0, without the follow split, read %q", round, got)
		}
		if got := nextOnce(t, two[1], clock, 10); !slices.Equal(got, want) {
			t.Errorf("round %d: subtask 1, holding the follow split, read %q, want %q", round, got, want)
		}
	}
	appendFile(t, path, "e\n")
	states = ckmeta.EvenSplit([][][]byte{position(t, two[0]), position(t, two[1])}, 1)
	back := openSeeked(t, cfg, connector.SplitInfo{Subtask: 0, Parallelism: 1}, states, 0)
	if got := nextOnce(t, back, clock, 10); !slices.Equal(got, []string{"e"}) {
		t.Errorf("back at parallelism 1 got %q, want only the line appended since", got)
	}
}

// TestSeekToNoSplitEndsABoundedSource checks that an instance given no split
// reads nothing, whatever its SplitInfo.
func TestSeekToNoSplitEndsABoundedSource(t *testing.T) {
	cfg := SourceConfig{Path: writeTemp(t, []byte("a\nb\n"))}
	src := openSeeked(t, cfg, connector.SplitInfo{Subtask: 0, Parallelism: 1}, [][][]byte{{}}, 0)
	if got, err := connectortest.Drain(context.Background(), src, 10); err != nil || got != nil {
		t.Errorf("Drain = %q, %v; want nothing", got, err)
	}
	if pos := position(t, src); pos == nil || len(pos) != 0 {
		t.Errorf("Position = %#v, want an empty, non-nil list", pos)
	}
}

// TestRestoredSplitsKeepTheirRangesWhenTheFileChanges checks what the
// package documents: a file that grows after a checkpoint has its new lines
// ignored by restored bounded splits, and one that shrinks is read as far as
// it goes, without an error.
func TestRestoredSplitsKeepTheirRangesWhenTheFileChanges(t *testing.T) {
	path := writeTemp(t, []byte("aa\nbb\ncc\ndd\n"))
	cfg := SourceConfig{Path: path}
	var states [][][]byte
	for i := range 2 {
		src := openSeeked(t, cfg, connector.SplitInfo{Subtask: i, Parallelism: 2}, nil, 0)
		states = append(states, position(t, src))
	}
	appendFile(t, path, "ee\n")
	if got := readAllSeeked(t, cfg, ckmeta.EvenSplit(states, 3)); !slices.Equal(got, []string{"aa", "bb", "cc", "dd"}) {
		t.Errorf("grown file: read %q, want the lines within the recorded ranges", got)
	}
	writeFile(t, path, "aa\nb")
	if got := readAllSeeked(t, cfg, ckmeta.EvenSplit(states, 1)); !slices.Equal(got, []string{"aa", "b"}) {
		t.Errorf("shrunk file: read %q, want what is left", got)
	}
}

// readAllSeeked reads to the end the instances Seeked to states, in order.
func readAllSeeked(t *testing.T, cfg SourceConfig, states [][][]byte) []string {
	t.Helper()
	var got []string
	for i := range states {
		src := openSeeked(t, cfg, connector.SplitInfo{Subtask: i, Parallelism: len(states)}, states, i)
		lines, err := connectortest.Drain(context.Background(), src, 3)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, lines...)
	}
	return got
}

// position returns src's Position.
func position(t *testing.T, src connector.Source) [][]byte {
	t.Helper()
	pos, err := src.Position()
	if err != nil {
		t.Fatal(err)
	}
	return pos
}

// writeFile replaces the content of the file at path.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
