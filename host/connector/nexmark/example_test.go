package nexmark_test

import (
	"context"
	"fmt"
	"io"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/nexmark"
	"github.com/floe-stream/floe/host/record"
)

// Subtask 0 of 2 of a stream of ten events emits the even-numbered ones: a
// person, two auctions and two bids, each stamped with its event time, ten
// events per millisecond at the default rate.
func ExampleNewSource() {
	src, err := nexmark.NewSource(nexmark.Config{Count: 10}, connector.SplitInfo{Subtask: 0, Parallelism: 2})
	if err != nil {
		panic(err)
	}
	defer src.Close()
	var b record.Batch
	for {
		b.Reset()
		err := src.Next(context.Background(), &b, 3)
		for _, r := range b.Records {
			fmt.Println(r.Timestamp-nexmark.BaseTime, string(r.Value[:40]))
		}
		if err == io.EOF {
			break
		}
	}
	// Output:
	// 0 P,1000,Peter Jones,nhd@xcat.com,7241 732
	// 0 A,1001,z ck w,cwlachrnkfzkygsu edjytotgg
	// 0 B,1000,1001,32530001,Google,https://www.
	// 0 B,1000,1001,300435,Apple,https://www.nex
	// 0 B,1000,1001,381373,channel-9158,https://
}
