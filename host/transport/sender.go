package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/floe-stream/floe/host/exchange"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

// DefaultOpenTimeout is how long a Sender retries opening its channel while
// the receiving task manager is unavailable, unless WithOpenTimeout says
// otherwise.
const DefaultOpenTimeout = 30 * time.Second

// Delays between attempts to open a channel.
const (
	firstRetryDelay = 50 * time.Millisecond
	maxRetryDelay   = time.Second
)

// Sender is the sending end of a channel to a receiving task on another task
// manager, over one Transfer stream opened on the first Send. Send is called
// by one goroutine; Close may be called at any time.
type Sender struct {
	client      floev1.ExchangeClient
	id          *floev1.ChannelID
	openTimeout time.Duration
	// to is the receiving task manager, from the sending one.
	to, from Peer

	ctx    context.Context // parent of the stream; cancelled by Close
	cancel context.CancelFunc
	mu     sync.Mutex // guards closed and starting the reading goroutine
	closed bool
	wg     sync.WaitGroup

	// Owned by the goroutine calling Send.
	att      *attempt
	deadline time.Time     // until which opening is retried
	delay    time.Duration // before the next attempt
	buf      []byte
	msg      floev1.TransferMessage
	batch    floev1.TransferMessage_Batch
	err      error // sticky
	ended    bool

	// blocked is set while Send waits for credit.
	blocked atomic.Bool
}

// SenderOption configures a Sender.
type SenderOption func(*Sender)

// WithOpenTimeout sets how long a Sender retries opening its channel while
// the receiving task manager is unavailable.
func WithOpenTimeout(d time.Duration) SenderOption {
	return func(s *Sender) { s.openTimeout = d }
}

// WithPeers names the task managers at both ends of the channel: to, the
// receiving one, in the Sender's errors, and from, the sending one, in the
// receiver's errors when the channel breaks.
func WithPeers(from, to Peer) SenderOption {
	return func(s *Sender) { s.from, s.to = from, to }
}

// NewSender returns the sending end of channel id, over conn to the task
// manager that runs the receiving task. Nothing happens until the first
// Send.
func NewSender(conn grpc.ClientConnInterface, id *floev1.ChannelID, opts ...SenderOption) *Sender {
	s := &Sender{client: floev1.NewExchangeClient(conn), id: id, openTimeout: DefaultOpenTimeout}
	for _, o := range opts {
		o(s)
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.msg.Kind = &s.batch
	return s
}

// Send implements exchange.Sender. It takes m.Batch, which is back in the
// pool when Send returns, whatever it returns. A batch waits for a credit,
// which back-pressures the caller while the receiver's buffer for the
// channel is full. End returns once the receiver holds every batch and the
// end. m.From must be the channel's sender.
//
// Send fails when ctx is done, the channel broke, or the receiving task
// manager stayed unavailable; the error wraps the stream's gRPC status. A
// Sender that failed stays failed and has cut its stream, so the receiver
// fails too: a channel never loses a batch silently.
func (s *Sender) Send(ctx context.Context, m exchange.Message) error {
	if m.Batch != nil {
		s.buf = exchange.AppendBatch(s.buf[:0], m.Batch)
		exchange.PutBatch(m.Batch)
	}
	if s.err != nil {
		return s.err
	}
	err := checkMessage(m, s.id, s.ended)
	switch {
	case err != nil:
	case m.End:
		err = s.end(ctx)
	case m.Barrier > 0:
		err = s.sendBarrier(ctx, m.Barrier, m.Suspend)
	case m.IsWatermark:
		err = s.sendWatermark(ctx, m.Watermark, m.Idle)
	case len(s.buf) > MaxBatchBytes:
		err = fmt.Errorf("transport: batch of %d bytes exceeds MaxBatchBytes", len(s.buf))
	default:
		err = s.sendBatch(ctx)
	}
	if err != nil {
		s.err = fmt.Errorf("%s: %w", sendingName(s.id, s.to), err)
		if s.att != nil {
			s.att.cancel()
		}
		return s.err
	}
	return nil
}

// Close cuts the stream, unless the channel has ended, and waits for the
// Sender's goroutine to end. A channel cut before its end fails its
// receiver.
func (s *Sender) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	return nil
}

// sendBatch sends the batch encoded in buf once it holds a credit.
func (s *Sender) sendBatch(ctx context.Context) error {
	if err := s.acquire(ctx); err != nil {
		return err
	}
	s.batch.Batch = s.buf
	// NB: gRPC has marshalled the message when Send returns, so buf may be
	// reused, unless a stats handler on the connection keeps messages.
	if err := s.att.stream.Send(&s.msg); err != nil {
		return s.broken(ctx, err)
	}
	return nil
}

// sendBarrier sends a checkpoint barrier, marked suspend for a partial
// rescale's, once it holds a credit.
func (s *Sender) sendBarrier(ctx context.Context, id int64, suspend bool) error {
	if err := s.acquire(ctx); err != nil {
		return err
	}
	msg := &floev1.TransferMessage{Kind: &floev1.TransferMessage_Barrier{Barrier: id}}
	if suspend {
		msg.Kind = &floev1.TransferMessage_SuspendBarrier{SuspendBarrier: id}
	}
	if err := s.att.stream.Send(msg); err != nil {
		return s.broken(ctx, err)
	}
	return nil
}

// sendWatermark sends a watermark once it holds a credit.
func (s *Sender) sendWatermark(ctx context.Context, ts int64, idle bool) error {
	if err := s.acquire(ctx); err != nil {
		return err
	}
	wm := &floev1.TransferMessage_Watermark{Watermark: &floev1.Watermark{Timestamp: ts, Idle: idle}}
	if err := s.att.stream.Send(&floev1.TransferMessage{Kind: wm}); err != nil {
		return s.broken(ctx, err)
	}
	return nil
}

// acquire takes a credit, waiting for one, and opens the stream first if
// needed.
func (s *Sender) acquire(ctx context.Context) error {
	for {
		if s.att == nil {
			if err := s.open(ctx); err != nil {
				return err
			}
		}
		a := s.att
		if a.credits.Load() > 0 {
			a.credits.Add(-1)
			return nil
		}
		if err := s.waitCredit(ctx, a); err != nil {
			return err
		}
	}
}

// waitCredit waits for a to be granted credit. It returns nil when credit
// arrived, or when a failed before any and the stream should be opened
// again.
func (s *Sender) waitCredit(ctx context.Context, a *attempt) error {
	s.blocked.Store(true)
	defer s.blocked.Store(false)
	select {
	case <-a.notify:
		return nil
	case <-a.done:
		return s.retire(ctx)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// end sends the channel's end and waits for the receiver to close the
// stream.
func (s *Sender) end(ctx context.Context) error {
	s.ended = true
	for {
		if s.att == nil {
			if err := s.open(ctx); err != nil {
				return err
			}
		}
		a := s.att
		err := a.stream.Send(&floev1.TransferMessage{Kind: &floev1.TransferMessage_End{End: true}})
		if err == nil {
			err = a.stream.CloseSend()
		}
		if err != nil && err != io.EOF {
			return err
		}
		select {
		case <-a.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if a.err == io.EOF {
			return nil
		}
		if err := s.retire(ctx); err != nil {
			return err
		}
	}
}

// broken returns why the stream broke, once its reader has learned it.
func (s *Sender) broken(ctx context.Context, err error) error {
	if err != io.EOF {
		return err
	}
	select {
	case <-s.att.done:
		return s.att.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// retire handles the end of the stream before the channel's end. When the
// stream failed as unavailable before it was granted credit, nothing was
// delivered on it: it returns nil after a delay, and the next attempt opens
// a new stream. Otherwise it returns why the stream ended.
func (s *Sender) retire(ctx context.Context) error {
	a := s.att
	err := a.err
	if err == io.EOF {
		return errors.New("transport: receiver closed the stream before end")
	}
	if a.granted.Load() || status.Code(err) != codes.Unavailable {
		return err
	}
	s.att = nil
	return s.backoff(ctx, err)
}

// open opens the stream, retrying while the receiving task manager is
// unavailable, until the deadline set by the first attempt.
func (s *Sender) open(ctx context.Context) error {
	if s.deadline.IsZero() {
		s.deadline = time.Now().Add(s.openTimeout)
		s.delay = firstRetryDelay
	}
	for {
		err := s.tryOpen(ctx)
		if err == nil {
			return nil
		}
		if status.Code(err) != codes.Unavailable {
			return err
		}
		if err := s.backoff(ctx, err); err != nil {
			return err
		}
	}
}

// backoff waits before the next attempt to open, or fails when opening
// has been retried for long enough.
func (s *Sender) backoff(ctx context.Context, cause error) error {
	if !time.Now().Before(s.deadline) {
		return fmt.Errorf("transport: receiving task manager unavailable for %v: %w", s.openTimeout, cause)
	}
	t := time.NewTimer(s.delay)
	defer t.Stop()
	s.delay = min(2*s.delay, maxRetryDelay)
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.ctx.Done():
		return ErrClosed
	}
}

// tryOpen opens a stream and names the channel on it. Cancelling ctx
// aborts the attempt but not the stream it opened.
func (s *Sender) tryOpen(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	sctx, cancel := context.WithCancel(s.ctx)
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	stream, err := s.client.Transfer(metadata.AppendToOutgoingContext(sctx, mdTaskManager, s.from.TaskManager, mdAddr, s.from.Addr))
	if err == nil {
		err = stream.Send(&floev1.TransferMessage{Kind: &floev1.TransferMessage_Open{Open: s.id}})
		if err == io.EOF {
			err = drain(stream)
		}
	}
	if err != nil {
		cancel()
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if s.ctx.Err() != nil {
			return ErrClosed
		}
		return err
	}
	a := &attempt{stream: stream, cancel: cancel, notify: make(chan struct{}, 1), done: make(chan struct{})}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		cancel()
		return ErrClosed
	}
	s.wg.Go(a.read)
	s.att = a
	return nil
}

// attempt is one Transfer stream of a Sender.
type attempt struct {
	stream  grpc.BidiStreamingClient[floev1.TransferMessage, floev1.Credit]
	cancel  context.CancelFunc
	credits atomic.Int32
	granted atomic.Bool   // some credit arrived
	notify  chan struct{} // signalled when credit arrives
	done    chan struct{} // closed when the stream has ended
	err     error         // why; io.EOF for a clean close. Set before done is closed.
}

// read receives credits until the stream ends.
func (a *attempt) read() {
	defer close(a.done)
	for {
		c, err := a.stream.Recv()
		if err != nil {
			a.err = err
			return
		}
		n := c.GetBatches()
		if n <= 0 {
			a.err = fmt.Errorf("%w: receiver granted %d credits", errProtocol, n)
			a.cancel()
			return
		}
		a.granted.Store(true)
		a.credits.Add(n)
		select {
		case a.notify <- struct{}{}:
		default:
		}
	}
}

// drain returns why a stream that refused a message ended.
func drain(stream grpc.BidiStreamingClient[floev1.TransferMessage, floev1.Credit]) error {
	for {
		if _, err := stream.Recv(); err == io.EOF {
			return fmt.Errorf("%w: stream closed before end", errProtocol)
		} else if err != nil {
			return err
		}
	}
}

var _ exchange.Sender = (*Sender)(nil)
