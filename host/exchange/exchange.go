package exchange

import (
	"context"
	"fmt"
	"sync"

	"github.com/floe-stream/floe/host/record"
)

// Message is what travels from a sending subtask to a receiving one: a
// batch, a checkpoint barrier, a watermark, or the end of the sender's
// stream. Exactly one of Batch, Barrier, IsWatermark and End is set.
type Message struct {
	// From is the sending subtask's index.
	From int
	// Batch is the receiver's once received; it returns it with PutBatch
	// when done.
	Batch *record.Batch
	// Barrier is the id (> 0) of the checkpoint the sender snapshotted
	// before everything it sends after the barrier.
	Barrier int64
	// Suspend marks Barrier as the checkpoint of a partial rescale: the
	// receiver, once it has taken it, reads and sends nothing more until
	// it is rewired (host/task's Resume).
	Suspend bool
	// IsWatermark marks a watermark: the sender's event time is Watermark,
	// and no record older than that follows; Idle marks the sender idle
	// until its next message.
	IsWatermark bool
	Watermark   int64
	Idle        bool
	End         bool
}

// Sender delivers messages to one receiving subtask.
type Sender interface {
	// Send blocks until the receiver has room for m or ctx is done.
	Send(ctx context.Context, m Message) error
}

// Receiver yields the messages of all senders to one subtask.
type Receiver interface {
	// Recv blocks until a message arrives or ctx is done.
	Recv(ctx context.Context) (Message, error)
	// Senders is the number of subtasks that send to this receiver.
	Senders() int
}

var pool = sync.Pool{New: func() any { return new(record.Batch) }}

// GetBatch returns an empty batch from the pool.
func GetBatch() *record.Batch { return pool.Get().(*record.Batch) }

// PutBatch resets b and returns it to the pool.
func PutBatch(b *record.Batch) {
	b.Reset()
	pool.Put(b)
}

// Ends counts End messages until every sender has ended.
type Ends struct {
	ended []bool
	left  int
}

// NewEnds tracks senders senders.
func NewEnds(senders int) *Ends { return &Ends{ended: make([]bool, senders), left: senders} }

// Mark records sender from's End and reports whether all have ended.
func (e *Ends) Mark(from int) (bool, error) {
	if from < 0 || from >= len(e.ended) || e.ended[from] {
		return false, fmt.Errorf("exchange: unexpected end from sender %d", from)
	}
	e.ended[from] = true
	e.left--
	return e.left == 0, nil
}
