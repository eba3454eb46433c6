package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/floe-stream/floe/host/exchange"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

func TestManySendersDeliverEveryRecordInOrder(t *testing.T) {
	n := newNode(t, ServerOptions{})
	ctx := context.Background()
	const senders, batches, perBatch = 8, 100, 37
	r := n.srv.Receiver(testKey, senders, 2)
	defer n.srv.Release(testKey)

	var wg sync.WaitGroup
	errs := make([]error, senders)
	for i := range senders {
		s := n.sender(t, i)
		wg.Go(func() { errs[i] = sendAll(ctx, s, i, batches, perBatch) })
	}
	got, err := collect(ctx, r)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	for i, err := range errs {
		if err != nil {
			t.Errorf("sender %d: %v", i, err)
		}
		if got[i] != batches*perBatch {
			t.Errorf("sender %d: %d records, want %d", i, got[i], batches*perBatch)
		}
	}
}

func TestLocalAndRemoteSendersMix(t *testing.T) {
	n := newNode(t, ServerOptions{})
	ctx := context.Background()
	r := n.srv.Receiver(testKey, 2, 1)
	defer n.srv.Release(testKey)
	local := n.srv.LocalSender(channelID(testKey, 0))
	remote := n.sender(t, 1)
	var wg sync.WaitGroup
	var lerr, rerr error
	wg.Go(func() { lerr = sendAll(ctx, local, 0, 50, 10) })
	wg.Go(func() { rerr = sendAll(ctx, remote, 1, 50, 10) })
	got, err := collect(ctx, r)
	wg.Wait()
	if err != nil || lerr != nil || rerr != nil {
		t.Fatalf("receiver: %v; local: %v; remote: %v", err, lerr, rerr)
	}
	if got[0] != 500 || got[1] != 500 {
		t.Fatalf("got %v records, want 500 from each", got)
	}
}

func TestEmptyChannelsEnd(t *testing.T) {
	n := newNode(t, ServerOptions{})
	ctx := context.Background()
	r := n.srv.Receiver(testKey, 3, 4)
	defer n.srv.Release(testKey)
	for i := range 3 {
		if err := n.sender(t, i).Send(ctx, exchange.Message{From: i, End: true}); err != nil {
			t.Fatalf("End of sender %d: %v", i, err)
		}
	}
	if _, err := collect(ctx, r); err != nil {
		t.Fatal(err)
	}
}

// TestCreditsBoundBuffering checks, by what the server holds, that a sender
// stops after perSenderBatches batches while the task does not consume,
// and sends one more for each batch consumed.
func TestCreditsBoundBuffering(t *testing.T) {
	n := newNode(t, ServerOptions{})
	ctx := context.Background()
	const per = 3
	r := n.srv.Receiver(testKey, 1, per)
	defer n.srv.Release(testKey)
	s := n.sender(t, 0)

	var sent atomic.Int32
	var wg sync.WaitGroup
	var serr error
	wg.Go(func() {
		for i := range 10 {
			if serr = s.Send(ctx, exchange.Message{Batch: testBatch(0, i, 1)}); serr != nil {
				return
			}
			sent.Add(1)
		}
		serr = s.Send(ctx, exchange.Message{End: true})
	})
	rcv := n.receiverOf(testKey)
	held := func(batches int32) func() bool {
		return func() bool {
			return rcv.Pending() == per && s.blocked.Load() && sent.Load() == batches
		}
	}
	eventually(t, "the sender to block with the buffer full", held(per))
	if got := rcv.chans[0].Load().avail.Load(); got != 0 {
		t.Errorf("sender may still send %d batches, want 0", got)
	}
	for consumed := 1; consumed <= 2; consumed++ {
		m, err := r.Recv(ctx)
		if err != nil {
			t.Fatal(err)
		}
		exchange.PutBatch(m.Batch)
		eventually(t, "one more batch after a consume", held(int32(per+consumed)))
	}
	if _, err := collectFrom(ctx, r, []int{2}); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if serr != nil {
		t.Fatal(serr)
	}
}

// TestSendWithoutCreditFailsStream sends more batches than granted on a
// raw stream: the server never holds more than granted, and fails the
// stream and the receiver.
func TestSendWithoutCreditFailsStream(t *testing.T) {
	n := newNode(t, ServerOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const per = 2
	r := n.srv.Receiver(testKey, 1, per)
	defer n.srv.Release(testKey)

	stream, err := floev1.NewExchangeClient(n.conn).Transfer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&floev1.TransferMessage{Kind: &floev1.TransferMessage_Open{Open: channelID(testKey, 0)}}); err != nil {
		t.Fatal(err)
	}
	c, err := stream.Recv()
	if err != nil || c.Batches != per {
		t.Fatalf("initial credit: %v, %v; want %d batches", c, err, per)
	}
	batch := exchange.AppendBatch(nil, testBatch(0, 0, 1))
	for range per + 1 {
		if err := stream.Send(&floev1.TransferMessage{Kind: &floev1.TransferMessage_Batch{Batch: batch}}); err != nil {
			break
		}
	}
	_, err = stream.Recv()
	if status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("stream ended with %v, want FailedPrecondition", err)
	}
	if p := n.receiverOf(testKey).Pending(); p > per {
		t.Errorf("server holds %d batches, want at most %d", p, per)
	}
	if _, err := collect(ctx, r); !errors.Is(err, ErrChannelBroken) {
		t.Fatalf("Recv: %v, want ErrChannelBroken", err)
	}
}

// TestBrokenChannelFailsReceiver breaks a channel mid-way in several ways:
// each must make Recv fail, never look like an end.
func TestBrokenChannelFailsReceiver(t *testing.T) {
	tests := []struct {
		name string
		cut  func(t *testing.T, n *node, s *Sender)
	}{
		{"sender closed", func(t *testing.T, n *node, s *Sender) { s.Close() }},
		{"connection closed", func(t *testing.T, n *node, s *Sender) { n.conn.Close() }},
		{"send context cancelled", func(t *testing.T, n *node, s *Sender) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if err := s.Send(ctx, exchange.Message{Batch: testBatch(0, 10, 1)}); err == nil {
				t.Error("Send with a cancelled context succeeded")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := newNode(t, ServerOptions{})
			ctx := context.Background()
			r := n.srv.Receiver(testKey, 2, 4)
			defer n.srv.Release(testKey)
			ok := n.sender(t, 1)
			s := n.sender(t, 0)
			// Fill the buffer, consume one batch and send one more, so
			// that the channel is mid-way with credits flowing.
			for i := range 5 {
				if i == 4 {
					m, err := r.Recv(ctx)
					if err != nil {
						t.Fatal(err)
					}
					exchange.PutBatch(m.Batch)
				}
				if err := s.Send(ctx, exchange.Message{Batch: testBatch(0, i, 1)}); err != nil {
					t.Fatal(err)
				}
			}
			if err := ok.Send(ctx, exchange.Message{From: 1, End: true}); err != nil {
				t.Fatal(err)
			}
			tt.cut(t, n, s)
			_, err := collectFrom(ctx, r, []int{1, 0})
			if !errors.Is(err, ErrChannelBroken) {
				t.Fatalf("Recv after the break: %v, want ErrChannelBroken", err)
			}
			t.Log(err)
			if err := s.Send(ctx, exchange.Message{End: true}); err == nil {
				t.Error("End after the break succeeded")
			}
		})
	}
}

func TestStreamArrivesBeforeReceiver(t *testing.T) {
	n := newNode(t, ServerOptions{})
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range 3 {
		s := n.sender(t, i)
		wg.Go(func() { errs[i] = sendAll(ctx, s, i, 20, 5) })
	}
	local := n.srv.LocalSender(channelID(testKey, 3))
	var lerr error
	wg.Go(func() { lerr = sendAll(ctx, local, 3, 20, 5) })
	eventually(t, "every channel to wait for the receiver", func() bool {
		r := n.receiverOf(testKey)
		n.srv.mu.Lock()
		defer n.srv.mu.Unlock()
		return r != nil && r.waiters == 4
	})
	r := n.srv.Receiver(testKey, 4, 2)
	defer n.srv.Release(testKey)
	got, err := collect(ctx, r)
	wg.Wait()
	if err := errors.Join(append(errs, err, lerr)...); err != nil {
		t.Fatal(err)
	}
	for i, c := range got {
		if c != 100 {
			t.Errorf("sender %d: %d records, want 100", i, c)
		}
	}
}

func TestReceiverNeverDeployed(t *testing.T) {
	n := newNode(t, ServerOptions{RegisterTimeout: 100 * time.Millisecond})
	err := n.sender(t, 0).Send(context.Background(), exchange.Message{Batch: testBatch(0, 0, 1)})
	if !isCode(err, codes.NotFound) {
		t.Fatalf("Send: %v, want NotFound", err)
	}
	t.Log(err)
	if r := n.receiverOf(testKey); r != nil {
		t.Error("the server still tracks the receiver after the timeout")
	}
}

func TestReleaseCutsSenders(t *testing.T) {
	n := newNode(t, ServerOptions{})
	ctx := context.Background()
	r := n.srv.Receiver(testKey, 2, 1)
	remote := n.sender(t, 0)
	local := n.srv.LocalSender(channelID(testKey, 1))
	var wg sync.WaitGroup
	var rerr, lerr error
	wg.Go(func() { rerr = sendAll(ctx, remote, 0, 5, 1) })
	wg.Go(func() { lerr = sendAll(ctx, local, 1, 5, 1) })
	eventually(t, "both senders to fill the buffer", func() bool { return n.receiverOf(testKey).Pending() == 2 })
	n.srv.Release(testKey)
	wg.Wait()
	if !isCode(rerr, codes.Aborted) {
		t.Errorf("remote Send after Release: %v, want Aborted", rerr)
	}
	t.Log(rerr)
	if !errors.Is(lerr, ErrReleased) {
		t.Errorf("local Send after Release: %v, want ErrReleased", lerr)
	}
	if _, err := r.Recv(ctx); !errors.Is(err, ErrReleased) {
		t.Errorf("Recv after Release: %v, want ErrReleased", err)
	}
}

func TestDuplicateChannelRefused(t *testing.T) {
	n := newNode(t, ServerOptions{})
	ctx := context.Background()
	n.srv.Receiver(testKey, 1, 1)
	defer n.srv.Release(testKey)
	if err := n.sender(t, 0).Send(ctx, exchange.Message{Batch: testBatch(0, 0, 1)}); err != nil {
		t.Fatal(err)
	}
	err := n.sender(t, 0).Send(ctx, exchange.Message{Batch: testBatch(0, 0, 1)})
	if !isCode(err, codes.AlreadyExists) {
		t.Fatalf("second channel from sender 0: %v, want AlreadyExists", err)
	}
	err = n.sender(t, 5).Send(ctx, exchange.Message{From: 5, End: true})
	if !isCode(err, codes.InvalidArgument) {
		t.Fatalf("channel from sender 5 of 1: %v, want InvalidArgument", err)
	}
}

func TestReceiverMisuse(t *testing.T) {
	srv := NewServer(ServerOptions{})
	defer srv.Close()
	srv.Receiver(testKey, 1, 1)
	if _, err := srv.Receiver(testKey, 1, 1).Recv(context.Background()); err == nil {
		t.Error("a second Receiver for the same key works")
	}
	if _, err := srv.Receiver(ChannelKey{Job: "other"}, 0, 1).Recv(context.Background()); err == nil {
		t.Error("a Receiver without senders works")
	}
}

// TestOpenRetriesWhileUnavailable starts the receiving task manager after
// the sender first tried to reach it.
func TestOpenRetriesWhileUnavailable(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	conn := dialFast(t, addr)
	s := NewSender(conn, channelID(testKey, 0))
	defer s.Close()
	done := make(chan error, 1)
	var wg sync.WaitGroup
	wg.Go(func() { done <- sendAll(context.Background(), s, 0, 3, 2) })
	defer wg.Wait()
	eventually(t, "the connection to fail", func() bool { return conn.GetState() == connectivity.TransientFailure })

	lis, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("port %s was taken meanwhile: %v", addr, err)
	}
	n := startNode(t, lis, ServerOptions{})
	r := n.srv.Receiver(testKey, 1, 1)
	defer n.srv.Release(testKey)
	got, err := collect(context.Background(), r)
	if err := errors.Join(err, <-done); err != nil {
		t.Fatal(err)
	}
	if got[0] != 6 {
		t.Fatalf("%d records, want 6", got[0])
	}
}

func TestOpenTimesOut(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	s := NewSender(dialFast(t, addr), channelID(testKey, 0), WithOpenTimeout(300*time.Millisecond))
	defer s.Close()
	err = s.Send(context.Background(), exchange.Message{End: true})
	if !isCode(err, codes.Unavailable) {
		t.Fatalf("Send: %v, want Unavailable", err)
	}
	t.Log(err)
}

// dialFast returns a connection to addr that retries connecting quickly.
func dialFast(t testing.TB, addr string) *grpc.ClientConn {
	conn, err := grpc.NewClient(addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 20 * time.Millisecond, Multiplier: 1.5, MaxDelay: 100 * time.Millisecond},
			MinConnectTimeout: time.Second,
		}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// isCode reports whether err carries a gRPC status with code.
func isCode(err error, code codes.Code) bool {
	s, ok := status.FromError(err)
	return ok && s.Code() == code
}

func TestCloseSendWithoutEndFailsReceiver(t *testing.T) {
	n := newNode(t, ServerOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := n.srv.Receiver(testKey, 1, 1)
	defer n.srv.Release(testKey)
	stream, err := floev1.NewExchangeClient(n.conn).Transfer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&floev1.TransferMessage{Kind: &floev1.TransferMessage_Open{Open: channelID(testKey, 0)}}); err != nil {
		t.Fatal(err)
	}
	if err := stream.CloseSend(); err != nil {
		t.Fatal(err)
	}
	if _, err := collect(ctx, r); !errors.Is(err, ErrChannelBroken) {
		t.Fatalf("Recv: %v, want ErrChannelBroken", err)
	}
	for err == nil {
		_, err = stream.Recv()
	}
	if !isCode(err, codes.InvalidArgument) {
		t.Fatalf("stream ended with %v, want InvalidArgument", err)
	}
}

func TestLocalSenderClosedBeforeEndFailsReceiver(t *testing.T) {
	n := newNode(t, ServerOptions{})
	ctx := context.Background()
	r := n.srv.Receiver(testKey, 1, 4)
	defer n.srv.Release(testKey)
	l := n.srv.LocalSender(channelID(testKey, 0))
	if err := l.Send(ctx, exchange.Message{Batch: testBatch(0, 0, 3)}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if _, err := collect(ctx, r); !errors.Is(err, ErrChannelBroken) {
		t.Fatalf("Recv: %v, want ErrChannelBroken", err)
	}
}

// TestReceivingTaskManagerDies stops the receiving side while a sender
// that has delivered a batch waits for credit: Send must fail at once, not
// retry or hang.
func TestReceivingTaskManagerDies(t *testing.T) {
	n := newNode(t, ServerOptions{})
	ctx := context.Background()
	n.srv.Receiver(testKey, 1, 1)
	s := n.sender(t, 0)
	done := make(chan error, 1)
	var wg sync.WaitGroup
	wg.Go(func() { done <- sendAll(ctx, s, 0, 3, 1) })
	defer wg.Wait()
	eventually(t, "the sender to wait for credit after a batch", func() bool {
		return n.receiverOf(testKey).Pending() == 1 && s.blocked.Load()
	})
	n.gs.Stop()
	if err := <-done; err == nil {
		t.Fatal("Send succeeded after the receiving task manager stopped")
	} else {
		t.Log(err)
	}
}

// TestBarriersTakeCredit sends a barrier between batches on a remote and a
// local channel with one credit each: the barrier arrives in its place and
// holds the credit until it is consumed.
func TestBarriersTakeCredit(t *testing.T) {
	n := newNode(t, ServerOptions{})
	ctx := context.Background()
	r := n.srv.Receiver(testKey, 2, 1)
	defer n.srv.Release(testKey)
	senders := []exchange.Sender{n.sender(t, 0), n.srv.LocalSender(channelID(testKey, 1))}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, s := range senders {
		wg.Go(func() {
			errs[i] = errors.Join(
				s.Send(ctx, exchange.Message{From: i, Barrier: 7}),
				s.Send(ctx, exchange.Message{From: i, Batch: testBatch(i, 0, 2)}),
				s.Send(ctx, exchange.Message{From: i, End: true}))
		})
	}
	rcv := n.receiverOf(testKey)
	remote := senders[0].(*Sender)
	eventually(t, "both barriers to fill the buffer", func() bool { return rcv.Pending() == 2 && remote.blocked.Load() })
	for i := range 2 {
		m, err := r.Recv(ctx)
		if err != nil || m.Barrier != 7 {
			t.Fatalf("Recv: %+v, %v; want barrier 7", m, err)
		}
		// The consumed barrier's credit lets its channel send its batch,
		// then its end.
		eventually(t, "the batch and end after a consumed barrier", func() bool { return rcv.Pending() == 3+i })
	}
	got, err := collect(ctx, r)
	wg.Wait()
	if err := errors.Join(append(errs, err)...); err != nil {
		t.Fatal(err)
	}
	if got[0] != 2 || got[1] != 2 {
		t.Fatalf("got %v records, want 2 from each", got)
	}
}

// TestSuspendBarriersKeepTheirMark sends a plain barrier, then a partial
// rescale's suspend barrier, on a remote and a local channel: each arrives
// with its mark, in its place.
func TestSuspendBarriersKeepTheirMark(t *testing.T) {
	n := newNode(t, ServerOptions{})
	ctx := context.Background()
	r := n.srv.Receiver(testKey, 2, 4)
	defer n.srv.Release(testKey)
	senders := []exchange.Sender{n.sender(t, 0), n.srv.LocalSender(channelID(testKey, 1))}
	sent := []exchange.Message{{Barrier: 3}, {Barrier: 4, Suspend: true}, {End: true}}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, s := range senders {
		wg.Go(func() {
			for _, m := range sent {
				m.From = i
				errs[i] = errors.Join(errs[i], s.Send(ctx, m))
			}
		})
	}
	var got [2][]string
	for ended := 0; ended < 2; {
		m, err := r.Recv(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got[m.From] = append(got[m.From], fmt.Sprintf("barrier %d suspend %t end %t", m.Barrier, m.Suspend, m.End))
		if m.End {
			ended++
		}
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	want := []string{"barrier 3 suspend false end false", "barrier 4 suspend true end false", "barrier 0 suspend false end true"}
	for i := range got {
		if !slices.Equal(got[i], want) {
			t.Errorf("channel %d: got %q, want %q", i, got[i], want)
		}
	}
}
