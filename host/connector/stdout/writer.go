package stdout

import (
	"io"
	"sync"
)

// Writer serializes the writes of several sinks to one io.Writer. It is safe
// for concurrent use.
type Writer struct {
	mu sync.Mutex
	w  io.Writer
}

// NewWriter returns a Writer over w. All the sinks that write to w must
// share the one Writer.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w}
}

// Write writes p to the underlying writer while holding the lock, so that no
// other Write interleaves with it.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}
