package transport

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/floe-stream/floe/host/exchange"
)

// receiver is the input of one receiving subtask: a buffer shared by its
// channels, holding at most perSender batches of each plus each channel's
// end. It is created on first touch, by the task manager deploying the task
// or by a channel arriving first, and usable once registered.
type receiver struct {
	key ChannelKey

	registered chan struct{} // closed by register
	released   chan struct{} // closed by release
	failed     chan struct{} // closed by fail, after err is set
	err        error
	failOnce   sync.Once
	relOnce    sync.Once

	// Set by register before registered is closed; read-only after.
	senders   int
	perSender int
	queue     chan exchange.Message
	chans     []atomic.Pointer[channel] // by sender; nil until attached

	// Guarded by Server.mu.
	isRegistered bool
	waiters      int // channels waiting for register
}

func newReceiver(key ChannelKey) *receiver {
	return &receiver{
		key:        key,
		registered: make(chan struct{}),
		released:   make(chan struct{}),
		failed:     make(chan struct{}),
	}
}

// register sizes the receiver for its task and lets its channels in. The
// caller holds Server.mu.
func (r *receiver) register(senders, perSender int) {
	r.senders = senders
	r.perSender = perSender
	// NB: credits bound the batches of each channel to perSender and a
	// channel sends one end, so pushes never find the buffer full.
	r.queue = make(chan exchange.Message, senders*(perSender+1))
	r.chans = make([]atomic.Pointer[channel], senders)
	r.isRegistered = true
	close(r.registered)
}

// attach adds the channel from sender, which holds perSender credits. A
// sender attaches at most once per receiver.
func (r *receiver) attach(sender int, remote bool) (*channel, error) {
	if sender < 0 || sender >= r.senders {
		return nil, fmt.Errorf("%w: sender %d of %d", errSenderRange, sender, r.senders)
	}
	ch := &channel{from: sender, remote: remote, notify: make(chan struct{}, 1)}
	ch.avail.Store(int32(r.perSender))
	if remote {
		ch.owed.Store(int32(r.perSender))
		ch.notify <- struct{}{}
	}
	if !r.chans[sender].CompareAndSwap(nil, ch) {
		return nil, fmt.Errorf("%w: sender %d", errDuplicate, sender)
	}
	return ch, nil
}

// push adds a message of an attached channel to the buffer.
func (r *receiver) push(m exchange.Message) error {
	select {
	case r.queue <- m:
		return nil
	default:
		err := fmt.Errorf("transport: internal error: buffer of %v overflowed", r.key)
		r.fail(err)
		return err
	}
}

// fail makes Recv return err, the first failure of the receiver.
func (r *receiver) fail(err error) {
	r.failOnce.Do(func() {
		r.err = err
		close(r.failed)
	})
}

// release cuts the receiver's channels and ends its Recv.
func (r *receiver) release() {
	r.relOnce.Do(func() { close(r.released) })
}

// Recv implements exchange.Receiver. A batch it returns grants its channel
// one credit. It fails with ErrChannelBroken when a channel broke before its
// end, and with ErrReleased after Release.
func (r *receiver) Recv(ctx context.Context) (exchange.Message, error) {
	select {
	case <-r.failed:
		return exchange.Message{}, r.err
	case <-r.released:
		return exchange.Message{}, r.releasedErr()
	default:
	}
	select {
	case m := <-r.queue:
		if !m.End {
			r.chans[m.From].Load().credit()
		}
		return m, nil
	case <-r.failed:
		return exchange.Message{}, r.err
	case <-r.released:
		return exchange.Message{}, r.releasedErr()
	case <-ctx.Done():
		return exchange.Message{}, ctx.Err()
	}
}

// RecvWake is Recv that also returns, with ok false, when wake is
// signalled, so a task can attend to other work while its input is idle.
func (r *receiver) RecvWake(ctx context.Context, wake <-chan struct{}) (m exchange.Message, ok bool, err error) {
	select {
	case m := <-r.queue:
		if !m.End {
			r.chans[m.From].Load().credit()
		}
		return m, true, nil
	default:
	}
	select {
	case m := <-r.queue:
		if !m.End {
			r.chans[m.From].Load().credit()
		}
		return m, true, nil
	case <-wake:
		return exchange.Message{}, false, nil
	case <-r.failed:
		return exchange.Message{}, false, r.err
	case <-r.released:
		return exchange.Message{}, false, r.releasedErr()
	case <-ctx.Done():
		return exchange.Message{}, false, ctx.Err()
	}
}

func (r *receiver) releasedErr() error { return fmt.Errorf("%w: %v", ErrReleased, r.key) }

// Senders implements exchange.Receiver.
func (r *receiver) Senders() int { return r.senders }

// Pending returns how many messages wait in the buffer.
func (r *receiver) Pending() int { return len(r.queue) }

// channel is the receiving end of one sender's channel.
type channel struct {
	from   int
	remote bool
	// avail is how many batches the sender may still send: credits granted
	// minus batches received. It never exceeds perSender.
	avail atomic.Int32
	// owed is how many credits wait to be sent to a remote sender.
	owed atomic.Int32
	// notify is signalled when credit is granted.
	notify chan struct{}
	// ended is set once the channel's end is in the buffer.
	ended atomic.Bool
}

// spend takes one credit for a received batch and reports whether the
// sender held it.
func (c *channel) spend() bool { return c.avail.Add(-1) >= 0 }

// credit grants one credit for a consumed batch.
func (c *channel) credit() {
	c.avail.Add(1)
	if c.remote {
		c.owed.Add(1)
	}
	select {
	case c.notify <- struct{}{}:
	default:
	}
}

// errReceiver is the Receiver of a task that cannot have one; Recv returns
// its error.
type errReceiver struct {
	err     error
	senders int
}

func (e errReceiver) Recv(context.Context) (exchange.Message, error) {
	return exchange.Message{}, e.err
}
func (e errReceiver) Senders() int { return e.senders }
func (e errReceiver) Pending() int { return 0 }

var _ exchange.Receiver = (*receiver)(nil)

// errBadReceiver is wrapped by an errReceiver's error.
var errBadReceiver = errors.New("transport: cannot register receiver")
