package file

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/connectortest"
	"github.com/floe-stream/floe/host/record"
)

var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// splitCases are files whose edges a random file may miss.
var splitCases = []struct {
	name    string
	content string
}{
	{"empty", ""},
	{"one newline", "\n"},
	{"only newlines", "\n\n\n\n"},
	{"one line without newline", "a"},
	{"one line", "a\n"},
	{"crlf and stray cr", "a\r\n\r\nb\r"},
	{"cr before crlf", "x\r\r\ny\n"},
	{"long lines", strings.Repeat("0123456789", 30) + "\n" + strings.Repeat("z", 77)},
}

// TestSplitsReadEveryLineExactlyOnce checks the split property: for every
// parallelism, the lines of subtasks 0..n-1, concatenated in subtask order,
// are exactly the lines of the file.
func TestSplitsReadEveryLineExactlyOnce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	files := make(map[string][]byte)
	for _, c := range splitCases {
		files[c.name] = []byte(c.content)
	}
	for i := range 40 {
		files[fmt.Sprint("random ", i)] = randomContent(r)
	}
	for name, content := range files {
		path := writeTemp(t, content)
		want := expectedLines(content)
		for _, n := range parallelisms(len(content)) {
			var got []string
			for i := range n {
				cfg := SourceConfig{Path: path, BufferSize: []int{16, 64, 0}[r.IntN(3)]}
				got = append(got, readSplit(t, cfg, connector.SplitInfo{Subtask: i, Parallelism: n}, 1+r.IntN(7))...)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s, parallelism %d: got lines\n%q\nwant\n%q\nfile %q", name, n, got, want, content)
			}
		}
	}
}

// TestSeekResumesWithoutLossOrDuplication stops each subtask after a random
// number of batches, restores its Position into a fresh source and reads on:
// the lines of both, over all subtasks, must be the file's lines.
func TestSeekResumesWithoutLossOrDuplication(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ctx := context.Background()
	for i := range 30 {
		content := randomContent(r)
		path := writeTemp(t, content)
		for _, n := range []int{1, 2, 3, 7} {
			var got []string
			for sub := range n {
				cfg := SourceConfig{Path: path, BufferSize: []int{16, 0}[r.IntN(2)]}
				split := connector.SplitInfo{Subtask: sub, Parallelism: n}
				got = append(got, readInTwoRuns(t, ctx, cfg, split, r.IntN(6), 1+r.IntN(5))...)
			}
			if want := expectedLines(content); !slices.Equal(got, want) {
				t.Fatalf("file %d, parallelism %d: got\n%q\nwant\n%q", i, n, got, want)
			}
		}
	}
}

// readInTwoRuns reads calls batches of split, closes the source, and reads
// the rest with a new source that Seeks to the first one's Position.
func readInTwoRuns(t *testing.T, ctx context.Context, cfg SourceConfig, split connector.SplitInfo, calls, max int) []string {
	t.Helper()
	first, err := OpenSource(cfg, split)
	if err != nil {
		t.Fatal(err)
	}
	got, err := connectortest.Take(ctx, first, max, calls)
	if err != nil {
		t.Fatal(err)
	}
	pos, err := first.Position()
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second, err := OpenSource(cfg, split)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if err := second.Seek(pos); err != nil {
		t.Fatal(err)
	}
	rest, err := connectortest.Drain(ctx, second, max)
	if err != nil {
		t.Fatal(err)
	}
	return append(got, rest...)
}

func TestBoundedSourceReturnsEOFAfterItsRecords(t *testing.T) {
	src, err := OpenSource(SourceConfig{Path: writeTemp(t, []byte("a\nb\n"))}, connector.SplitInfo{Subtask: 0, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	steps := []struct {
		want    []string
		wantErr error
	}{
		{[]string{"a", "b"}, nil},
		{nil, io.EOF},
		{nil, io.EOF},
	}
	for i, step := range steps {
		var b record.Batch
		err := src.Next(context.Background(), &b, 10)
		if got := connectortest.AppendValues(nil, &b); !slices.Equal(got, step.want) || !errors.Is(err, step.wantErr) || (err == nil) != (step.wantErr == nil) {
			t.Errorf("call %d: got %q, %v; want %q, %v", i, got, err, step.want, step.wantErr)
		}
	}
}

// TestFollowSeesAppendedLines appends to a followed file step by step and
// checks what each call of Next returns, on a fake clock: complete lines
// only, never io.EOF, and never more than 100 ms of waiting.
func TestFollowSeesAppendedLines(t *testing.T) {
	path := writeTemp(t, nil)
	clock := connectortest.NewFakeClock(epoch)
	cfg := SourceConfig{Path: path, Follow: true, Clock: clock, BufferSize: 16}
	src, err := OpenSource(cfg, connector.SplitInfo{Subtask: 0, Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		append string
		want   []string
	}{
		{"", nil},
		{"a\nb\npar", []string{"a", "b"}},
		{"", nil},
		{"tial\r", nil},
		{"\n", []string{"partial"}},
		{"x\n\ny", []string{"x", ""}},
		{strings.Repeat("y", 40), nil},
		{"\n", []string{strings.Repeat("y", 41)}},
	}
	for i, step := range steps {
		appendFile(t, path, step.append)
		if got := nextOnce(t, src, clock, 10); !slices.Equal(got, step.want) {
			t.Errorf("step %d: after appending %q got %q, want %q", i, step.append, got, step.want)
		}
	}
	pos, err := src.Position()
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	appendFile(t, path, "after restore\n")
	resumed, err := OpenSource(cfg, connector.SplitInfo{Subtask: 0, Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer resumed.Close()
	if err := resumed.Seek(pos); err != nil {
		t.Fatal(err)
	}
	if got := nextOnce(t, resumed, clock, 10); !slices.Equal(got, []string{"after restore"}) {
		t.Errorf("after Seek got %q, want only the line appended after Position", got)
	}
}

// nextOnce calls Next once and returns the values read. It fails the test on
// any error, including io.EOF, and if the call waited more than 100 ms of
// clock time.
func nextOnce(t *testing.T, src connector.Source, clock *connectortest.FakeClock, max int) []string {
	t.Helper()
	var b record.Batch
	before := clock.Now()
	if err := src.Next(context.Background(), &b, max); err != nil {
		t.Fatalf("Next: %v", err)
	}
	if waited := clock.Now().Sub(before); waited > 100*time.Millisecond {
		t.Fatalf("Next waited %v of clock time, more than 100 ms", waited)
	}
	return connectortest.AppendValues(nil, &b)
}

func TestFollowOnlySubtaskZeroReads(t *testing.T) {
	clock := connectortest.NewFakeClock(epoch)
	cfg := SourceConfig{Path: writeTemp(t, []byte("a\nb\n")), Follow: true, Clock: clock}
	for sub, want := range [][]string{{"a", "b"}, nil, nil} {
		src, err := OpenSource(cfg, connector.SplitInfo{Subtask: sub, Parallelism: 3})
		if err != nil {
			t.Fatal(err)
		}
		if got := nextOnce(t, src, clock, 10); !slices.Equal(got, want) {
			t.Errorf("subtask %d: got %q, want %q", sub, got, want)
		}
		if n, fixed := src.(connector.Splitted).Splits(); n != len(want)/2 || !fixed {
			t.Errorf("subtask %d: Splits() = %d, %v; want %d, fixed", sub, n, fixed, len(want)/2)
		}
		if pos, err := src.Position(); err != nil || src.Seek(pos) != nil {
			t.Errorf("subtask %d: Position/Seek round trip failed: %v", sub, err)
		}
		if err := src.Close(); err != nil {
			t.Errorf("subtask %d: Close: %v", sub, err)
		}
	}
}

// TestBoundedFileSplitsAnyWay: a bounded file splits by bytes among any
// number of subtasks, so its source has no fixed splits to bound them.
func TestBoundedFileSplitsAnyWay(t *testing.T) {
	src, err := OpenSource(SourceConfig{Path: writeTemp(t, []byte("a\nb\n"))}, connector.SplitInfo{Subtask: 0, Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if n, fixed := src.(connector.Splitted).Splits(); fixed {
		t.Errorf("Splits() = %d, fixed; want not fixed", n)
	}
}

func TestNextReturnsContextErrorWhenDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	path := writeTemp(t, []byte("a\n"))
	tests := []struct {
		name  string
		cfg   SourceConfig
		split connector.SplitInfo
	}{
		{"bounded", SourceConfig{Path: path}, connector.SplitInfo{Subtask: 0, Parallelism: 1}},
		{"follow", SourceConfig{Path: path, Follow: true}, connector.SplitInfo{Subtask: 0, Parallelism: 1}},
		{"idle", SourceConfig{Path: path, Follow: true}, connector.SplitInfo{Subtask: 1, Parallelism: 2}},
		{"rate limited", SourceConfig{Path: path, Rate: 0.001}, connector.SplitInfo{Subtask: 0, Parallelism: 1}},
	}
	for _, tt := range tests {
		src, err := OpenSource(tt.cfg, tt.split)
		if err != nil {
			t.Fatal(err)
		}
		var b record.Batch
		if err := src.Next(ctx, &b, 10); !errors.Is(err, context.Canceled) || b.Len() != 0 {
			t.Errorf("%s: Next on a done context = %v with %d records, want context.Canceled and none", tt.name, err, b.Len())
		}
		src.Close()
	}
}

// TestRateLimitOnFakeClock reads a rate-limited source for simulated seconds
// and checks, after every call, that the lines read trail the subtask's rate
// times the elapsed time by at most one.
func TestRateLimitOnFakeClock(t *testing.T) {
	path := writeTemp(t, []byte(strings.Repeat("line\n", 20000)))
	tests := []struct {
		name        string
		rate        float64
		follow      bool
		parallelism int
		perSubtask  float64
	}{
		{"whole file", 500, false, 1, 500},
		{"one of four splits", 1000, false, 4, 250},
		{"follow gives the reader the whole rate", 300, true, 3, 300},
		{"slower than one line per poll", 2, true, 1, 2},
	}
	for _, tt := range tests {
		clock := connectortest.NewFakeClock(epoch)
		cfg := SourceConfig{Path: path, Rate: tt.rate, Follow: tt.follow, Clock: clock}
		src, err := OpenSource(cfg, connector.SplitInfo{Subtask: 0, Parallelism: tt.parallelism})
		if err != nil {
			t.Fatal(err)
		}
		read := 0
		for clock.Now().Sub(epoch) < 10*time.Second {
			read += len(nextOnce(t, src, clock, 64))
			ideal := clock.Now().Sub(epoch).Seconds() * tt.perSubtask
			if math.Abs(float64(read)-ideal) > 1+1e-6 {
				t.Fatalf("%s: %d lines after %v, want %.2f", tt.name, read, clock.Now().Sub(epoch), ideal)
			}
		}
		// The limiter is the only sleeper of a bounded source, so the
		// time it reports waiting is all the time that passed; a
		// follower also sleeps between polls of the file.
		waited, elapsed := src.(connector.Throttled).Throttled(), clock.Now().Sub(epoch)
		if waited <= 0 || waited > elapsed || !tt.follow && waited != elapsed {
			t.Errorf("%s: Throttled() = %v after %v on the clock", tt.name, waited, elapsed)
		}
		src.Close()
	}
}

func TestOpenSourceErrorsNameThePath(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-file.txt")
	tests := []struct {
		name     string
		cfg      SourceConfig
		split    connector.SplitInfo
		mention  string
		notExist bool
	}{
		{"missing file", SourceConfig{Path: missing}, connector.SplitInfo{Subtask: 0, Parallelism: 1}, missing, true},
		{"missing file in follow mode, idle subtask", SourceConfig{Path: missing, Follow: true}, connector.SplitInfo{Subtask: 1, Parallelism: 2}, missing, true},
		{"directory", SourceConfig{Path: dir}, connector.SplitInfo{Subtask: 0, Parallelism: 1}, dir, false},
		{"empty path", SourceConfig{}, connector.SplitInfo{Subtask: 0, Parallelism: 1}, "path is empty", false},
		{"negative rate", SourceConfig{Path: missing, Rate: -1}, connector.SplitInfo{Subtask: 0, Parallelism: 1}, "rate", false},
		{"bad split", SourceConfig{Path: missing}, connector.SplitInfo{Subtask: 2, Parallelism: 2}, "subtask 2", false},
	}
	for _, tt := range tests {
		_, err := OpenSource(tt.cfg, tt.split)
		if err == nil || !strings.Contains(err.Error(), tt.mention) || errors.Is(err, fs.ErrNotExist) != tt.notExist {
			t.Errorf("%s: OpenSource() error = %v, want one mentioning %q (not-exist %v)", tt.name, err, tt.mention, tt.notExist)
		}
	}
}

func TestSeekRejectsMalformedSplitStates(t *testing.T) {
	path := writeTemp(t, []byte("a\n"))
	v1 := append([]byte{1}, make([]byte, 16)...)
	tests := []struct {
		name   string
		follow bool
		states [][]byte
	}{
		{"nil state", false, [][]byte{nil}},
		{"short state", false, [][]byte{{2, 2, 3}}},
		{"version 1 position", false, [][]byte{v1}},
		{"unknown version", false, [][]byte{append([]byte{9}, make([]byte, 24)...)}},
		{"negative start", false, [][]byte{split{start: -5, end: 3, offset: 0}.encode()}},
		{"end before start", false, [][]byte{split{start: 4, end: 3, offset: 4}.encode()}},
		{"offset before start", false, [][]byte{split{start: 2, end: 3, offset: 1}.encode()}},
		{"good then bad", false, [][]byte{split{end: 2}.encode(), {2}}},
		{"follow split in a bounded source", false, [][]byte{split{end: unbounded}.encode()}},
		{"bounded split in a followed file", true, [][]byte{split{end: 2}.encode()}},
	}
	for _, tt := range tests {
		clock := connectortest.NewFakeClock(epoch)
		src, err := OpenSource(SourceConfig{Path: path, Follow: tt.follow, Clock: clock}, connector.SplitInfo{Subtask: 0, Parallelism: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := src.Seek(tt.states); !errors.Is(err, connector.ErrBadPosition) {
			t.Errorf("%s: Seek(%x) = %v, want ErrBadPosition", tt.name, tt.states, err)
		}
		// A failed Seek leaves the source with its own split.
		if got := nextOnce(t, src, clock, 10); !slices.Equal(got, []string{"a"}) {
			t.Errorf("%s: after the failed Seek got %q, want the file's lines", tt.name, got)
		}
		src.Close()
	}
}

func TestClosedSourceRefusesCalls(t *testing.T) {
	src, err := OpenSource(SourceConfig{Path: writeTemp(t, []byte("a\n"))}, connector.SplitInfo{Subtask: 0, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	var b record.Batch
	_, posErr := src.Position()
	for name, err := range map[string]error{
		"Next":     src.Next(context.Background(), &b, 1),
		"Position": posErr,
		"Seek":     src.Seek([][]byte{split{end: 2}.encode()}),
		"Close":    src.Close(),
	} {
		if !errors.Is(err, connector.ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", name, err)
		}
	}
}

func TestSplitRangeTilesTheFile(t *testing.T) {
	tests := []struct {
		size int64
		n    int
	}{
		{0, 1}, {10, 3}, {7, 64}, {math.MaxInt64, 7}, {1 << 40, 1000},
	}
	for _, tt := range tests {
		var next int64
		for i := range tt.n {
			start, end := splitRange(tt.size, connector.SplitInfo{Subtask: i, Parallelism: tt.n})
			if start != next || end < start {
				t.Fatalf("size %d, parallelism %d: split %d is [%d, %d), want start %d", tt.size, tt.n, i, start, end, next)
			}
			next = end
		}
		if next != tt.size {
			t.Errorf("size %d, parallelism %d: splits end at %d", tt.size, tt.n, next)
		}
	}
}

func TestTrimEOL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""}, {"\n", ""}, {"a\n", "a"}, {"a\r\n", "a"}, {"a\r", "a\r"}, {"a\r\r\n", "a\r"}, {"a", "a"},
	}
	for _, tt := range tests {
		if got := string(trimEOL([]byte(tt.in))); got != tt.want {
			t.Errorf("trimEOL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
