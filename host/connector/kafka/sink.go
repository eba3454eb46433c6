package kafka

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/record"
)

// OpenSink opens subtask split's part of a Kafka sink. In a job with
// checkpoints (checkpointed), an exactly-once config gives the
// transactional sink, which fences the transactions its subtask left behind
// unless restored is set (Recover then does it); every other case gives the
// at-least-once sink, which flushes at each checkpoint.
func OpenSink(cfg SinkConfig, split connector.SplitInfo, checkpointed, restored bool) (connector.Transactional, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if err := split.Validate(); err != nil {
		return nil, fmt.Errorf("kafka sink %s: %w", cfg.Topic, err)
	}
	opts, err := clientOpts(cfg.Brokers, cfg.Security)
	if err != nil {
		return nil, err
	}
	if cfg.ExactlyOnce && checkpointed {
		s, err := openTxSink(cfg, opts, split.Subtask, restored)
		if err != nil {
			return nil, err // NB: not a nil *txSink in a non-nil Sink
		}
		return s, nil
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("kafka sink %s: %w", cfg.Topic, err)
	}
	timeout := orDefault(cfg.DeliveryTimeout, DefaultDeliveryTimeout)
	return &sink{conv: newConverter(cfg), cl: cl, timeout: timeout, ctxs: deadlines{timeout: timeout}}, nil
}

// sink is the at-least-once sink: an idempotent producer that waits for
// every record to be acknowledged at each checkpoint.
type sink struct {
	conv    converter
	cl      *kgo.Client
	timeout time.Duration
	failed  failure
	ctxs    deadlines
	closed  bool
}

// Write implements connector.Sink. It hands the records to the producer and
// returns; a failed delivery is returned by a later call.
func (s *sink) Write(b *record.Batch) error {
	if s.closed {
		return connector.ErrClosed
	}
	if err := s.failed.get(); err != nil {
		return err
	}
	recs, err := s.conv.records(b)
	if err != nil {
		return err
	}
	ctx := s.ctxs.next()
	for i := range recs {
		s.cl.Produce(ctx, &recs[i], s.failed.promise)
	}
	return nil
}

// Flush implements connector.Sink: it waits until every record written is
// acknowledged, or has failed.
func (s *sink) Flush() error {
	if s.closed {
		return connector.ErrClosed
	}
	return s.flush()
}

func (s *sink) flush() error {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout+time.Minute)
	defer cancel()
	if err := s.cl.Flush(ctx); err != nil {
		return fmt.Errorf("kafka sink %s: flush: %w", s.conv.topic, err)
	}
	s.ctxs.release()
	return s.failed.get()
}

// PreCommit implements connector.Transactional: a checkpoint completes only
// once every record before its barrier is acknowledged.
func (s *sink) PreCommit(int64) ([]byte, error) { return nil, s.Flush() }

// Commit implements connector.Transactional; there is nothing to commit.
func (s *sink) Commit(int64) error { return nil }

// Recover implements connector.Transactional; there is nothing to recover.
func (s *sink) Recover([][]byte) error { return nil }

// Close implements connector.Sink: it flushes, then closes the producer.
func (s *sink) Close() error {
	if s.closed {
		return connector.ErrClosed
	}
	s.closed = true
	err := s.flush()
	s.cl.Close()
	s.ctxs.release()
	return err
}

// failure keeps the first failed delivery of a producer. Promises run on
// the producer's goroutines, hence the lock.
type failure struct {
	mu  sync.Mutex
	err error
}

func (f *failure) promise(r *kgo.Record, err error) {
	if err == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = fmt.Errorf("kafka sink %s: record to partition %d: %w", r.Topic, r.Partition, err)
	}
}

func (f *failure) get() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// deadlines hands out the contexts records are produced with: one per
// Write, which expires the delivery timeout after it. The producer fails a
// record whose context expires before it is sent, and stops waiting for
// buffer space when it does, so that a broker that is gone makes a Write
// or Flush fail instead of blocking the task for good.
//
// NB: franz-go's own RecordDeliveryTimeout counts from a record's
// timestamp, which is the Floe record's event time, possibly long past.
type deadlines struct {
	timeout time.Duration
	live    []context.CancelFunc
	expiry  []time.Time
}

// next returns the context of the records of one Write.
func (d *deadlines) next() context.Context {
	now := time.Now()
	// Contexts past their deadline are done already: forget them.
	n := 0
	for n < len(d.expiry) && d.expiry[n].Before(now) {
		d.live[n]()
		n++
	}
	d.live, d.expiry = d.live[n:], d.expiry[n:]
	ctx, cancel := context.WithDeadline(context.Background(), now.Add(d.timeout))
	d.live, d.expiry = append(d.live, cancel), append(d.expiry, now.Add(d.timeout))
	return ctx
}

// release cancels every context handed out, once their records are all
// delivered or failed.
func (d *deadlines) release() {
	for _, cancel := range d.live {
		cancel()
	}
	d.live, d.expiry = d.live[:0], d.expiry[:0]
}

// converter turns Floe records into Kafka records.
type converter struct {
	topic  string
	key    KeyKind
	field  int
	upsert *Upsert
}

func newConverter(cfg SinkConfig) converter {
	return converter{topic: cfg.Topic, key: cfg.Key, field: cfg.Field, upsert: cfg.Upsert}
}

// records returns a Kafka record for each record of b, with copies of their
// bytes in one allocation, as the producer keeps them after Write returns;
// an upsert sink's records that do not read as its rows are an error.
func (c *converter) records(b *record.Batch) ([]kgo.Record, error) {
	n := 0
	for i := range b.Records {
		n += len(b.Records[i].Value)
	}
	slab := make([]byte, n)
	recs := make([]kgo.Record, len(b.Records))
	for i := range b.Records {
		r := &b.Records[i]
		v := slab[:len(r.Value):len(r.Value)]
		slab = slab[len(r.Value):]
		copy(v, r.Value)
		recs[i] = kgo.Record{Topic: c.topic, Key: c.keyOf(v), Value: v}
		if c.upsert != nil {
			var err error
			if recs[i].Key, recs[i].Value, err = c.upsert.convert(v); err != nil {
				return nil, fmt.Errorf("kafka sink %s: %w", c.topic, err)
			}
		}
		if r.Timestamp != record.NoTimestamp {
			recs[i].Timestamp = time.UnixMilli(r.Timestamp)
		}
	}
	return recs, nil
}

// keyOf returns the Kafka key of a record whose value is v.
func (c *converter) keyOf(v []byte) []byte {
	switch c.key {
	case KeyValue:
		return v
	case KeyCSV:
		f, _ := record.CSVField(v, c.field)
		return f
	}
	return nil
}

// errTooManyPending is returned by a transactional sink that has no free
// transactional id: too many checkpoints in a row did not complete.
var errTooManyPending = errors.New("too many transactions wait for their checkpoint to complete")
