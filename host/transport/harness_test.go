package transport

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/floe-stream/floe/host/exchange"
	"github.com/floe-stream/floe/host/record"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

// node is a task manager's exchange: a Server on a gRPC server over
// loopback TCP, and a client connection to it.
type node struct {
	srv  *Server
	gs   *grpc.Server
	conn *grpc.ClientConn
	addr string
}

// startNode serves a Server on lis and dials it; cleanup stops both.
func startNode(t testing.TB, lis net.Listener, opts ServerOptions) *node {
	n := &node{srv: NewServer(opts), gs: grpc.NewServer(GRPCServerOptions()...), addr: lis.Addr().String()}
	floev1.RegisterExchangeServer(n.gs, n.srv)
	var wg sync.WaitGroup
	wg.Go(func() { _ = n.gs.Serve(lis) })
	conn, err := grpc.NewClient(n.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	n.conn = conn
	t.Cleanup(func() {
		// NB: Close before Stop checks that releasing ends the
		// goroutines reading streams while gRPC still serves.
		n.srv.Close()
		conn.Close()
		n.gs.Stop()
		wg.Wait()
	})
	return n
}

// newNode checks goroutines and starts a node on a fresh port.
func newNode(t testing.TB, opts ServerOptions) *node {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return startNode(t, lis, opts)
}

var testKey = ChannelKey{Job: "job-1", Attempt: 2, Stage: 1, Subtask: 0}

func channelID(k ChannelKey, sender int) *floev1.ChannelID {
	return &floev1.ChannelID{JobId: k.Job, Attempt: k.Attempt, Stage: k.Stage, Subtask: k.Subtask, Sender: int32(sender)}
}

// sender returns a Sender of the node's channel from sender to testKey,
// closed at cleanup.
func (n *node) sender(t testing.TB, sender int, opts ...SenderOption) *Sender {
	s := NewSender(n.conn, channelID(testKey, sender), opts...)
	t.Cleanup(func() { s.Close() })
	return s
}

// receiverOf returns the server's receiver of key, or nil.
func (n *node) receiverOf(key ChannelKey) *receiver {
	n.srv.mu.Lock()
	defer n.srv.mu.Unlock()
	return n.srv.receivers[key]
}

// testBatch returns a pooled batch of n records from sender, numbered from
// seq on: the key holds the sender, the value and timestamp the number.
func testBatch(sender, seq, n int) *record.Batch {
	b := exchange.GetBatch()
	var k [4]byte
	var v [8]byte
	binary.BigEndian.PutUint32(k[:], uint32(sender))
	for i := range n {
		binary.BigEndian.PutUint64(v[:], uint64(seq+i))
		b.AppendKeyed(k[:], v[:], int64(seq+i), uint16(sender))
	}
	return b
}

// sendAll sends batches batches of perBatch records and the end.
func sendAll(ctx context.Context, s exchange.Sender, sender, batches, perBatch int) error {
	for i := range batches {
		if err := s.Send(ctx, exchange.Message{From: sender, Batch: testBatch(sender, i*perBatch, perBatch)}); err != nil {
			return fmt.Errorf("batch %d: %w", i, err)
		}
	}
	return s.Send(ctx, exchange.Message{From: sender, End: true})
}

// collect receives until every sender has ended and checks each sender's
// records arrived once and in order. It returns the records per sender.
func collect(ctx context.Context, r exchange.Receiver) ([]int, error) {
	return collectFrom(ctx, r, make([]int, r.Senders()))
}

// collectFrom is collect when sender i's next record is next[i].
func collectFrom(ctx context.Context, r exchange.Receiver, next []int) ([]int, error) {
	ends := exchange.NewEnds(r.Senders())
	for {
		m, err := r.Recv(ctx)
		if err != nil {
			return next, err
		}
		if m.End {
			if done, err := ends.Mark(m.From); err != nil || done {
				return next, err
			}
			continue
		}
		for i := range m.Batch.Records {
			rec := &m.Batch.Records[i]
			from := int(binary.BigEndian.Uint32(rec.Key))
			seq := int(binary.BigEndian.Uint64(rec.Value))
			if from != m.From || int(rec.KeyGroup) != from || seq != next[from] || rec.Timestamp != int64(seq) {
				return next, fmt.Errorf("from sender %d: record {%d %d %d}, want {%d %d}", m.From, from, seq, rec.Timestamp, m.From, next[m.From])
			}
			next[from]++
		}
		exchange.PutBatch(m.Batch)
	}
}

// eventually waits up to 10 s for cond.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
