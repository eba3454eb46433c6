package transport

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/exchange"
)

func TestPeerString(t *testing.T) {
	tests := []struct {
		peer Peer
		want string
	}{
		{Peer{TaskManager: "tm-1", Addr: "10.0.0.1:7000"}, "task manager tm-1 at 10.0.0.1:7000"},
		{Peer{TaskManager: "tm-1"}, "task manager tm-1"},
		{Peer{Addr: "10.0.0.1:7000"}, "task manager at 10.0.0.1:7000"},
		{Peer{}, ""},
	}
	for _, tt := range tests {
		if got := tt.peer.String(); got != tt.want {
			t.Errorf("%#v: %q, want %q", tt.peer, got, tt.want)
		}
	}
}

// TestBrokenChannelNamesPeer checks that each end of a broken channel
// names the task manager at the other end, so that the scheduler can
// blame a lost one rather than the task that saw the break.
func TestBrokenChannelNamesPeer(t *testing.T) {
	from := Peer{TaskManager: "tm-2", Addr: "10.0.0.2:7000"}

	t.Run("receiving end", func(t *testing.T) {
		n := newNode(t, ServerOptions{})
		ctx := context.Background()
		r := n.srv.Receiver(testKey, 1, 4)
		defer n.srv.Release(testKey)
		s := n.sender(t, 0, WithPeers(from, Peer{TaskManager: "tm-1", Addr: n.addr}))
		if err := s.Send(ctx, exchange.Message{Batch: testBatch(0, 0, 1)}); err != nil {
			t.Fatal(err)
		}
		s.Close()
		_, err := collect(ctx, r)
		if !errors.Is(err, ErrChannelBroken) {
			t.Fatalf("Recv: %v, want ErrChannelBroken", err)
		}
		if want := "channel from sender 0 (task manager tm-2 at 10.0.0.2:7000) to " + testKey.String(); !strings.Contains(err.Error(), want) {
			t.Fatalf("Recv: %v, want it to name the sender's task manager: %q", err, want)
		}
	})

	t.Run("sending end", func(t *testing.T) {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := lis.Addr().String()
		lis.Close()
		s := NewSender(dialFast(t, addr), channelID(testKey, 0), WithOpenTimeout(100*time.Millisecond),
			WithPeers(from, Peer{TaskManager: "tm-1", Addr: addr}))
		defer s.Close()
		err = s.Send(context.Background(), exchange.Message{End: true})
		if err == nil {
			t.Fatal("Send to a task manager that is gone succeeded")
		}
		if want := "on task manager tm-1 at " + addr + ":"; !strings.Contains(err.Error(), want) {
			t.Fatalf("Send: %v, want it to name the receiving task manager: %q", err, want)
		}
	})

	t.Run("unnamed", func(t *testing.T) {
		n := newNode(t, ServerOptions{})
		ctx := context.Background()
		r := n.srv.Receiver(testKey, 1, 4)
		defer n.srv.Release(testKey)
		s := n.sender(t, 0)
		if err := s.Send(ctx, exchange.Message{Batch: testBatch(0, 0, 1)}); err != nil {
			t.Fatal(err)
		}
		s.Close()
		_, err := collect(ctx, r)
		if want := "channel from sender 0 to " + testKey.String(); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("Recv: %v, want %q", err, want)
		}
	})
}
