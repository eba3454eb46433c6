package kafka

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/record"
)

// TestRecordSplitsNamePartitions checks what the task's per-partition
// watermarks rely on: every record is reported with one number per
// partition, the same across calls, different between partitions.
func TestRecordSplitsNamePartitions(t *testing.T) {
	k := newKafka(t)
	k.createTopic("in", 3)
	k.produce("in", 0, "p0-a", "p0-b", "p0-c")
	k.produce("in", 1, "p1-a", "p1-b")
	k.produce("in", 2, "p2-a")
	s := open(t, k.sourceConfig("in"), 0, 1)
	ids := map[string]int{} // partition -> split number
	read := 0
	deadline := time.Now().Add(testTimeout)
	var b record.Batch
	for read < 6 {
		if time.Now().After(deadline) {
			t.Fatalf("read %d of 6 records", read)
		}
		b.Reset()
		if err := s.Next(context.Background(), &b, 2); err != nil {
			t.Fatal(err)
		}
		splits := s.RecordSplits()
		if len(splits) != b.Len() {
			t.Fatalf("%d splits reported for %d records", len(splits), b.Len())
		}
		for i, r := range b.Records {
			p, _, _ := strings.Cut(string(r.Value), "-")
			if id, ok := ids[p]; ok && id != splits[i] {
				t.Errorf("%s: split %d, earlier %d", r.Value, splits[i], id)
			}
			ids[p] = splits[i]
			read++
		}
	}
	if ids["p0"] == ids["p1"] || ids["p1"] == ids["p2"] || ids["p0"] == ids["p2"] {
		t.Errorf("partitions share split numbers: %v", ids)
	}
}
