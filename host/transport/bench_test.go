package transport

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/floe-stream/floe/host/exchange"
	"github.com/floe-stream/floe/host/record"
)

// BenchmarkTransfer moves batches of 1024 100-byte records (16-byte key,
// 84-byte value) through one channel over loopback TCP; an iteration is
// one batch.
func BenchmarkTransfer(b *testing.B) {
	for _, per := range []int{2, 8} {
		b.Run(fmt.Sprintf("credits=%d", per), func(b *testing.B) { benchTransfer(b, per) })
	}
}

func benchTransfer(b *testing.B, per int) {
	const perBatch = 1024
	n := newNode(b, ServerOptions{})
	ctx := context.Background()
	key := ChannelKey{Job: "bench", Stage: 1}
	r := n.srv.Receiver(key, 1, per)
	defer n.srv.Release(key)
	s := NewSender(n.conn, channelID(key, 0))
	defer s.Close()
	template := benchRecords(perBatch)

	b.SetBytes(perBatch * 100)
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	var serr error
	wg.Go(func() {
		for range b.N {
			batch := exchange.GetBatch()
			for i := range template.Records {
				batch.AppendRecord(&template.Records[i])
			}
			if serr = s.Send(ctx, exchange.Message{Batch: batch}); serr != nil {
				return
			}
		}
		serr = s.Send(ctx, exchange.Message{End: true})
	})
	got := 0
	for {
		m, err := r.Recv(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if m.End {
			break
		}
		got += m.Batch.Len()
		exchange.PutBatch(m.Batch)
	}
	wg.Wait()
	if serr != nil {
		b.Fatal(serr)
	}
	if got != b.N*perBatch {
		b.Fatalf("received %d records, want %d", got, b.N*perBatch)
	}
	b.ReportMetric(float64(got)/b.Elapsed().Seconds(), "records/s")
}

func benchRecords(n int) *record.Batch {
	b := new(record.Batch)
	key := make([]byte, 16)
	value := bytes.Repeat([]byte("v"), 84)
	for i := range n {
		copy(key, fmt.Sprintf("key-%012d", i))
		b.AppendKeyed(key, value, 1700000000000+int64(i), uint16(i%128))
	}
	return b
}
