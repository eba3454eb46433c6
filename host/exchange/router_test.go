package exchange

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// collect is a Sender that keeps the values of the records it is sent, and
// how many batches brought them.
type collect struct {
	values  []string
	batches int
}

func (c *collect) Send(_ context.Context, m Message) error {
	if m.Batch == nil {
		return nil
	}
	c.batches++
	for _, r := range m.Batch.Records {
		c.values = append(c.values, string(r.Value))
	}
	PutBatch(m.Batch)
	return nil
}

// TestRouteBroadcast checks that a Broadcast router hands every record to
// every target, in the order routed, in batches of at most batchSize.
func TestRouteBroadcast(t *testing.T) {
	for _, tc := range []struct{ targets, records, batchSize int }{
		{1, 3, 2}, {3, 5, 2}, {2, 4, 4}, {3, 0, 2},
	} {
		t.Run(fmt.Sprintf("%dx%d/%d", tc.targets, tc.records, tc.batchSize), func(t *testing.T) {
			cs := make([]*collect, tc.targets)
			senders := make([]Sender, tc.targets)
			for i := range cs {
				cs[i] = &collect{}
				senders[i] = cs[i]
			}
			r := NewRouter(0, senders, Broadcast, 128, tc.batchSize)
			b := GetBatch()
			var want []string
			for i := range tc.records {
				v := fmt.Sprintf("r%d", i)
				b.Append(nil, []byte(v), 0)
				want = append(want, v)
			}
			if err := r.Route(context.Background(), b); err != nil {
				t.Fatal(err)
			}
			PutBatch(b)
			if err := r.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
			wantBatches := (tc.records + tc.batchSize - 1) / tc.batchSize
			for i, c := range cs {
				if !slices.Equal(c.values, want) {
					t.Errorf("target %d got %v, want %v", i, c.values, want)
				}
				if c.batches != wantBatches {
					t.Errorf("target %d got %d batches, want %d", i, c.batches, wantBatches)
				}
			}
		})
	}
}
