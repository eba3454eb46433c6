package kafka

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/record"
)

// batch returns a batch of values.
func batch(values ...string) *record.Batch {
	var b record.Batch
	for _, v := range values {
		b.Append(nil, []byte(v), record.NoTimestamp)
	}
	return &b
}

// sinkConfig is the config of an exactly-once sink into topic "out".
func (k *fakeKafka) sinkConfig() SinkConfig {
	return SinkConfig{Brokers: k.brokers, Topic: "out", ExactlyOnce: true, TransactionalIDPrefix: "job-out"}
}

// openSink opens subtask sub of a sink of a checkpointed job.
func openSink(t *testing.T, cfg SinkConfig, sub int, restored bool) connector.Transactional {
	t.Helper()
	s, err := OpenSink(cfg, connector.SplitInfo{Subtask: sub, Parallelism: sub + 1}, true, restored)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// must fails the test on err.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// seal writes values and seals them for checkpoint id.
func seal(t *testing.T, s connector.Transactional, id int64, values ...string) []byte {
	t.Helper()
	must(t, s.Write(batch(values...)))
	st, err := s.PreCommit(id)
	must(t, err)
	return st
}

func TestAtLeastOnceSinkKeysAndTimestamps(t *testing.T) {
	k := newKafka(t)
	k.createTopic("out", 3)
	cfg := SinkConfig{Brokers: k.brokers, Topic: "out", Key: KeyCSV, Field: 0}
	s, err := OpenSink(cfg, connector.SplitInfo{Subtask: 0, Parallelism: 1}, false, false)
	must(t, err)
	var b record.Batch
	b.Append(nil, []byte("a,1"), 1_700_000_000_000)
	b.Append(nil, []byte("b,2"), record.NoTimestamp)
	b.Append(nil, []byte("a,3"), record.NoTimestamp)
	must(t, s.Write(&b))
	b.Reset() // the sink keeps copies
	must(t, s.Close())
	cl, err := kgo.NewClient(kgo.SeedBrokers(k.brokers...), kgo.ConsumeTopics("out"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	must(t, err)
	defer cl.Close()
	byKey := map[string][]string{}
	partOf := map[string]int32{}
	for n := 0; n < 3; {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		fs := cl.PollFetches(ctx)
		must(t, ctx.Err())
		cancel()
		fs.EachRecord(func(r *kgo.Record) {
			n++
			byKey[string(r.Key)] = append(byKey[string(r.Key)], string(r.Value))
			if p, ok := partOf[string(r.Key)]; ok && p != r.Partition {
				t.Errorf("key %q in partitions %d and %d", r.Key, p, r.Partition)
			}
			partOf[string(r.Key)] = r.Partition
			if string(r.Value) == "a,1" && r.Timestamp.UnixMilli() != 1_700_000_000_000 {
				t.Errorf("a,1 has timestamp %v", r.Timestamp)
			}
		})
	}
	if strings.Join(byKey["a"], " ") != "a,1 a,3" || strings.Join(byKey["b"], " ") != "b,2" {
		t.Errorf("records by key: %v", byKey)
	}
}

func TestTransactionalSinkCommitsWhenTheCheckpointCompletes(t *testing.T) {
	k := newKafka(t)
	k.createTopic("out", 2)
	s := openSink(t, k.sinkConfig(), 0, false)
	seal(t, s, 1, "a", "b")
	must(t, s.Write(batch("c")))
	sameSet(t, k.readCommitted("out", 0), nil)
	must(t, s.Commit(1))
	sameSet(t, k.readCommitted("out", 2), []string{"a", "b"})
	_, err := s.PreCommit(2)
	must(t, err)
	must(t, s.Commit(2))
	must(t, s.Close())
	sameSet(t, k.readCommitted("out", 3), []string{"a", "b", "c"})
}

// TestRecoverCommitsTheCheckpointAndFencesTheRest crashes a sink after a
// checkpoint sealed a transaction, while another is open: the restored sink
// commits the first and aborts the second, and the crashed sink, still
// alive, can no longer commit anything.
func TestRecoverCommitsTheCheckpointAndFencesTheRest(t *testing.T) {
	k := newKafka(t)
	k.createTopic("out", 2)
	zombie := openSink(t, k.sinkConfig(), 0, false)
	st := seal(t, zombie, 1, "a")
	must(t, zombie.Write(batch("lost")))
	must(t, zombie.Flush())

	s := openSink(t, k.sinkConfig(), 0, true)
	must(t, s.Recover([][]byte{st}))
	sameSet(t, k.readCommitted("out", 1), []string{"a"})
	if _, err := zombie.PreCommit(2); err == nil {
		err = zombie.Commit(2)
		if err == nil {
			t.Fatal("the fenced sink committed its transaction")
		}
	}
	zombie.Close()

	seal(t, s, 2, "b")
	must(t, s.Commit(2))
	// A second restore from the same checkpoint finds it committed.
	again := openSink(t, k.sinkConfig(), 0, true)
	must(t, again.Recover([][]byte{st}))
	must(t, again.Close())
	must(t, s.Close())
	sameSet(t, k.readCommitted("out", 2), []string{"a", "b"})
}

// TestRescaledRecoverTakesOverOldSubtasks restores three subtasks into one:
// it commits what each sealed and aborts what each left open, so that
// read-committed consumers see its own new records at once.
func TestRescaledRecoverTakesOverOldSubtasks(t *testing.T) {
	k := newKafka(t)
	k.createTopic("out", 3)
	var states [][]byte
	var want []string
	for sub := range 3 {
		old := openSink(t, k.sinkConfig(), sub, false)
		v := string(rune('a' + sub))
		states = append(states, seal(t, old, 1, v))
		want = append(want, v)
		must(t, old.Write(batch("open-"+v)))
		must(t, old.Flush())
		defer old.Close()
	}
	s := openSink(t, k.sinkConfig(), 0, true)
	must(t, s.Recover(states))
	seal(t, s, 2, "new")
	must(t, s.Commit(2))
	must(t, s.Close())
	sameSet(t, k.readCommitted("out", 4), append(want, "new"))
}

func TestFreshSinkAbortsWhatEarlierRunsLeftOpen(t *testing.T) {
	k := newKafka(t)
	k.createTopic("out", 1)
	old := openSink(t, k.sinkConfig(), 0, false)
	must(t, old.Write(batch("left-open")))
	must(t, old.Flush())
	defer old.Close()
	s := openSink(t, k.sinkConfig(), 0, false)
	seal(t, s, 1, "x")
	must(t, s.Commit(1))
	must(t, s.Close())
	sameSet(t, k.readCommitted("out", 1), []string{"x"})
}

func TestTooManyUncommittedTransactions(t *testing.T) {
	k := newKafka(t)
	k.createTopic("out", 1)
	s := openSink(t, k.sinkConfig(), 0, false)
	defer s.Close()
	for id := range int64(Slots) {
		seal(t, s, id+1, "v")
	}
	if err := s.Write(batch("v")); !errors.Is(err, errTooManyPending) {
		t.Fatalf("Write with %d sealed transactions = %v, want errTooManyPending", Slots, err)
	}
	must(t, s.Commit(1))
	must(t, s.Write(batch("v")))
}

// TestRecoverReportsATimedOutTransaction restores a checkpoint whose
// transaction the broker aborted for its timeout: the restore goes on, and
// says loudly that records were lost.
func TestRecoverReportsATimedOutTransaction(t *testing.T) {
	k := newKafka(t)
	k.createTopic("out", 1)
	cfg := k.sinkConfig()
	cfg.TransactionTimeout = 100 * time.Millisecond
	var logs bytes.Buffer
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	old := openSink(t, cfg, 0, false)
	st := seal(t, old, 1, "a")
	defer old.Close()
	time.Sleep(300 * time.Millisecond) // NB: past the transaction timeout.
	k.readCommitted("out", 0)          // kfake aborts expired transactions as it serves requests.
	s := openSink(t, cfg, 0, true)
	must(t, s.Recover([][]byte{st}))
	must(t, s.Close())
	if !strings.Contains(logs.String(), "records are lost") {
		t.Errorf("no error logged for the lost transaction; logs:\n%s", logs.String())
	}
}
