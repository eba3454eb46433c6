package transport

import (
	"context"
	"errors"
	"fmt"

	"github.com/floe-stream/floe/host/exchange"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

// LocalSender is the sending end of a channel whose receiving task runs on
// the same task manager: batches pass to the receiver without encoding, with
// the same credits and the same wait for the task's deployment as a remote
// channel.
type LocalSender struct {
	s     *Server
	id    *floev1.ChannelID
	r     *receiver
	ch    *channel
	err   error // sticky
	ended bool
}

// LocalSender returns the sending end of channel id, whose receiving task
// runs on s's task manager. Nothing happens until the first Send.
func (s *Server) LocalSender(id *floev1.ChannelID) *LocalSender {
	return &LocalSender{s: s, id: id}
}

// Send implements exchange.Sender, with the contract of Sender.Send; the
// batch passes to the receiver as it is.
func (l *LocalSender) Send(ctx context.Context, m exchange.Message) error {
	if l.err != nil {
		putBatch(m)
		return l.err
	}
	if err := l.send(ctx, m); err != nil {
		putBatch(m)
		l.err = fmt.Errorf("%s: %w", channelName(l.id), err)
		return l.err
	}
	return nil
}

func (l *LocalSender) send(ctx context.Context, m exchange.Message) error {
	if err := checkMessage(m, l.id, l.ended); err != nil {
		return err
	}
	if l.ch == nil {
		r, err := l.s.await(ctx, keyOf(l.id))
		if err != nil {
			return err
		}
		if l.ch, err = r.attach(int(l.id.GetSender()), false); err != nil {
			return err
		}
		l.r = r
	}
	if m.End {
		l.ended = true
		l.ch.ended.Store(true)
		return l.r.push(m)
	}
	for l.ch.avail.Load() <= 0 {
		select {
		case <-l.ch.notify:
		case <-l.r.released:
			return l.r.releasedErr()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	l.ch.avail.Add(-1)
	return l.r.push(m)
}

// Close fails the receiver if the channel is open and has not ended, as a
// remote channel that breaks does.
func (l *LocalSender) Close() error {
	if l.r != nil && !l.ended {
		l.r.fail(fmt.Errorf("%w: %s: sender closed", ErrChannelBroken, channelName(l.id)))
	}
	return nil
}

// checkMessage returns why m cannot be sent on channel id, if it cannot.
func checkMessage(m exchange.Message, id *floev1.ChannelID, ended bool) error {
	switch {
	case m.From != int(id.GetSender()):
		return fmt.Errorf("transport: message from sender %d", m.From)
	case ended:
		return errors.New("transport: send after end")
	case kinds(m) != 1:
		return errors.New("transport: a message holds exactly one of a batch, a barrier, a watermark or end")
	}
	return nil
}

// kinds counts what m holds of a batch, a barrier and end.
func kinds(m exchange.Message) int {
	n := 0
	for _, set := range []bool{m.Batch != nil, m.Barrier > 0, m.End, m.IsWatermark} {
		if set {
			n++
		}
	}
	return n
}

// putBatch returns m's batch, if any, to the pool.
func putBatch(m exchange.Message) {
	if m.Batch != nil {
		exchange.PutBatch(m.Batch)
	}
}

var _ exchange.Sender = (*LocalSender)(nil)
