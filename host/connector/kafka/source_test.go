package kafka

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/connectortest"
	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/internal/ckmeta"
)

func TestSourceReadsEveryPartitionOnceAcrossSubtasks(t *testing.T) {
	k := newKafka(t)
	k.createTopic("in", 6)
	want := k.spread("in", 6, "r", 120)
	cfg := k.sourceConfig("in")
	srcs := []*source{open(t, cfg, 0, 3), open(t, cfg, 1, 3), open(t, cfg, 2, 3)}
	got := readAll(t, srcs, len(want))
	quiet(t, srcs)
	sameSet(t, flat(got), want)
	for i, g := range got {
		if len(g) != 40 {
			t.Errorf("subtask %d read %d records, want the 2 partitions' 40", i, len(g))
		}
	}
}

// positions returns the positions of srcs, one list per source, and closes
// them, as a task does at a checkpoint before it is rescaled.
func positions(t *testing.T, srcs []*source) [][][]byte {
	t.Helper()
	var lists [][][]byte
	for i, s := range srcs {
		p, err := s.Position()
		if err != nil {
			t.Fatalf("source %d: %v", i, err)
		}
		lists = append(lists, p)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return lists
}

// restore opens par sources and seeks them to their EvenSplit share of
// lists.
func restore(t *testing.T, cfg SourceConfig, lists [][][]byte, par int) []*source {
	t.Helper()
	var srcs []*source
	for i, share := range ckmeta.EvenSplit(lists, par) {
		s := open(t, cfg, i, par)
		if err := s.Seek(share); err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, s)
	}
	return srcs
}

// TestRescaleAndDiscoveryReadEveryRecordOnce reads a topic of 6 partitions
// at parallelism 2, rescales to 3 mid-way, adds 3 partitions, rescales to
// 1 and adds a topic's worth of partitions again: every record is read
// exactly once, whichever subtask ends up with the partitions and the claim
// rules.
func TestRescaleAndDiscoveryReadEveryRecordOnce(t *testing.T) {
	k := newKafka(t)
	k.createTopic("in", 6)
	cfg := k.sourceConfig("in")
	var want, got []string
	want = append(want, k.spread("in", 6, "a", 60)...)

	srcs := []*source{open(t, cfg, 0, 2), open(t, cfg, 1, 2)}
	got = append(got, flat(readAll(t, srcs, 25))...)
	srcs = restore(t, cfg, positions(t, srcs), 3)

	want = append(want, k.spread("in", 6, "b", 60)...)
	got = append(got, flat(readAll(t, srcs, len(want)-len(got)))...)
	k.addPartitions("in", 3)
	want = append(want, k.spread("in", 9, "c", 90)...)
	got = append(got, flat(readAll(t, srcs, len(want)-len(got)))...)
	quiet(t, srcs)
	srcs = restore(t, cfg, positions(t, srcs), 1)

	k.addPartitions("in", 3)
	want = append(want, k.spread("in", 12, "d", 120)...)
	got = append(got, flat(readAll(t, srcs, len(want)-len(got)))...)
	quiet(t, srcs)
	sameSet(t, got, want)
}

// TestRestoredRulesClaimPartitionsCreatedWhileStopped checks the case that
// records the claim rules exist for: partitions created between a
// checkpoint and its restore at another parallelism, which no subtask had
// seen, are read once, from their start.
func TestRestoredRulesClaimPartitionsCreatedWhileStopped(t *testing.T) {
	k := newKafka(t)
	k.createTopic("in", 2)
	cfg := k.sourceConfig("in")
	want := k.spread("in", 2, "a", 20)
	srcs := []*source{open(t, cfg, 0, 3), open(t, cfg, 1, 3), open(t, cfg, 2, 3)}
	got := flat(readAll(t, srcs, 20))
	lists := positions(t, srcs)
	k.addPartitions("in", 5)
	want = append(want, k.spread("in", 7, "b", 70)...)
	srcs = restore(t, cfg, lists, 4)
	got = append(got, flat(readAll(t, srcs, len(want)-len(got)))...)
	quiet(t, srcs)
	sameSet(t, got, want)
}

// claimed calls Next until the source has claimed n partitions, and
// returns the values it read meanwhile: a partition claimed first may be
// read before the last is claimed.
func claimed(t *testing.T, s *source, n int) []string {
	t.Helper()
	var b record.Batch
	var read []string
	deadline := time.Now().Add(testTimeout)
	for len(s.parts) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d partitions claimed, want %d", len(s.parts), n)
		}
		b.Reset()
		if err := s.Next(context.Background(), &b, 100); err != nil {
			t.Fatal(err)
		}
		read = connectortest.AppendValues(read, &b)
	}
	return read
}

func TestStartPositions(t *testing.T) {
	k := newKafka(t)
	base := time.UnixMilli(1_700_000_000_000)
	tests := []struct {
		name  string
		start StartFrom
		want  []string
	}{
		{"earliest", StartFrom{Kind: StartEarliest}, []string{"old-0", "old-1", "old-2", "old-3", "old-4", "old-5", "old-6", "old-7", "old-8", "old-9"}},
		{"latest", StartFrom{Kind: StartLatest}, nil},
		{"timestamp", StartFrom{Kind: StartTimestamp, Millis: base.Add(6 * time.Second).UnixMilli()}, []string{"old-6", "old-7", "old-8", "old-9"}},
		// Partition 0 from its committed offset 3 (old-6, old-8), partition
		// 1 without one from the start.
		{"committed", StartFrom{Kind: StartCommitted}, []string{"old-1", "old-3", "old-5", "old-6", "old-7", "old-8", "old-9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k.createTopic(tt.name, 2)
			var recs []*kgo.Record
			for i := range 10 {
				recs = append(recs, &kgo.Record{Topic: tt.name, Partition: int32(i % 2), Value: fmt.Appendf(nil, "old-%d", i),
					Timestamp: base.Add(time.Duration(i) * time.Second)})
			}
			k.produceRecords(recs...)
			offs := kadm.Offsets{}
			offs.Add(kadm.Offset{Topic: tt.name, Partition: 0, At: 3, LeaderEpoch: -1})
			if err := k.adm.CommitAllOffsets(context.Background(), "g", offs); err != nil {
				t.Fatal(err)
			}
			cfg := k.sourceConfig(tt.name)
			cfg.StartFrom, cfg.Group = tt.start, "g"
			s := open(t, cfg, 0, 1)
			early := claimed(t, s, 2)
			k.produce(tt.name, 1, "new")
			want := append(slices.Clone(tt.want), "new")
			got := append(early, flat(readAll(t, []*source{s}, len(want)-len(early)))...)
			quiet(t, []*source{s})
			sameSet(t, got, want)
		})
	}
}

// TestPositionBeforeTheFirstLookKeepsTheStartPosition restores a source
// whose checkpoint came before it had looked at the topic: the restored
// rule starts from the configured position, not from the earliest offset.
func TestPositionBeforeTheFirstLookKeepsTheStartPosition(t *testing.T) {
	k := newKafka(t)
	k.createTopic("in", 3)
	k.spread("in", 3, "old", 9)
	cfg := k.sourceConfig("in")
	cfg.StartFrom = StartFrom{Kind: StartLatest}
	lists := positions(t, []*source{open(t, cfg, 0, 2), open(t, cfg, 1, 2)})
	srcs := restore(t, cfg, lists, 1)
	early := claimed(t, srcs[0], 3) // nothing, or it would not start from the latest
	want := k.spread("in", 3, "new", 9)
	got := append(early, flat(readAll(t, srcs, len(want)))...)
	quiet(t, srcs)
	sameSet(t, got, want)
}

func TestCompletedCheckpointsCommitOffsetsToTheGroup(t *testing.T) {
	k := newKafka(t)
	k.createTopic("in", 2)
	k.spread("in", 2, "r", 10)
	cfg := k.sourceConfig("in")
	cfg.Group = "monitor"
	s := open(t, cfg, 0, 1)
	readAll(t, []*source{s}, 10)
	if _, err := s.PositionFor(7); err != nil {
		t.Fatal(err)
	}
	k.spread("in", 2, "s", 4)
	readAll(t, []*source{s}, 4)
	if _, err := s.PositionFor(8); err != nil {
		t.Fatal(err)
	}
	// Checkpoint 7 completes: its offsets, not the newer ones, are
	// committed.
	if err := s.CheckpointComplete(7); err != nil {
		t.Fatal(err)
	}
	waitOffsets(t, k, "monitor", map[int32]int64{0: 5, 1: 5})
	if err := s.CheckpointComplete(8); err != nil {
		t.Fatal(err)
	}
	waitOffsets(t, k, "monitor", map[int32]int64{0: 7, 1: 7})
}

// waitOffsets waits until group's committed offsets of topic "in" are want.
func waitOffsets(t *testing.T, k *fakeKafka, group string, want map[int32]int64) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for {
		got := k.committed(group)
		if maps.Equal(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("group %s has offsets %v, want %v", group, got, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestJSONFormatCarriesKeyHeadersAndTimestamp(t *testing.T) {
	k := newKafka(t)
	k.createTopic("in", 1)
	ts := time.UnixMilli(1_700_000_000_123)
	k.produceRecords(
		&kgo.Record{Topic: "in", Key: []byte("k1"), Value: []byte("v1"), Timestamp: ts,
			Headers: []kgo.RecordHeader{{Key: "h", Value: []byte("x")}}},
		&kgo.Record{Topic: "in", Value: []byte("v2"), Timestamp: ts})
	cfg := k.sourceConfig("in")
	cfg.Format = FormatJSON
	s := open(t, cfg, 0, 1)
	var b record.Batch
	deadline := time.Now().Add(testTimeout)
	for b.Len() < 2 && time.Now().Before(deadline) {
		if err := s.Next(context.Background(), &b, 10); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		`{"topic":"in","partition":0,"offset":0,"timestamp":1700000000123,"key":"k1","value":"v1","headers":[{"key":"h","value":"x"}]}`,
		`{"topic":"in","partition":0,"offset":1,"timestamp":1700000000123,"key":null,"value":"v2"}`,
	}
	if got := connectortest.AppendValues(nil, &b); !slices.Equal(got, want) {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, r := range b.Records {
		if r.Timestamp != ts.UnixMilli() || r.Key != nil {
			t.Errorf("record %q: key %q, timestamp %d; want no key and %d", r.Value, r.Key, r.Timestamp, ts.UnixMilli())
		}
	}
}

// TestJSONFormatTellsNullHeaderValuesFromEmptyOnes checks that a header
// without a value comes out as null, and one with an empty value as "".
func TestJSONFormatTellsNullHeaderValuesFromEmptyOnes(t *testing.T) {
	k := newKafka(t)
	k.createTopic("in", 1)
	ts := time.UnixMilli(1_700_000_000_123)
	k.produceRecords(&kgo.Record{Topic: "in", Value: []byte("v"), Timestamp: ts,
		Headers: []kgo.RecordHeader{{Key: "null", Value: nil}, {Key: "empty", Value: []byte{}}}})
	cfg := k.sourceConfig("in")
	cfg.Format = FormatJSON
	got := flat(readAll(t, []*source{open(t, cfg, 0, 1)}, 1))
	want := `{"topic":"in","partition":0,"offset":0,"timestamp":1700000000123,"key":null,"value":"v",` +
		`"headers":[{"key":"null","value":null},{"key":"empty","value":""}]}`
	if len(got) != 1 || got[0] != want {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
}

func TestSourceSkipsAbortedTransactions(t *testing.T) {
	k := newKafka(t)
	k.createTopic("in", 1)
	k.produce("in", 0, "before")
	for _, commit := range []kgo.TransactionEndTry{kgo.TryAbort, kgo.TryCommit} {
		cl, err := kgo.NewClient(kgo.SeedBrokers(k.brokers...), kgo.TransactionalID("writer"))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		cl.BeginTransaction()
		v := "aborted"
		if commit {
			v = "committed"
		}
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "in", Value: []byte(v)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		if err := cl.EndTransaction(ctx, commit); err != nil {
			t.Fatal(err)
		}
		cl.Close()
	}
	s := open(t, k.sourceConfig("in"), 0, 1)
	got := flat(readAll(t, []*source{s}, 2))
	quiet(t, []*source{s})
	sameSet(t, got, []string{"before", "committed"})
}

func TestTopicPatternFindsNewTopics(t *testing.T) {
	k := newKafka(t)
	k.createTopic("logs-a", 2)
	k.createTopic("metrics", 1)
	k.produce("logs-a", 1, "a")
	k.produce("metrics", 0, "m")
	cfg := k.sourceConfig()
	cfg.TopicPattern = "logs-.*"
	s := open(t, cfg, 0, 1)
	got := flat(readAll(t, []*source{s}, 1))
	k.createTopic("logs-b", 3)
	k.produce("logs-b", 2, "b")
	got = append(got, flat(readAll(t, []*source{s}, 1))...)
	quiet(t, []*source{s})
	sameSet(t, got, []string{"a", "b"})
}

func TestSeekRejectsMalformedStates(t *testing.T) {
	s, err := OpenSource(SourceConfig{Brokers: []string{"127.0.0.1:1"}, Topics: []string{"in"}}, connector.SplitInfo{Subtask: 0, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, bad := range []string{`nope`, `{"v":2,"topic":"in"}`, `{"v":1,"topic":"","partition":1}`, `{"v":1,"topic":"t","partition":0,"offset":-5}`,
		`{"v":1,"rule":{"of":2,"index":2}}`} {
		if err := s.Seek([][]byte{[]byte(bad)}); !errors.Is(err, connector.ErrBadPosition) {
			t.Errorf("Seek(%s) = %v, want ErrBadPosition", bad, err)
		}
	}
	twice := []byte(`{"v":1,"topic":"t","partition":0,"offset":3}`)
	if err := s.Seek([][]byte{twice, twice}); !errors.Is(err, connector.ErrBadPosition) {
		t.Errorf("Seek of a partition twice = %v, want ErrBadPosition", err)
	}
	pos, err := s.Position()
	if err != nil || len(pos) != 1 || !strings.Contains(string(pos[0]), `"rule"`) {
		t.Errorf("Position after failed Seeks = %s, %v; want the fresh rule", pos, err)
	}
}

// TestCommittedOffsetsPassTransactionMarkers checks that a group's
// committed offsets reach the end of partitions that end with a
// transaction marker, a commit's or an abort's, so that consumer lag
// reaches 0 as it does for librdkafka and the Java consumer. The end comes
// from the broker.
func TestCommittedOffsetsPassTransactionMarkers(t *testing.T) {
	k := newKafka(t)
	k.createTopic("in", 2)
	k.produce("in", 0, "before")
	k.produceTxn("in", 0, true, "c0", "c1")
	k.produceTxn("in", 1, true, "c2")
	k.produceTxn("in", 1, false, "aborted")
	end := k.endOffsets("in")
	cfg := k.sourceConfig("in")
	cfg.Group = "monitor"
	s := open(t, cfg, 0, 1)
	sameSet(t, flat(readAll(t, []*source{s}, 4)), []string{"before", "c0", "c1", "c2"})
	// NB: a marker may come in a later fetch than the records before it,
	// so checkpoints go on until the offsets arrive or the test times out.
	var b record.Batch
	deadline := time.Now().Add(testTimeout)
	for id := int64(1); ; id++ {
		b.Reset()
		if err := s.Next(context.Background(), &b, 100); err != nil || b.Len() > 0 {
			t.Fatalf("Next after the end: %d records, %v", b.Len(), err)
		}
		if _, err := s.PositionFor(id); err != nil {
			t.Fatal(err)
		}
		if err := s.CheckpointComplete(id); err != nil {
			t.Fatal(err)
		}
		got := k.committed("monitor")
		if maps.Equal(got, end) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("group monitor has offsets %v, want the end offsets %v", got, end)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
