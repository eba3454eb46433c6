package file

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/record"
)

func lines(vals ...string) *record.Batch {
	var b record.Batch
	for _, v := range vals {
		b.Append(nil, []byte(v), record.NoTimestamp)
	}
	return &b
}

// visible returns the lines of the committed files, sorted.
func visible(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "part-*"))
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.Fields(string(b))...)
	}
	sort.Strings(out)
	return out
}

func TestTransactionalSinkShowsOnlyCommittedCheckpoints(t *testing.T) {
	dir := t.TempDir()
	split := connector.SplitInfo{Subtask: 1, Parallelism: 2}
	s, err := OpenTransactionalSink(SinkConfig{Path: dir}, split, false)
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Write(lines("a", "b")))
	cp1, err := s.PreCommit(1)
	must(err)
	must(s.Write(lines("c")))
	cp2, err := s.PreCommit(2)
	must(err)
	must(s.Write(lines("d")))
	if got := visible(t, dir); len(got) != 0 {
		t.Fatalf("visible before any commit: %v", got)
	}
	must(s.Commit(1))
	if got := strings.Join(visible(t, dir), ","); got != "a,b" {
		t.Fatalf("after commit 1: %s", got)
	}
	// Crash: checkpoint 2 completed but its notification was lost; "d"
	// was written after it. The restored task commits checkpoint 2's
	// pieces and discards "d", which the restored source replays.
	s.Close()
	r, err := OpenTransactionalSink(SinkConfig{Path: dir}, split, true)
	must(err)
	must(r.Recover([][]byte{cp2}))
	if got := strings.Join(visible(t, dir), ","); got != "a,b,c" {
		t.Fatalf("after recovery: %s", got)
	}
	must(r.Write(lines("d", "e")))
	_, err = r.PreCommit(3)
	must(err)
	must(r.Commit(3))
	must(r.Close())
	if got := strings.Join(visible(t, dir), ","); got != "a,b,c,d,e" {
		t.Fatalf("at the end: %s", got)
	}
	// Restoring an older checkpoint (the newer ones unreadable) rolls the
	// committed output back to it: what followed is replayed.
	o, err := OpenTransactionalSink(SinkConfig{Path: dir}, split, true)
	must(err)
	must(o.Recover([][]byte{cp1}))
	must(o.Close())
	if got := strings.Join(visible(t, dir), ","); got != "a,b" {
		t.Fatalf("after restoring checkpoint 1: %s", got)
	}
	hidden, _ := filepath.Glob(filepath.Join(dir, ".part-*"))
	if len(hidden) != 0 {
		t.Fatalf("left behind %v", hidden)
	}
	// A fresh start removes the subtask's files, committed or not.
	if _, err := OpenTransactionalSink(SinkConfig{Path: dir}, split, false); err != nil {
		t.Fatal(err)
	}
	if got := visible(t, dir); len(got) != 0 {
		t.Fatalf("fresh start kept %v", got)
	}
}

// TestRestoredSinkNumbersPastCommittedFiles opens a restored sink and
// writes before any Recover: its new file must not replace a committed one.
func TestRestoredSinkNumbersPastCommittedFiles(t *testing.T) {
	for _, buckets := range []Buckets{{}, {Format: "2006"}} {
		dir := t.TempDir()
		cfg := SinkConfig{Path: dir, Buckets: buckets}
		split := connector.SplitInfo{Subtask: 0, Parallelism: 1}
		for i, v := range []string{"a", "b"} {
			s, err := OpenTransactionalSink(cfg, split, i > 0)
			if err != nil {
				t.Fatal(err)
			}
			var b record.Batch
			b.Append(nil, []byte(v), 0)
			if err := s.Write(&b); err != nil {
				t.Fatal(err)
			}
			if _, err := s.PreCommit(int64(i + 1)); err != nil {
				t.Fatal(err)
			}
			if err := errors.Join(s.Commit(int64(i+1)), s.Close()); err != nil {
				t.Fatal(err)
			}
		}
		var got []string
		for _, lines := range bucketLines(t, dir) {
			got = append(got, lines...)
		}
		sort.Strings(got)
		if strings.Join(got, ",") != "a,b" {
			t.Errorf("buckets %+v: committed lines %v, want a,b", buckets, got)
		}
	}
}
