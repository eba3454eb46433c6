package linewriter

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/record"
)

// recorder is an io.Writer that keeps the bytes of every call, for the test
// goroutine to read while a Writer's goroutine writes.
type recorder struct {
	mu    sync.Mutex
	calls []string
	fail  error
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return 0, r.fail
	}
	r.calls = append(r.calls, string(p))
	return len(p), nil
}

// output returns everything written so far.
func (r *recorder) output() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.calls, "")
}

// batch returns a batch of the given values.
func batch(values ...string) *record.Batch {
	var b record.Batch
	for _, v := range values {
		b.Append(nil, []byte(v), record.NoTimestamp)
	}
	return &b
}

// tick makes w's goroutine flush and returns once the flush is over: the
// goroutine takes the second tick only after it has handled the first.
func tick(ticks chan time.Time) {
	ticks <- time.Time{}
	ticks <- time.Time{}
}

// TestFlushPoints walks a Writer through the moments that flush it and
// checks what Out holds after each step.
func TestFlushPoints(t *testing.T) {
	out := &recorder{}
	ticks := make(chan time.Time)
	w := New(Config{Out: out, BufferSize: 8, Ticks: ticks})
	steps := []struct {
		name string
		do   func() error
		want string
	}{
		{"a small batch stays buffered", func() error { return w.Write(batch("a", "b")) }, ""},
		{"a tick flushes the idle tail", func() error { tick(ticks); return nil }, "a\nb\n"},
		{"a tick with nothing buffered writes nothing", func() error { tick(ticks); return nil }, "a\nb\n"},
		{"a batch that fills the buffer is flushed whole", func() error { return w.Write(batch("ccc", "ddd", "e")) }, "a\nb\nccc\nddd\ne\n"},
		{"Flush", func() error { _ = w.Write(batch("f")); return w.Flush() }, "a\nb\nccc\nddd\ne\nf\n"},
		{"Close flushes", func() error { _ = w.Write(batch("g")); return w.Close() }, "a\nb\nccc\nddd\ne\nf\ng\n"},
	}
	for _, step := range steps {
		if err := step.do(); err != nil || out.output() != step.want {
			t.Fatalf("%s: output %q, %v; want %q", step.name, out.output(), err, step.want)
		}
	}
	for i, call := range out.calls {
		if !strings.HasSuffix(call, "\n") {
			t.Errorf("write %d ends mid-line: %q", i, call)
		}
	}
	for name, err := range map[string]error{"Write": w.Write(batch("x")), "Flush": w.Flush(), "Close": w.Close()} {
		if !errors.Is(err, connector.ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", name, err)
		}
	}
}

// TestLongLinesAreNeverCut writes lines far longer than the buffer and checks
// that every write to Out ends at a line's end.
func TestLongLinesAreNeverCut(t *testing.T) {
	out := &recorder{}
	w := New(Config{Out: out, BufferSize: 4, FlushInterval: time.Hour})
	long := strings.Repeat("x", 100)
	for range 3 {
		if err := w.Write(batch(long, "y")); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(out.calls) != 3 {
		t.Errorf("%d writes, want one per batch", len(out.calls))
	}
	for i, call := range out.calls {
		if call != long+"\ny\n" {
			t.Errorf("write %d = %q, want the whole batch", i, call)
		}
	}
}

// TestBackgroundFailureReachesTheTask checks that a flush that fails on the
// Writer's goroutine is returned by the next call, and by every later one.
func TestBackgroundFailureReachesTheTask(t *testing.T) {
	out := &recorder{fail: errors.New("disk on fire")}
	ticks := make(chan time.Time)
	w := New(Config{Out: out, BufferSize: 1 << 10, Ticks: ticks})
	if err := w.Write(batch("a")); err != nil {
		t.Fatal(err)
	}
	tick(ticks)
	calls := []struct {
		name string
		do   func() error
	}{
		{"Write", func() error { return w.Write(batch("b")) }},
		{"Flush", w.Flush},
		{"Close", w.Close},
	}
	for _, c := range calls {
		if err := c.do(); err == nil || !strings.Contains(err.Error(), "disk on fire") {
			t.Errorf("%s after a failed background flush = %v, want its error", c.name, err)
		}
	}
}
