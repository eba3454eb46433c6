package tasklog

import (
	"log/slog"
	"time"
)

// Subtask names the subtask of a job whose lines a ring holds.
type Subtask struct {
	Job            string
	Stage, Subtask int
}

// Line is one log line.
type Line struct {
	Seq      int64
	Time     time.Time
	Level    slog.Level
	Task     Subtask
	Attempt  int
	Operator string
	Message  string
}

// Ring is the last lines of a subtask, bounded in lines and in bytes of
// messages. The zero value holds nothing; NewRing sets its bounds. A Ring
// is not safe for concurrent use: the Store guards its rings.
type Ring struct {
	maxLines, maxBytes int
	lines              []Line // lines[head:] are held, oldest first
	head               int
	bytes              int
}

// NewRing returns an empty ring that holds at most lines lines and bytes
// bytes of messages (each at least one line).
func NewRing(lines, bytes int) *Ring {
	return &Ring{maxLines: max(lines, 1), maxBytes: max(bytes, 1)}
}

// Add appends l, dropping the oldest lines beyond the ring's bounds. The
// newest line is always kept, even alone over the byte bound.
func (r *Ring) Add(l Line) {
	r.lines = append(r.lines, l)
	r.bytes += len(l.Message)
	for r.Len() > 1 && (r.Len() > r.maxLines || r.bytes > r.maxBytes) {
		r.bytes -= len(r.lines[r.head].Message)
		r.lines[r.head] = Line{}
		r.head++
	}
	if r.head > len(r.lines)/2 {
		r.lines = append(r.lines[:0], r.lines[r.head:]...)
		r.head = 0
	}
}

// Len returns the number of lines held.
func (r *Ring) Len() int { return len(r.lines) - r.head }

// Bytes returns the bytes of messages held.
func (r *Ring) Bytes() int { return r.bytes }

// After returns the lines held whose seq is greater than since, oldest
// first. They are the ring's: a caller that keeps them must copy them.
func (r *Ring) After(since int64) []Line {
	held := r.lines[r.head:]
	// Seqs are increasing: find the first line after since.
	lo, hi := 0, len(held)
	for lo < hi {
		mid := (lo + hi) / 2
		if held[mid].Seq <= since {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return held[lo:]
}
