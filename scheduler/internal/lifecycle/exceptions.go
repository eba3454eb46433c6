package lifecycle

import (
	"github.com/floe-stream/floe/internal/excerpt"
	"time"
)

// A job keeps its failures, newest last, as Exceptions: every task that
// failed and every attempt that failed for another reason (its task
// manager lost, its deployment impossible). They are part of the
// machine's state, and so of the replicated log's snapshots; to keep
// both small, a job keeps the last MaxExceptions with a count of the
// older ones dropped, and each message is cut to MaxExceptionMessage
// bytes.

// MaxExceptions is how many failures a job keeps.
const MaxExceptions = 100

// MaxExceptionMessage is how many bytes of a failure's message are kept.
const MaxExceptionMessage = 4 << 10

// maxExceptionBytes caps the excerpts of a failure's key and record.
const maxExceptionBytes = 64

// Failure is what a task manager knows of where a task's failure arose,
// when it arose in an operator's module.
type Failure struct {
	Operator string `json:",omitempty"`
	Module   string `json:",omitempty"`
	Function string `json:",omitempty"`
	// Key is the first bytes of the key of the record being processed,
	// KeySize its length.
	Key     []byte `json:",omitempty"`
	KeySize int    `json:",omitempty"`
	// HasRecord tells that the failure is tied to a record, of which Value
	// holds the first bytes and ValueSize is the length.
	HasRecord bool   `json:",omitempty"`
	Value     []byte `json:",omitempty"`
	ValueSize int    `json:",omitempty"`
}

// Exception is one failure of a job.
type Exception struct {
	Time    time.Time
	Attempt int
	// Task names the failed subtask (Job is left empty); nil for a
	// failure of the whole attempt.
	Task        *TaskID  `json:",omitempty"`
	TaskManager string   `json:",omitempty"`
	Failure     *Failure `json:",omitempty"`
	Message     string
}

// Exceptions are a job's failures, oldest first, and how many older ones
// were dropped.
type Exceptions struct {
	List    []Exception `json:",omitempty"`
	Dropped int         `json:",omitempty"`
}

// add keeps e, dropping the oldest beyond MaxExceptions, with its message
// and excerpts cut.
func (x *Exceptions) add(e Exception) {
	e.Message = excerpt.Cut(e.Message, MaxExceptionMessage)
	if f := e.Failure; f != nil {
		c := *f
		c.Key = head(c.Key)
		c.Value = head(c.Value)
		e.Failure = &c
	}
	if len(x.List) >= MaxExceptions {
		n := len(x.List) - MaxExceptions + 1
		x.List = append(x.List[:0:0], x.List[n:]...)
		x.Dropped += n
	}
	x.List = append(x.List, e)
}

// head copies at most maxExceptionBytes of b; nil when b is empty.
func head(b []byte) []byte {
	if len(b) > maxExceptionBytes {
		b = b[:maxExceptionBytes]
	}
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}

// exception records a failure of a job's current attempt.
func (m *Machine) exception(j *Job, task *TaskID, tm string, f *Failure, msg string) {
	j.Exceptions.add(Exception{Time: m.now, Attempt: j.Attempt, Task: task, TaskManager: tm, Failure: f, Message: msg})
}
