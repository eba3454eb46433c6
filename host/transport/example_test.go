package transport_test

import (
	"context"
	"fmt"
	"net"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/floe-stream/floe/host/exchange"
	"github.com/floe-stream/floe/host/transport"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

// A receiving task manager serves the exchange; a sending one dials it and
// sends a batch and the end of its channel.
func Example() {
	// The receiving task manager.
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	gs := grpc.NewServer(transport.GRPCServerOptions()...)
	srv := transport.NewServer(transport.ServerOptions{})
	floev1.RegisterExchangeServer(gs, srv)
	go gs.Serve(lis)
	defer gs.Stop()
	defer srv.Close()

	key := transport.ChannelKey{Job: "wordcount", Attempt: 1, Stage: 1, Subtask: 0}
	in := srv.Receiver(key, 1, 4) // when deploying the receiving task
	defer srv.Release(key)        // when it has ended

	// The sending task manager.
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	out := transport.NewSender(conn, &floev1.ChannelID{JobId: "wordcount", Attempt: 1, Stage: 1, Subtask: 0, Sender: 0})
	defer out.Close()

	ctx := context.Background()
	go func() {
		b := exchange.GetBatch()
		b.Append([]byte("to"), []byte("be"), 1)
		_ = out.Send(ctx, exchange.Message{From: 0, Batch: b})
		_ = out.Send(ctx, exchange.Message{From: 0, End: true})
	}()
	for {
		m, err := in.Recv(ctx)
		if err != nil {
			panic(err)
		}
		if m.End {
			fmt.Println("end from sender", m.From)
			return
		}
		for _, r := range m.Batch.Records {
			fmt.Printf("%s=%s\n", r.Key, r.Value)
		}
		exchange.PutBatch(m.Batch)
	}
	// Output:
	// to=be
	// end from sender 0
}
