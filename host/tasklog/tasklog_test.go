package tasklog

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestRingBound checks that a ring keeps the newest lines within both of
// its bounds, and always the newest line.
func TestRingBound(t *testing.T) {
	for _, tc := range []struct {
		name               string
		maxLines, maxBytes int
		sizes              []int // message sizes added, in order
		want               []int // indexes of the lines kept
	}{
		{"empty", 3, 100, nil, nil},
		{"under both", 3, 100, []int{10, 10}, []int{0, 1}},
		{"at the line bound", 3, 100, []int{1, 1, 1}, []int{0, 1, 2}},
		{"over the line bound", 3, 100, []int{1, 1, 1, 1, 1}, []int{2, 3, 4}},
		{"at the byte bound", 10, 30, []int{10, 10, 10}, []int{0, 1, 2}},
		{"over the byte bound", 10, 30, []int{10, 10, 10, 1}, []int{1, 2, 3}},
		{"a big line evicts many", 10, 30, []int{5, 5, 5, 5, 25}, []int{3, 4}},
		{"a line over the bound alone", 10, 30, []int{5, 40}, []int{1}},
		{"one line", 1, 100, []int{1, 2, 3}, []int{2}},
		{"many", 100, 1 << 20, repeat(1, 1000), seq(900, 1000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRing(tc.maxLines, tc.maxBytes)
			for i, n := range tc.sizes {
				r.Add(Line{Seq: int64(i + 1), Message: strings.Repeat("x", n)})
			}
			got := r.After(0)
			var idx []int
			bytes := 0
			for _, l := range got {
				idx = append(idx, int(l.Seq-1))
				bytes += len(l.Message)
			}
			if fmt.Sprint(idx) != fmt.Sprint(tc.want) {
				t.Errorf("kept lines %v, want %v", idx, tc.want)
			}
			if r.Len() != len(tc.want) || r.Bytes() != bytes {
				t.Errorf("Len %d Bytes %d, want %d and %d", r.Len(), r.Bytes(), len(tc.want), bytes)
			}
		})
	}
}

func repeat(n, times int) []int {
	out := make([]int, times)
	for i := range out {
		out[i] = n
	}
	return out
}

func seq(from, to int) []int {
	var out []int
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

func TestRingAfter(t *testing.T) {
	r := NewRing(10, 1000)
	for _, s := range []int64{3, 5, 9, 12} {
		r.Add(Line{Seq: s})
	}
	for since, want := range map[int64]string{0: "[3 5 9 12]", 3: "[5 9 12]", 4: "[5 9 12]", 11: "[12]", 12: "[]", 99: "[]"} {
		var got []int64
		for _, l := range r.After(since) {
			got = append(got, l.Seq)
		}
		if fmt.Sprint(got) != want && !(want == "[]" && got == nil) {
			t.Errorf("After(%d) = %v, want %s", since, got, want)
		}
	}
}

// clock is a store's clock that tests move by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestStoreSeqsIncrease(t *testing.T) {
	c := &clock{time.Unix(100, 0)}
	s := New(Config{Now: c.now})
	a := s.Add(Line{Task: Subtask{"j", 0, 0}, Message: "a"})
	b := s.Add(Line{Task: Subtask{"j", 0, 1}, Message: "b"}) // the clock did not move
	c.t = c.t.Add(-time.Second)                              // nor forward
	d := s.Add(Line{Task: Subtask{"j", 0, 0}, Message: "c"})
	c.t = c.t.Add(time.Hour)
	e := s.Add(Line{Task: Subtask{"j", 0, 0}, Message: "d"})
	if a != time.Unix(100, 0).UnixNano() || b != a+1 || d != a+2 || e != c.t.UnixNano() {
		t.Errorf("seqs %d %d %d %d: want the clock's nanoseconds, each past the one before", a, b, d, e)
	}
}

func TestStoreFetch(t *testing.T) {
	c := &clock{time.Unix(100, 0)}
	s := New(Config{Now: c.now})
	add := func(job string, stage, sub int, msg string) int64 {
		c.t = c.t.Add(time.Millisecond)
		return s.Add(Line{Task: Subtask{job, stage, sub}, Message: msg})
	}
	add("j", 0, 0, "a")
	mid := add("j", 1, 0, "b")
	add("other", 0, 0, "x")
	add("j", 0, 1, "c")
	add("j", 1, 1, "d")
	zero, one := 0, 1
	for _, tc := range []struct {
		name  string
		f     Filter
		since int64
		limit int
		want  string
		more  bool
	}{
		{"every line of the job", Filter{Job: "j"}, 0, 0, "a b c d", false},
		{"since", Filter{Job: "j"}, mid, 0, "c d", false},
		{"since the last", Filter{Job: "j"}, c.t.UnixNano(), 0, "", false},
		{"a stage", Filter{Job: "j", Stage: &one}, 0, 0, "b d", false},
		{"a subtask", Filter{Job: "j", Stage: &zero, Subtask: &one}, 0, 0, "c", false},
		{"limit", Filter{Job: "j"}, 0, 3, "a b c", true},
		{"limit, since", Filter{Job: "j"}, mid, 1, "c", true},
		{"limit at the count", Filter{Job: "j"}, 0, 4, "a b c d", false},
		{"unknown job", Filter{Job: "nope"}, 0, 0, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines, more := s.Fetch(tc.f, tc.since, tc.limit)
			var msgs []string
			for _, l := range lines {
				msgs = append(msgs, l.Message)
			}
			if got := strings.Join(msgs, " "); got != tc.want || more != tc.more {
				t.Errorf("got %q more %t, want %q more %t", got, more, tc.want, tc.more)
			}
		})
	}
}

func TestStoreFetchBytes(t *testing.T) {
	s := New(Config{FetchBytes: 25, Now: (&clock{time.Unix(1, 0)}).now})
	for i := range 5 {
		s.Add(Line{Task: Subtask{"j", 0, i}, Message: strings.Repeat("x", 10)})
	}
	if lines, more := s.Fetch(Filter{Job: "j"}, 0, 0); len(lines) != 2 || !more {
		t.Errorf("fetched %d lines (more %t) of 10 bytes under a bound of 25; want 2, more", len(lines), more)
	}
	s = New(Config{FetchBytes: 5})
	s.Add(Line{Task: Subtask{"j", 0, 0}, Message: strings.Repeat("x", 10)})
	if lines, more := s.Fetch(Filter{Job: "j"}, 0, 0); len(lines) != 1 || more {
		t.Errorf("fetched %d lines (more %t); want the one line over the bound, which would never come otherwise", len(lines), more)
	}
}

func TestStoreBounds(t *testing.T) {
	c := &clock{time.Unix(100, 0)}
	s := New(Config{Subtasks: 2, LineBytes: 4, Now: c.now})
	add := func(sub int, msg string) {
		c.t = c.t.Add(time.Millisecond)
		s.Add(Line{Task: Subtask{"j", 0, sub}, Message: msg})
	}
	add(0, "a")
	add(1, "b")
	add(0, "c") // subtask 1 is now the least recently written
	add(2, "too long")
	if s.Len() != 2 {
		t.Fatalf("%d rings, want 2", s.Len())
	}
	var got []string
	lines, _ := s.Fetch(Filter{Job: "j"}, 0, 0)
	for _, l := range lines {
		got = append(got, fmt.Sprintf("%d:%s", l.Task.Subtask, l.Message))
	}
	if want := "0:a 0:c 2:too … (8 bytes)"; strings.Join(got, " ") != want {
		t.Errorf("lines %q, want %q", strings.Join(got, " "), want)
	}
}

// TestHandler checks that the tee records every line with its operator,
// whatever its level, and passes on only what the next handler takes.
func TestHandler(t *testing.T) {
	s := New(Config{})
	var out strings.Builder
	next := slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelInfo,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}})
	log := slog.New(s.Handler(Subtask{"j", 1, 2}, 3, next)).With("task", "t (3/4)", "operator", "op")
	log.Debug("quiet")
	log.Warn("loud", "module", "m")
	lines, _ := s.Fetch(Filter{Job: "j"}, 0, 0)
	if len(lines) != 2 {
		t.Fatalf("recorded %d lines, want 2", len(lines))
	}
	for i, want := range []Line{{Level: slog.LevelDebug, Message: "quiet"}, {Level: slog.LevelWarn, Message: "loud"}} {
		l := lines[i]
		if l.Level != want.Level || l.Message != want.Message || l.Operator != "op" || l.Attempt != 3 || l.Task != (Subtask{"j", 1, 2}) || l.Time.IsZero() {
			t.Errorf("line %d = %+v, want %s %q of operator op, attempt 3, subtask j 1/2, with its time", i, l, want.Level, want.Message)
		}
	}
	if got, want := out.String(), "level=WARN msg=loud task=\"t (3/4)\" operator=op module=m\n"; got != want {
		t.Errorf("passed on %q, want %q", got, want)
	}
}
