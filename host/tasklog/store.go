package tasklog

import (
	"cmp"
	"context"
	"github.com/floe-stream/floe/internal/excerpt"
	"log/slog"
	"slices"
	"sync"
	"time"
)

// Defaults of Config.
const (
	DefaultLines     = 1000
	DefaultBytes     = 256 << 10
	DefaultLineBytes = 8 << 10
	DefaultSubtasks  = 1024
	// DefaultFetchBytes is how many bytes of messages one Fetch returns at
	// most: well under gRPC's 4 MiB message limit.
	DefaultFetchBytes = 2 << 20
)

// Config bounds a Store. Zero fields take the defaults.
type Config struct {
	// Lines and Bytes bound each subtask's ring; LineBytes is the size a
	// message is cut to.
	Lines, Bytes, LineBytes int
	// Subtasks bounds the number of rings.
	Subtasks int
	// FetchBytes bounds the bytes of messages one Fetch returns.
	FetchBytes int
	// Now is the store's clock; nil means time.Now.
	Now func() time.Time
}

// Store is the rings of a task manager's subtasks. It is safe for
// concurrent use.
type Store struct {
	cfg Config

	mu    sync.Mutex
	last  int64 // the last seq given
	rings map[Subtask]*entry
}

// entry is a ring and the seq of its last line, for eviction.
type entry struct {
	ring *Ring
	last int64
}

// New returns an empty store.
func New(cfg Config) *Store {
	cfg.Lines = cmp.Or(cfg.Lines, DefaultLines)
	cfg.Bytes = cmp.Or(cfg.Bytes, DefaultBytes)
	cfg.LineBytes = cmp.Or(cfg.LineBytes, DefaultLineBytes)
	cfg.Subtasks = cmp.Or(cfg.Subtasks, DefaultSubtasks)
	cfg.FetchBytes = cmp.Or(cfg.FetchBytes, DefaultFetchBytes)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Store{cfg: cfg, rings: map[Subtask]*entry{}}
}

// Add records a line of a subtask, cut to the store's LineBytes, and
// returns the seq it got. Time, if zero, is the store's clock.
func (s *Store) Add(l Line) int64 {
	now := s.cfg.Now()
	if l.Time.IsZero() {
		l.Time = now
	}
	l.Message = excerpt.Cut(l.Message, s.cfg.LineBytes)
	s.mu.Lock()
	defer s.mu.Unlock()
	l.Seq = max(now.UnixNano(), s.last+1)
	s.last = l.Seq
	e, ok := s.rings[l.Task]
	if !ok {
		s.makeRoom()
		e = &entry{ring: NewRing(s.cfg.Lines, s.cfg.Bytes)}
		s.rings[l.Task] = e
	}
	e.ring.Add(l)
	e.last = l.Seq
	return l.Seq
}

// makeRoom drops the ring written least recently while the store holds
// as many as it may. s.mu is held.
func (s *Store) makeRoom() {
	for len(s.rings) >= s.cfg.Subtasks {
		var oldest Subtask
		var at int64 = -1
		for k, e := range s.rings {
			if at < 0 || e.last < at {
				oldest, at = k, e.last
			}
		}
		delete(s.rings, oldest)
	}
}

// Filter selects the subtasks of a job whose lines Fetch returns: Stage
// and Subtask nil select every one.
type Filter struct {
	Job            string
	Stage, Subtask *int
}

func (f Filter) match(t Subtask) bool {
	return t.Job == f.Job && (f.Stage == nil || *f.Stage == t.Stage) && (f.Subtask == nil || *f.Subtask == t.Subtask)
}

// Fetch returns the lines of the subtasks f selects whose seq is greater
// than since, oldest first: at most limit of them (0: no limit but the
// store's FetchBytes), and more tells that lines were left out. The lines
// are copies.
func (s *Store) Fetch(f Filter, since int64, limit int) (lines []Line, more bool) {
	s.mu.Lock()
	for k, e := range s.rings {
		if f.match(k) {
			lines = append(lines, e.ring.After(since)...)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(lines, func(a, b Line) int { return cmp.Compare(a.Seq, b.Seq) })
	bytes := 0
	for i, l := range lines {
		bytes += len(l.Message)
		if (limit > 0 && i == limit) || (i > 0 && bytes > s.cfg.FetchBytes) {
			return lines[:i], true
		}
	}
	return lines, false
}

// Len returns the number of rings held.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.rings)
}

// Handler returns a handler that records every line logged through it in
// the ring of subtask task (of attempt attempt) and passes it on to next
// when next is enabled for its level. The "operator" attribute given to
// WithAttrs names the line's operator.
func (s *Store) Handler(task Subtask, attempt int, next slog.Handler) slog.Handler {
	return &tee{s: s, task: task, attempt: attempt, next: next}
}

type tee struct {
	s        *Store
	task     Subtask
	attempt  int
	operator string
	next     slog.Handler
}

func (t *tee) Enabled(context.Context, slog.Level) bool { return true }

func (t *tee) Handle(ctx context.Context, r slog.Record) error {
	t.s.Add(Line{Time: r.Time, Level: r.Level, Task: t.task, Attempt: t.attempt, Operator: t.operator, Message: r.Message})
	if t.next.Enabled(ctx, r.Level) {
		return t.next.Handle(ctx, r)
	}
	return nil
}

func (t *tee) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *t
	for _, a := range attrs {
		if a.Key == "operator" {
			c.operator = a.Value.String()
		}
	}
	c.next = t.next.WithAttrs(attrs)
	return &c
}

func (t *tee) WithGroup(name string) slog.Handler {
	c := *t
	c.next = t.next.WithGroup(name)
	return &c
}
