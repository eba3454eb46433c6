package linewriter

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/record"
)

// Config configures a Writer.
type Config struct {
	// Out receives the lines, one Write call per flush, each holding whole
	// lines only. The Writer does not close it.
	Out io.Writer
	// BufferSize is how many bytes are buffered before a flush. A batch is
	// never split between flushes, so one flush can exceed it.
	BufferSize int
	// FlushInterval is how often the Writer flushes what it holds; it must
	// be positive unless Ticks is set.
	FlushInterval time.Duration
	// Ticks, if set, replaces the ticker of FlushInterval: the Writer
	// flushes once per value received. Tests send on it to flush without
	// waiting; the send of a second tick returns only once the flush of the
	// first is over.
	Ticks <-chan time.Time
}

// Writer buffers lines for an io.Writer. Its methods may be called from one
// goroutine at a time, as a Sink's are; the Writer's own flushing goroutine
// is synchronized with them.
type Writer struct {
	mu     sync.Mutex
	out    io.Writer
	buf    []byte
	limit  int
	err    error // the first failed flush; every later call returns it
	closed bool

	stop context.CancelFunc
	wg   sync.WaitGroup
}

// New returns a Writer over cfg.Out and starts its flushing goroutine, which
// runs until Close.
func New(cfg Config) *Writer {
	w := &Writer{out: cfg.Out, limit: cfg.BufferSize}
	ticks := cfg.Ticks
	var ticker *time.Ticker
	if ticks == nil {
		ticker = time.NewTicker(cfg.FlushInterval)
		ticks = ticker.C
	}
	ctx, stop := context.WithCancel(context.Background())
	w.stop = stop
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		if ticker != nil {
			defer ticker.Stop()
		}
		w.flushEvery(ctx, ticks)
	}()
	return w
}

// flushEvery flushes once per tick until ctx is done. A failed flush is
// kept for the next call of the task loop to return.
func (w *Writer) flushEvery(ctx context.Context, ticks <-chan time.Time) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
			w.mu.Lock()
			if !w.closed && w.err == nil {
				w.err = w.flushLocked()
			}
			w.mu.Unlock()
		}
	}
}

// Write appends the Value of each record of b and a "\n" to the buffer,
// then flushes if the buffer has passed its size. It does not retain b.
func (w *Writer) Write(b *record.Batch) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.check(); err != nil {
		return err
	}
	for i := range b.Records {
		w.buf = append(w.buf, b.Records[i].Value...)
		w.buf = append(w.buf, '\n')
	}
	if len(w.buf) < w.limit {
		return nil
	}
	w.err = w.flushLocked()
	return w.err
}

// Flush hands what the buffer holds to Out.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.check(); err != nil {
		return err
	}
	w.err = w.flushLocked()
	return w.err
}

// Close stops the flushing goroutine, then flushes. Calling any method after
// Close returns connector.ErrClosed.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return connector.ErrClosed
	}
	w.mu.Unlock()
	w.stop()
	w.wg.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.err
	if err == nil {
		err = w.flushLocked()
	}
	w.closed = true
	w.buf = nil
	return err
}

// check returns the error a call must return before doing anything.
func (w *Writer) check() error {
	if w.closed {
		return connector.ErrClosed
	}
	return w.err
}

// flushLocked writes the buffer to Out in one call. A buffer that a batch
// of long lines grew far past the size is let go, so that one such batch
// does not hold its memory for the life of the sink. The caller holds mu.
func (w *Writer) flushLocked() error {
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.out.Write(w.buf)
	w.buf = w.buf[:0]
	if cap(w.buf) > 4*max(w.limit, 1<<10) {
		w.buf = nil
	}
	return err
}
