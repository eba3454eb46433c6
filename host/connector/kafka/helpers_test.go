package kafka

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/connectortest"
	"github.com/floe-stream/floe/host/record"
)

// testTimeout bounds every wait of these tests.
const testTimeout = 30 * time.Second

// fakeKafka is an in-process Kafka cluster and an admin client of it.
type fakeKafka struct {
	t       *testing.T
	c       *kfake.Cluster
	brokers []string
	cl      *kgo.Client
	adm     *kadm.Client
}

// newKafka starts a kfake cluster that closes when the test ends (the
// package's TestMain checks that its goroutines are gone).
func newKafka(t *testing.T, opts ...kfake.Opt) *fakeKafka {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	k := &fakeKafka{t: t, c: c, brokers: c.ListenAddrs()}
	k.cl, err = kgo.NewClient(kgo.SeedBrokers(k.brokers...))
	if err != nil {
		t.Fatal(err)
	}
	k.adm = kadm.NewClient(k.cl)
	t.Cleanup(func() {
		k.cl.Close()
		c.Close()
	})
	return k
}

// createTopic creates a topic of n partitions.
func (k *fakeKafka) createTopic(name string, n int32) {
	k.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if _, err := k.adm.CreateTopic(ctx, n, 1, nil, name); err != nil {
		k.t.Fatalf("creating %s: %v", name, err)
	}
}

// addPartitions grows a topic by n partitions.
func (k *fakeKafka) addPartitions(name string, n int) {
	k.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	resp, err := k.adm.CreatePartitions(ctx, n, name)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		k.t.Fatalf("adding partitions to %s: %v", name, err)
	}
}

// produce writes values to one partition of topic, in order.
func (k *fakeKafka) produce(topic string, partition int32, values ...string) {
	k.t.Helper()
	var recs []*kgo.Record
	for _, v := range values {
		recs = append(recs, &kgo.Record{Topic: topic, Partition: partition, Value: []byte(v)})
	}
	k.produceRecords(recs...)
}

func (k *fakeKafka) produceRecords(recs ...*kgo.Record) {
	k.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(k.brokers...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		k.t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		k.t.Fatalf("producing: %v", err)
	}
}

// spread writes n values "<prefix>-<i>" over the partitions of topic,
// value i to partition i % partitions, and returns them.
func (k *fakeKafka) spread(topic string, partitions int32, prefix string, n int) []string {
	k.t.Helper()
	var vals []string
	var recs []*kgo.Record
	for i := range n {
		v := fmt.Sprintf("%s-%d", prefix, i)
		vals = append(vals, v)
		recs = append(recs, &kgo.Record{Topic: topic, Partition: int32(i) % partitions, Value: []byte(v)})
	}
	k.produceRecords(recs...)
	return vals
}

// readCommitted reads the committed records of topic from the start
// until it has n, then for a little longer to catch any extra, and returns
// their values.
func (k *fakeKafka) readCommitted(topic string, n int) []string {
	k.t.Helper()
	return k.read(topic, n, true)
}

func (k *fakeKafka) read(topic string, n int, committed bool) []string {
	k.t.Helper()
	opts := []kgo.Opt{kgo.SeedBrokers(k.brokers...), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}
	if committed {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		k.t.Fatal(err)
	}
	defer cl.Close()
	var got []string
	deadline := time.Now().Add(testTimeout)
	for extra := 0; extra < 3; {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		fs := cl.PollFetches(ctx)
		cancel()
		fs.EachRecord(func(r *kgo.Record) { got = append(got, string(r.Value)) })
		switch {
		case len(got) >= n:
			extra++
		case time.Now().After(deadline):
			k.t.Fatalf("read %d records of %s, want %d", len(got), topic, n)
		}
	}
	return got
}

// sourceConfig is the config of a source of topics on k.
func (k *fakeKafka) sourceConfig(topics ...string) SourceConfig {
	return SourceConfig{Brokers: k.brokers, Topics: topics, DiscoveryInterval: 100 * time.Millisecond}
}

// open opens subtask sub of par of a source.
func open(t *testing.T, cfg SourceConfig, sub, par int) *source {
	t.Helper()
	s, err := OpenSource(cfg, connector.SplitInfo{Subtask: sub, Parallelism: par})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.(*source)
}

// readAll calls Next on every source in turn until they have returned n
// records together, and returns their values per source.
func readAll(t *testing.T, srcs []*source, n int) [][]string {
	t.Helper()
	got := make([][]string, len(srcs))
	total := 0
	var b record.Batch
	deadline := time.Now().Add(testTimeout)
	for total < n {
		if time.Now().After(deadline) {
			t.Fatalf("read %d records of %d: %v", total, n, got)
		}
		for i, s := range srcs {
			b.Reset()
			if err := s.Next(context.Background(), &b, 7); err != nil {
				t.Fatalf("source %d: %v", i, err)
			}
			got[i] = connectortest.AppendValues(got[i], &b)
			total += b.Len()
		}
	}
	return got
}

// quiet calls Next on every source for a while and fails if any returns a
// record.
func quiet(t *testing.T, srcs []*source) {
	t.Helper()
	var b record.Batch
	for range 4 {
		for i, s := range srcs {
			b.Reset()
			if err := s.Next(context.Background(), &b, 100); err != nil {
				t.Fatalf("source %d: %v", i, err)
			}
			if b.Len() > 0 {
				t.Fatalf("source %d returned %d more records: %v", i, b.Len(), connectortest.AppendValues(nil, &b))
			}
		}
	}
}

// sameSet fails unless got holds exactly the values of want, each once.
func sameSet(t *testing.T, got, want []string) {
	t.Helper()
	g, w := slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
	if !slices.Equal(g, w) {
		t.Fatalf("got %d values, want %d:\ngot  %s\nwant %s", len(g), len(w), strings.Join(g, " "), strings.Join(w, " "))
	}
}

// flat concatenates lists.
func flat(lists [][]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// splitOf is subtask sub of par.
func splitOf(sub, par int) connector.SplitInfo {
	return connector.SplitInfo{Subtask: sub, Parallelism: par}
}

// produceTxn writes values to one partition of topic in one transaction,
// which it commits or aborts.
func (k *fakeKafka) produceTxn(topic string, partition int32, commit bool, values ...string) {
	k.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(k.brokers...), kgo.TransactionalID("writer"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		k.t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := cl.BeginTransaction(); err != nil {
		k.t.Fatal(err)
	}
	for _, v := range values {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: partition, Value: []byte(v)}).FirstErr(); err != nil {
			k.t.Fatalf("producing: %v", err)
		}
	}
	if err := cl.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
		k.t.Fatalf("ending the transaction: %v", err)
	}
}

// endOffsets returns the end offset (high watermark) of each partition of
// topic, as the broker lists them.
func (k *fakeKafka) endOffsets(topic string) map[int32]int64 {
	k.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	listed, err := k.adm.ListEndOffsets(ctx, topic)
	if err == nil {
		err = listed.Error()
	}
	if err != nil {
		k.t.Fatalf("listing the end offsets of %s: %v", topic, err)
	}
	out := map[int32]int64{}
	listed.Each(func(o kadm.ListedOffset) { out[o.Partition] = o.Offset })
	return out
}

// committed returns the offsets that group has committed, by partition; it
// is empty if they cannot be fetched.
func (k *fakeKafka) committed(group string) map[int32]int64 {
	got := map[int32]int64{}
	resp, err := k.adm.FetchOffsets(context.Background(), group)
	if err == nil {
		resp.Each(func(o kadm.OffsetResponse) { got[o.Partition] = o.At })
	}
	return got
}
