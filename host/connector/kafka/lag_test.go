package kafka

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/record"
)

// TestLagsCountWhatIsLeftToRead reads two partitions of 30 and 10 records
// in small batches: whenever the source has fetched from both, their lags
// and the records it returned add up to the 40 produced, and once it has
// read them all both lags are 0.
func TestLagsCountWhatIsLeftToRead(t *testing.T) {
	k := newKafka(t)
	k.createTopic("in", 2)
	for p, n := range []int{30, 10} {
		var vals []string
		for i := range n {
			vals = append(vals, fmt.Sprint(p, "-", i))
		}
		k.produce("in", int32(p), vals...)
	}
	s := open(t, k.sourceConfig("in"), 0, 1)
	var c connector.Lagging = s
	var b record.Batch
	read := 0
	deadline := time.Now().Add(testTimeout)
	for read < 40 {
		if time.Now().After(deadline) {
			t.Fatalf("read %d records of 40", read)
		}
		b.Reset()
		if err := s.Next(context.Background(), &b, 7); err != nil {
			t.Fatal(err)
		}
		read += b.Len()
		lags := c.Lags(nil)
		if len(lags) < 2 {
			continue
		}
		left := int64(0)
		for _, l := range lags {
			left += l.Records
		}
		if left+int64(read) != 40 {
			t.Fatalf("after %d records read, lags %v", read, lags)
		}
	}
	lags := c.Lags(nil)
	if len(lags) != 2 || lags[0].Records != 0 || lags[1].Records != 0 {
		t.Fatalf("lags %v after reading everything, want 0 for both partitions", lags)
	}
	if n, fixed := connector.Splitted(s).Splits(); n != 2 || !fixed {
		t.Errorf("Splits() = %d, %v; want the 2 partitions, fixed", n, fixed)
	}
}
