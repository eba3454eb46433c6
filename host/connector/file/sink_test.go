package file

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/record"
)

// TestSinkPartFilesHoldExactlyTheWrittenLines writes batches from several
// subtasks into a directory that does not exist yet and reads the part files
// back.
func TestSinkPartFilesHoldExactlyTheWrittenLines(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out", "nested")
	tests := []struct {
		subtask int
		batches [][]string
	}{
		{0, [][]string{{"a", "", "b"}, {}, {"c"}}},
		{1, nil},
		{2, [][]string{{strings.Repeat("long", 100)}, {"x\r", "y"}}},
	}
	for _, tt := range tests {
		writePart(t, SinkConfig{Path: dir, BufferSize: 16}, tt.subtask, tt.batches)
	}
	for _, tt := range tests {
		var want strings.Builder
		for _, batch := range tt.batches {
			for _, line := range batch {
				want.WriteString(line + "\n")
			}
		}
		if got := readPart(t, dir, tt.subtask); got != want.String() {
			t.Errorf("part %d holds %q, want %q", tt.subtask, got, want.String())
		}
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != len(tests) {
		t.Errorf("directory holds %d entries (%v), want %d part files", len(entries), err, len(tests))
	}
}

func TestOpenSinkTruncatesAnExistingPart(t *testing.T) {
	dir := t.TempDir()
	cfg := SinkConfig{Path: dir}
	writePart(t, cfg, 0, [][]string{{"old", "older", "oldest"}})
	writePart(t, cfg, 0, [][]string{{"new"}})
	if got := readPart(t, dir, 0); got != "new\n" {
		t.Errorf("part holds %q after a second run, want %q", got, "new\n")
	}
}

func TestOpenSinkErrorsNameThePath(t *testing.T) {
	file := writeTemp(t, []byte("not a directory"))
	under := filepath.Join(file, "out")
	tests := []struct {
		name    string
		cfg     SinkConfig
		split   connector.SplitInfo
		mention string
	}{
		{"path is a file", SinkConfig{Path: file}, connector.SplitInfo{Subtask: 0, Parallelism: 1}, file},
		{"parent is a file", SinkConfig{Path: under}, connector.SplitInfo{Subtask: 0, Parallelism: 1}, under},
		{"empty path", SinkConfig{}, connector.SplitInfo{Subtask: 0, Parallelism: 1}, "path is empty"},
		{"bad split", SinkConfig{Path: under}, connector.SplitInfo{Subtask: 0, Parallelism: 0}, "parallelism 0"},
	}
	for _, tt := range tests {
		if _, err := OpenSink(tt.cfg, tt.split); err == nil || !strings.Contains(err.Error(), tt.mention) {
			t.Errorf("%s: OpenSink() error = %v, want one mentioning %q", tt.name, err, tt.mention)
		}
	}
}

func TestClosedSinkRefusesCalls(t *testing.T) {
	s, err := OpenSink(SinkConfig{Path: t.TempDir()}, connector.SplitInfo{Subtask: 0, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{"Write": s.Write(&record.Batch{}), "Flush": s.Flush(), "Close": s.Close()} {
		if !errors.Is(err, connector.ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", name, err)
		}
	}
}

func TestPartName(t *testing.T) {
	tests := []struct {
		subtask int
		want    string
	}{
		{0, "part-00000"}, {42, "part-00042"}, {123456, "part-123456"},
	}
	for _, tt := range tests {
		if got := PartName(tt.subtask); got != tt.want {
			t.Errorf("PartName(%d) = %q, want %q", tt.subtask, got, tt.want)
		}
	}
}

// writePart opens the sink of subtask, writes batches and closes it.
func writePart(t *testing.T, cfg SinkConfig, subtask int, batches [][]string) {
	t.Helper()
	s, err := OpenSink(cfg, connector.SplitInfo{Subtask: subtask, Parallelism: 8})
	if err != nil {
		t.Fatal(err)
	}
	var b record.Batch
	for _, batch := range batches {
		b.Reset()
		for _, v := range batch {
			b.Append([]byte(fmt.Sprint("key-", v)), []byte(v), 1)
		}
		if err := s.Write(&b); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// readPart returns the contents of subtask's part file in dir.
func readPart(t *testing.T, dir string, subtask int) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, PartName(subtask)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestSinkPartGrowsByWholeLines writes lines longer than the buffer, and
// checks after every Write that the part file holds whole lines only: a
// reader of a part file being written never sees a line cut in half.
func TestSinkPartGrowsByWholeLines(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenSink(SinkConfig{Path: dir, BufferSize: 10, FlushInterval: time.Hour}, connector.SplitInfo{Subtask: 0, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for i := range 50 {
		line := fmt.Sprintf("word-%d,%s", i, strings.Repeat("x", i%23))
		want.WriteString(line + "\n")
		if err := s.Write(batchOf(line)); err != nil {
			t.Fatal(err)
		}
		got := readPart(t, dir, 0)
		if got != "" && !strings.HasSuffix(got, "\n") || !strings.HasPrefix(want.String(), got) {
			t.Fatalf("after line %d the part holds %q, not whole lines of %q", i, got, want.String())
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := readPart(t, dir, 0); got != want.String() {
		t.Errorf("part holds %q, want %q", got, want.String())
	}
}

// TestSinkFlushesAnIdleTail checks that lines below the buffer's size reach
// the part file at the next flush tick, with no more input and no Flush.
func TestSinkFlushesAnIdleTail(t *testing.T) {
	dir := t.TempDir()
	ticks := make(chan time.Time)
	s, err := OpenSink(SinkConfig{Path: dir, ticks: ticks}, connector.SplitInfo{Subtask: 0, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Write(batchOf("a,1", "b,1")); err != nil {
		t.Fatal(err)
	}
	if got := readPart(t, dir, 0); got != "" {
		t.Fatalf("part holds %q before a tick, want nothing yet", got)
	}
	// The second tick is taken only once the first one's flush is over.
	ticks <- time.Time{}
	ticks <- time.Time{}
	if got := readPart(t, dir, 0); got != "a,1\nb,1\n" {
		t.Errorf("part holds %q after a tick, want both lines", got)
	}
}

// batchOf returns a batch of the given values.
func batchOf(values ...string) *record.Batch {
	var b record.Batch
	for _, v := range values {
		b.Append(nil, []byte(v), record.NoTimestamp)
	}
	return &b
}
