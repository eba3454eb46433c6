package kafka

import (
	"reflect"
	"testing"
)

// TestRulesCoverEveryPartitionOnce checks the property the source's
// discovery rests on: at every parallelism, each partition of each topic is
// owned by exactly one of the rules of a fresh start, and a topic's
// partitions spread evenly over them.
func TestRulesCoverEveryPartitionOnce(t *testing.T) {
	for n := 1; n <= 16; n++ {
		for _, topic := range []string{"a", "clicks", "logs-2026.01"} {
			per := make([]int, n)
			for p := range int32(10 * n) {
				owners := 0
				for i := range n {
					if (&rule{Of: n, Index: i}).owns(topic, p) {
						owners++
						per[i]++
					}
				}
				if owners != 1 {
					t.Fatalf("parallelism %d: %s/%d has %d owners", n, topic, p, owners)
				}
			}
			for i, c := range per {
				if c != 10 {
					t.Fatalf("parallelism %d: rule %d owns %d of %s's %d partitions, want 10", n, i, c, topic, 10*n)
				}
			}
		}
	}
}

func TestSplitRoundTrip(t *testing.T) {
	for _, s := range []*split{
		{Topic: "in", Partition: 3, Offset: 42},
		{Topic: "in", Partition: 0, Offset: offsetEarliest},
		{Rule: &rule{Of: 3, Index: 2, Seen: map[string]int32{"in": 6, "other": 1}, Started: true}},
		{Rule: &rule{Of: 1, Index: 0, Seen: map[string]int32{}}},
	} {
		b, err := s.encode()
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeSplit(b)
		if err != nil || !reflect.DeepEqual(got, s) {
			t.Errorf("%s decodes to %+v, %v", b, got, err)
		}
	}
}
