package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/floe-stream/floe/host/exchange"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

// DefaultRegisterTimeout is how long a channel waits for its receiving task
// to be deployed unless ServerOptions says otherwise.
const DefaultRegisterTimeout = 30 * time.Second

// MaxBatchBytes is the largest encoded batch a channel carries. The
// grpc.Server serving a Server must accept messages this large; see
// GRPCServerOptions.
const MaxBatchBytes = 64 << 20

// GRPCServerOptions returns the options the grpc.Server serving a Server
// needs: a receive limit that admits batches of MaxBatchBytes.
func GRPCServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{grpc.MaxRecvMsgSize(MaxBatchBytes + 1024)}
}

// ServerOptions configure a Server.
type ServerOptions struct {
	// RegisterTimeout bounds how long a channel that arrives before its
	// receiving task waits for the task to be registered. 0 means
	// DefaultRegisterTimeout.
	RegisterTimeout time.Duration
}

// Server serves the Exchange service of a task manager: it delivers the
// channels that arrive into the receivers of the tasks it runs. Its methods
// are safe for concurrent use.
type Server struct {
	floev1.UnimplementedExchangeServer
	opts ServerOptions

	mu        sync.Mutex
	receivers map[ChannelKey]*receiver
	closed    bool
	wg        sync.WaitGroup // the goroutines reading streams
}

// NewServer returns a Server; register it on a grpc.Server with
// floev1.RegisterExchangeServer.
func NewServer(opts ServerOptions) *Server {
	if opts.RegisterTimeout <= 0 {
		opts.RegisterTimeout = DefaultRegisterTimeout
	}
	return &Server{opts: opts, receivers: make(map[ChannelKey]*receiver)}
}

// Receiver registers the receiving task key, which has senders upstream
// subtasks, and returns its input. Each channel may have perSenderBatches
// batches in the receiver's buffer (at least 1). Channels that arrived
// before the call start flowing now.
//
// Receiver is called once per key until Release; a second call, or
// senders < 1, returns a Receiver whose Recv fails. The Receiver is used by
// one goroutine; its Recv returns an error wrapping ErrChannelBroken when a
// channel broke before its end, and ErrReleased after Release.
func (s *Server) Receiver(key ChannelKey, senders, perSenderBatches int) exchange.Receiver {
	if senders < 1 {
		return errReceiver{fmt.Errorf("%w %v: %d senders", errBadReceiver, key, senders), senders}
	}
	perSenderBatches = max(perSenderBatches, 1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errReceiver{ErrClosed, senders}
	}
	r := s.lookupLocked(key)
	if r.isRegistered {
		return errReceiver{fmt.Errorf("%w %v: registered twice", errBadReceiver, key), senders}
	}
	r.register(senders, perSenderBatches)
	return r
}

// Release forgets the receiving task key and cuts its channels: senders
// still sending to it fail with Aborted. The task manager calls it when the
// task has ended, whatever the outcome.
func (s *Server) Release(key ChannelKey) {
	s.mu.Lock()
	r := s.receivers[key]
	delete(s.receivers, key)
	s.mu.Unlock()
	if r != nil {
		r.release()
	}
}

// Close releases every receiver, refuses new channels and waits for the
// goroutines of the channels to end. The grpc.Server must still serve, or
// have stopped, for the channels' streams to end.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	rs := s.receivers
	s.receivers = nil
	s.mu.Unlock()
	for _, r := range rs {
		r.release()
	}
	s.wg.Wait()
}

// lookupLocked returns the receiver of key, creating it on first touch.
func (s *Server) lookupLocked(key ChannelKey) *receiver {
	r := s.receivers[key]
	if r == nil {
		r = newReceiver(key)
		s.receivers[key] = r
	}
	return r
}

// await returns the receiver of key once its task is registered.
func (s *Server) await(ctx context.Context, key ChannelKey) (*receiver, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	r := s.lookupLocked(key)
	r.waiters++
	s.mu.Unlock()
	defer s.unwait(r)

	t := time.NewTimer(s.opts.RegisterTimeout)
	defer t.Stop()
	select {
	case <-r.registered:
		return r, nil
	case <-r.released:
		return nil, r.releasedErr()
	case <-t.C:
		return nil, fmt.Errorf("%w within %v", errNotRegistered, s.opts.RegisterTimeout)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// unwait ends a wait for r, forgetting r when nothing touched it but
// waiters that gave up.
func (s *Server) unwait(r *receiver) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r.waiters--
	if r.waiters == 0 && !r.isRegistered && s.receivers[r.key] == r {
		delete(s.receivers, r.key)
	}
}

// Transfer implements floev1.ExchangeServer: it receives one channel.
func (s *Server) Transfer(stream floev1.Exchange_TransferServer) error {
	first, err := stream.Recv()
	if err == io.EOF {
		return toStatus(fmt.Errorf("%w: stream closed before open", errProtocol))
	}
	if err != nil {
		return err
	}
	id := first.GetOpen()
	if id == nil {
		return toStatus(fmt.Errorf("%w: first message is not open", errProtocol))
	}
	r, err := s.await(stream.Context(), keyOf(id))
	if err != nil {
		return toStatus(err)
	}
	ch, err := r.attach(int(id.GetSender()), true)
	if err != nil {
		return toStatus(err)
	}
	err = s.serve(stream, r, ch)
	if err != nil && !errors.Is(err, ErrReleased) {
		err = fmt.Errorf("%w: %s: %w", ErrChannelBroken, receivingName(id, sendingPeer(stream.Context())), err)
		r.fail(err)
	}
	return toStatus(err)
}

// serve runs an attached channel until its end: a goroutine reads the
// stream into the receiver while this one sends credits.
func (s *Server) serve(stream floev1.Exchange_TransferServer, r *receiver, ch *channel) error {
	done := make(chan error, 1)
	if !s.start(func() { done <- read(stream, r, ch) }) {
		return ErrClosed
	}
	for {
		select {
		case <-ch.notify:
			if n := ch.owed.Swap(0); n > 0 {
				// NB: an error here means the stream broke; read reports
				// why.
				_ = stream.Send(&floev1.Credit{Batches: n})
			}
		case err := <-done:
			return err
		case <-r.released:
			if ch.ended.Load() {
				return nil
			}
			return r.releasedErr()
		}
	}
}

// start runs f in a goroutine of the server unless it is closed.
//
// NB: a reading goroutine may outlive its Transfer call: it is blocked in
// stream.Recv, which returns once gRPC has ended the stream.
func (s *Server) start(f func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.wg.Go(f)
	return true
}

// read moves the channel's batches into the receiver until its end. It
// returns nil after the end, and why the channel broke otherwise.
func read(stream floev1.Exchange_TransferServer, r *receiver, ch *channel) error {
	for {
		m, err := stream.Recv()
		if err == io.EOF {
			return fmt.Errorf("%w: stream closed without end", errProtocol)
		}
		if err != nil {
			return err
		}
		switch k := m.GetKind().(type) {
		case *floev1.TransferMessage_Batch:
			if !ch.spend() {
				return errNoCredit
			}
			b := exchange.GetBatch()
			if err := exchange.DecodeBatch(k.Batch, b); err != nil {
				exchange.PutBatch(b)
				return fmt.Errorf("%w: %w", errProtocol, err)
			}
			if err := r.push(exchange.Message{From: ch.from, Batch: b}); err != nil {
				return err
			}
		case *floev1.TransferMessage_Barrier:
			if !ch.spend() {
				return errNoCredit
			}
			if err := r.push(exchange.Message{From: ch.from, Barrier: k.Barrier}); err != nil {
				return err
			}
		case *floev1.TransferMessage_SuspendBarrier:
			if !ch.spend() {
				return errNoCredit
			}
			if k.SuspendBarrier <= 0 {
				return fmt.Errorf("%w: suspend barrier %d", errProtocol, k.SuspendBarrier)
			}
			if err := r.push(exchange.Message{From: ch.from, Barrier: k.SuspendBarrier, Suspend: true}); err != nil {
				return err
			}
		case *floev1.TransferMessage_Watermark:
			if !ch.spend() {
				return errNoCredit
			}
			if k.Watermark == nil {
				return fmt.Errorf("%w: empty watermark", errProtocol)
			}
			if err := r.push(exchange.Message{From: ch.from, IsWatermark: true, Watermark: k.Watermark.Timestamp, Idle: k.Watermark.Idle}); err != nil {
				return err
			}
		case *floev1.TransferMessage_End:
			if !k.End {
				return fmt.Errorf("%w: end is false", errProtocol)
			}
			ch.ended.Store(true)
			return r.push(exchange.Message{From: ch.from, End: true})
		default:
			return fmt.Errorf("%w: unexpected %T", errProtocol, k)
		}
	}
}

// sendingPeer returns the sending task manager of a channel's stream, as
// its Sender named it (WithPeers).
func sendingPeer(ctx context.Context) Peer {
	md, _ := metadata.FromIncomingContext(ctx)
	first := func(key string) string {
		if v := md.Get(key); len(v) > 0 {
			return v[0]
		}
		return ""
	}
	return Peer{TaskManager: first(mdTaskManager), Addr: first(mdAddr)}
}
