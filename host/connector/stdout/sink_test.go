package stdout

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/record"
)

// recorder is an io.Writer that keeps every call's bytes. It is not safe
// for concurrent use, so the test also checks that the Writer serializes.
type recorder struct {
	calls [][]byte
}

func (r *recorder) Write(p []byte) (int, error) {
	r.calls = append(r.calls, bytes.Clone(p))
	return len(p), nil
}

// TestSubtasksNeverInterleaveMidLine has many subtasks write concurrently to
// one Writer and checks that every write holds whole lines and that each
// subtask's lines all arrive, in order.
func TestSubtasksNeverInterleaveMidLine(t *testing.T) {
	const subtasks, batches = 8, 200
	rec := &recorder{}
	out := NewWriter(rec)
	var wg sync.WaitGroup
	for i := range subtasks {
		wg.Go(func() {
			if err := writeNumbered(out, i, batches); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	next := make([]int, subtasks)
	for _, call := range rec.calls {
		if !bytes.HasSuffix(call, []byte("\n")) {
			t.Fatalf("a write ends mid-line: %q", call)
		}
		for _, line := range strings.Split(strings.TrimSuffix(string(call), "\n"), "\n") {
			checkLine(t, line, next)
		}
	}
	for i, n := range next {
		if n != batches*(batches+1)/2 {
			t.Errorf("subtask %d: %d lines arrived, want %d", i, n, batches*(batches+1)/2)
		}
	}
}

// writeNumbered writes, through a sink with a small buffer, batches batches
// whose k-th holds k lines "<subtask> <seq> <padding>", and closes the sink.
func writeNumbered(out *Writer, subtask, batches int) error {
	s, err := NewSink(Config{Out: out, BufferSize: 64})
	if err != nil {
		return err
	}
	var b record.Batch
	seq := 0
	for k := 1; k <= batches; k++ {
		b.Reset()
		for range k {
			b.Append(nil, fmt.Appendf(nil, "%d %d %s", subtask, seq, strings.Repeat("x", seq%17)), record.NoTimestamp)
			seq++
		}
		if err := s.Write(&b); err != nil {
			return err
		}
	}
	return s.Close()
}

// checkLine checks that line is the next line of its subtask, whole.
func checkLine(t *testing.T, line string, next []int) {
	t.Helper()
	fields := strings.Split(line, " ")
	if len(fields) != 3 {
		t.Fatalf("mangled line %q", line)
	}
	sub, err1 := strconv.Atoi(fields[0])
	seq, err2 := strconv.Atoi(fields[1])
	if err1 != nil || err2 != nil || sub < 0 || sub >= len(next) || seq != next[sub] || fields[2] != strings.Repeat("x", seq%17) {
		t.Fatalf("line %q is not line %v of its subtask, whole", line, next)
	}
	next[sub]++
}

func TestSinkBuffersUntilFlushOrClose(t *testing.T) {
	var buf bytes.Buffer
	s, err := NewSink(Config{Out: NewWriter(&buf)})
	if err != nil {
		t.Fatal(err)
	}
	var b record.Batch
	b.Append([]byte("k"), []byte("a"), 1)
	b.Append(nil, nil, 2)
	steps := []struct {
		name string
		do   func() error
		want string
	}{
		{"Write", func() error { return s.Write(&b) }, ""},
		{"Flush", s.Flush, "a\n\n"},
		{"Write again", func() error { return s.Write(&b) }, "a\n\n"},
		{"Close", s.Close, "a\n\na\n\n"},
	}
	for _, step := range steps {
		if err := step.do(); err != nil || buf.String() != step.want {
			t.Errorf("after %s: output %q, %v; want %q", step.name, buf.String(), err, step.want)
		}
	}
	for name, err := range map[string]error{"Write": s.Write(&b), "Flush": s.Flush(), "Close": s.Close()} {
		if !errors.Is(err, connector.ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", name, err)
		}
	}
}

// failing is an io.Writer that always fails.
type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestSinkErrors(t *testing.T) {
	if _, err := NewSink(Config{BufferSize: -1}); err == nil {
		t.Error("NewSink with a negative buffer size succeeded")
	}
	s, err := NewSink(Config{Out: NewWriter(failing{}), BufferSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b record.Batch
	b.Append(nil, []byte("a"), 1)
	if err := s.Write(&b); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("Write to a failing writer = %v, want its error", err)
	}
	if err := s.Close(); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("Close after a failed write = %v, want its error", err)
	}
	if _, err := NewSink(Config{FlushInterval: -time.Second}); err == nil {
		t.Error("NewSink with a negative flush interval succeeded")
	}
}

// TestSinkPrintsAnIdleTail checks that lines below the buffer's size are
// written at the next flush tick, with no more input and no Flush.
func TestSinkPrintsAnIdleTail(t *testing.T) {
	var buf bytes.Buffer
	ticks := make(chan time.Time)
	s, err := NewSink(Config{Out: NewWriter(&buf), ticks: ticks})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var b record.Batch
	b.Append(nil, []byte("a,1"), record.NoTimestamp)
	if err := s.Write(&b); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 0 {
		t.Fatalf("output %q before a tick, want nothing yet", buf.String())
	}
	// The second tick is taken only once the first one's flush is over.
	ticks <- time.Time{}
	ticks <- time.Time{}
	if got := buf.String(); got != "a,1\n" {
		t.Errorf("output %q after a tick, want the line", got)
	}
}
