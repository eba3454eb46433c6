package faulty

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"sync"
	"time"

	"github.com/floe-stream/floe/storage/ckstore"
)

// ErrInjected is the error injected when a rule names none.
var ErrInjected = errors.New("faulty: injected failure")

// Op names a Store method.
type Op string

// The operations that rules apply to.
const (
	OpPut    Op = "put"
	OpGet    Op = "get"
	OpStat   Op = "stat"
	OpList   Op = "list"
	OpDelete Op = "delete"
)

// Store is a ckstore.Store that passes calls to another one unless a
// rule says otherwise. Its methods, the Store's and the rule-setting ones,
// are safe for concurrent use.
type Store struct {
	inner ckstore.Store

	mu       sync.Mutex
	rules    []*rule
	calls    map[Op]int
	failures map[Op]int
}

// rule is one instruction. A rule with after < 0 fails calls before they
// reach the inner store; one with after >= 0 fails the call's data stream
// after that many bytes; one with delay > 0 only slows calls down.
type rule struct {
	op      Op
	pattern string
	err     error
	times   int // firings left; negative means unlimited
	after   int64
	delay   time.Duration
}

// New wraps inner.
func New(inner ckstore.Store) *Store {
	return &Store{inner: inner, calls: map[Op]int{}, failures: map[Op]int{}}
}

// FailNext makes the next call of op on a path matching pattern fail with
// err (ErrInjected if nil) without reaching the wrapped store.
func (s *Store) FailNext(op Op, pattern string, err error) {
	s.add(&rule{op: op, pattern: pattern, err: err, times: 1, after: -1})
}

// FailAlways makes every call of op on a path matching pattern fail with
// err (ErrInjected if nil), until Reset.
func (s *Store) FailAlways(op Op, pattern string, err error) {
	s.add(&rule{op: op, pattern: pattern, err: err, times: -1, after: -1})
}

// FailAfter makes the data of every Put (op OpPut) or Get (OpGet) of a path
// matching pattern fail with err (ErrInjected if nil) after n bytes, until
// Reset; data of at most n bytes passes. A Put hands the wrapped store a reader that fails, so the store's
// own handling of a failed upload is what runs.
func (s *Store) FailAfter(op Op, pattern string, n int64, err error) {
	if op != OpPut && op != OpGet {
		panic(fmt.Sprintf("faulty: FailAfter applies to put and get, not %s", op))
	}
	s.add(&rule{op: op, pattern: pattern, err: err, times: -1, after: max(n, 0)})
}

// Delay makes every call of op on a path matching pattern wait d before it
// proceeds, until Reset. A call whose ctx ends while waiting fails with the
// context's error.
func (s *Store) Delay(op Op, pattern string, d time.Duration) {
	s.add(&rule{op: op, pattern: pattern, times: -1, after: -1, delay: d})
}

// Reset removes every rule.
func (s *Store) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = nil
}

// Calls returns how many calls of op the Store has had, failed or not.
func (s *Store) Calls(op Op) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[op]
}

// Failures returns how many calls of op rules have failed, before they
// reached the wrapped store or midway through their data, so that a test
// can tell that the fault it set up happened.
func (s *Store) Failures(op Op) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failures[op]
}

func (s *Store) failed(op Op) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures[op]++
}

func (s *Store) add(r *rule) {
	if _, err := path.Match(r.pattern, ""); err != nil {
		panic(fmt.Sprintf("faulty: pattern %q: %v", r.pattern, err))
	}
	if r.err == nil {
		r.err = ErrInjected
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = append(s.rules, r)
}

// plan is what the rules say about one call.
type plan struct {
	delay  time.Duration
	fail   error // fail before reaching the inner store
	stream *rule // fail the data stream
}

// match counts a call of op on p and returns what to do with it, using up
// one-shot rules that fire.
func (s *Store) match(op Op, p string) plan {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[op]++
	var pl plan
	for _, r := range s.rules {
		if r.op != op || r.times == 0 || !matches(r.pattern, p) {
			continue
		}
		switch {
		case r.delay > 0:
			pl.delay += r.delay
		case r.after >= 0 && pl.stream == nil:
			pl.stream = r
		case r.after < 0 && pl.fail == nil:
			pl.fail = r.err
			if r.times > 0 {
				r.times--
			}
		}
	}
	return pl
}

func matches(pattern, p string) bool {
	ok, _ := path.Match(pattern, p)
	return pattern == "" || ok
}

// before applies a plan's delay and failure to a call of op on p.
func (s *Store) before(ctx context.Context, op Op, p string) (plan, error) {
	pl := s.match(op, p)
	if pl.delay > 0 {
		t := time.NewTimer(pl.delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return pl, fmt.Errorf("faulty: %s %q: delayed: %w", op, p, ctx.Err())
		}
	}
	if pl.fail != nil {
		s.failed(op)
		return pl, fmt.Errorf("faulty: %s %q: %w", op, p, pl.fail)
	}
	return pl, nil
}

// String returns the wrapped store's URL.
func (s *Store) String() string {
	return s.inner.String()
}

// Put implements ckstore.Store.
func (s *Store) Put(ctx context.Context, p string, r io.Reader, size int64) error {
	pl, err := s.before(ctx, OpPut, p)
	if err != nil {
		return err
	}
	if pl.stream != nil {
		r = s.failReader(OpPut, r, pl.stream)
	}
	return s.inner.Put(ctx, p, r, size)
}

// Get implements ckstore.Store.
func (s *Store) Get(ctx context.Context, p string) (io.ReadCloser, error) {
	pl, err := s.before(ctx, OpGet, p)
	if err != nil {
		return nil, err
	}
	rc, err := s.inner.Get(ctx, p)
	if err != nil || pl.stream == nil {
		return rc, err
	}
	return failReadCloser{s.failReader(OpGet, rc, pl.stream), rc}, nil
}

// GetRange implements ckstore.RangeReader, so that a task restoring from a
// Store reads ranges as it does from a real one. Rules for OpGet apply to
// it, FailAfter counting the range's bytes. When the wrapped store reads no
// ranges, GetRange reads the whole object and skips to the range.
func (s *Store) GetRange(ctx context.Context, p string, off, n int64) (io.ReadCloser, error) {
	pl, err := s.before(ctx, OpGet, p)
	if err != nil {
		return nil, err
	}
	var rc io.ReadCloser
	if rr, ok := s.inner.(ckstore.RangeReader); ok {
		rc, err = rr.GetRange(ctx, p, off, n)
	} else {
		rc, err = s.inner.Get(ctx, p)
		if err == nil {
			if _, err = io.CopyN(io.Discard, rc, off); err == io.EOF {
				err = nil // a range past the end is empty
			}
			if err != nil {
				rc.Close()
				return nil, err
			}
			rc = failReadCloser{io.LimitReader(rc, n), rc}
		}
	}
	if err != nil || pl.stream == nil {
		return rc, err
	}
	return failReadCloser{s.failReader(OpGet, rc, pl.stream), rc}, nil
}

// Stat implements ckstore.Store.
func (s *Store) Stat(ctx context.Context, p string) (int64, error) {
	if _, err := s.before(ctx, OpStat, p); err != nil {
		return 0, err
	}
	return s.inner.Stat(ctx, p)
}

// List implements ckstore.Store.
func (s *Store) List(ctx context.Context, prefix string) ([]string, error) {
	if _, err := s.before(ctx, OpList, prefix); err != nil {
		return nil, err
	}
	return s.inner.List(ctx, prefix)
}

// Delete implements ckstore.Store.
func (s *Store) Delete(ctx context.Context, p string) error {
	if _, err := s.before(ctx, OpDelete, p); err != nil {
		return err
	}
	return s.inner.Delete(ctx, p)
}

// failReader yields left bytes of r, then fails with err if r holds more,
// calling failed once when it does.
type failReader struct {
	r      io.Reader
	left   int64
	err    error
	failed func()
}

func (s *Store) failReader(op Op, r io.Reader, rl *rule) *failReader {
	var once sync.Once
	return &failReader{r: r, left: rl.after, err: rl.err, failed: func() { once.Do(func() { s.failed(op) }) }}
}

func (f *failReader) Read(p []byte) (int, error) {
	if f.left <= 0 {
		var b [1]byte
		if n, err := io.ReadFull(f.r, b[:]); n == 0 && err == io.EOF {
			return 0, io.EOF
		}
		f.failed()
		return 0, fmt.Errorf("faulty: stream: %w", f.err)
	}
	if int64(len(p)) > f.left {
		p = p[:f.left]
	}
	n, err := f.r.Read(p)
	f.left -= int64(n)
	return n, err
}

type failReadCloser struct {
	io.Reader
	io.Closer
}
