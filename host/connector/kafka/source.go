package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/record"
)

// PollWait is the longest a Next call waits for records.
const PollWait = 50 * time.Millisecond

// fetchMaxWait is how long a broker may hold a fetch for want of records,
// and metadataMinAge the least time between two metadata refreshes.
const (
	fetchMaxWait   = 500 * time.Millisecond
	metadataMinAge = 250 * time.Millisecond
)

// tp names a partition.
type tp struct {
	topic     string
	partition int32
}

// source reads the partitions it holds splits for, and claims new
// partitions through the rules it holds. Its fields are owned by the
// task's goroutine, except what the discoverer and committer goroutines
// get through channels.
type source struct {
	cfg   SourceConfig
	re    *regexp.Regexp
	opts  []kgo.Opt
	clock connector.Clock
	log   *slog.Logger

	// splits is the list state, in order; parts indexes its partition
	// splits.
	splits []*split
	parts  map[tp]*split

	cl      *kgo.Client
	adm     *kadm.Client
	started bool
	closed  bool
	format  jsonFormatter

	// The background goroutines: the discoverer sends listings on found,
	// the committer commits the offsets it receives on commits.
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	found   chan listing
	commits chan kadm.Offsets
	// pending holds the offsets recorded for checkpoints not yet known to
	// be complete, oldest first.
	pending []pendingCommit

	// ids numbers the partitions for RecordSplits; recs holds the number
	// of each record of the last batch.
	ids  map[tp]int
	recs []int

	lags lags
	// nparts is len(parts), for Splits from other goroutines.
	nparts atomic.Int32
}

// pendingCommit is the offsets of the partition splits at a checkpoint.
type pendingCommit struct {
	id      int64
	offsets kadm.Offsets
}

// maxPending bounds the checkpoints whose offsets wait for completion;
// older ones are dropped, as a newer completion covers them.
const maxPending = 32

// OpenSource returns the source of subtask info of a Kafka source. It does
// no I/O: the first Next connects. A fresh source holds the claim rule of
// its subtask (see the package documentation) and no partition; Seek
// replaces that with restored splits.
func OpenSource(cfg SourceConfig, info connector.SplitInfo) (connector.Source, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if err := info.Validate(); err != nil {
		return nil, fmt.Errorf("kafka source: %w", err)
	}
	re, err := cfg.pattern()
	if err != nil {
		return nil, err
	}
	opts, err := clientOpts(cfg.Brokers, cfg.Security)
	if err != nil {
		return nil, err
	}
	// NB: by default franz-go lets a broker hold a fetch for 5s, and
	// refreshes metadata at most every 5s; either delays the first records
	// of a newly claimed partition by as much.
	opts = append(opts, kgo.FetchMaxWait(fetchMaxWait), kgo.MetadataMinAge(metadataMinAge))
	// NB: franz-go drops transaction markers (control records) by default,
	// so a partition's position would stop one short of a marker at its
	// end and the committed offsets would show a lag that never reaches 0.
	// emit skips them itself, after advancing past them.
	opts = append(opts, kgo.KeepControlRecords())
	if !cfg.ReadUncommitted {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	s := &source{cfg: cfg, re: re, opts: opts, clock: connector.OrSystem(cfg.Clock), log: orDiscard(cfg.Logger)}
	s.format.format = cfg.Format
	s.setSplits([]*split{{Rule: &rule{Of: info.Parallelism, Index: info.Subtask, Seen: map[string]int32{}}}})
	return s, nil
}

// setSplits replaces the list state.
func (s *source) setSplits(splits []*split) {
	s.lags.reset()
	s.splits = splits
	s.parts = make(map[tp]*split)
	for _, sp := range splits {
		if !sp.isRule() {
			s.parts[tp{sp.Topic, sp.Partition}] = sp
		}
	}
	s.nparts.Store(int32(len(s.parts)))
}

// Splits implements connector.Splitted: the partitions the source reads.
func (s *source) Splits() (int, bool) { return int(s.nparts.Load()), true }

// Next implements connector.Source: it returns the records polled within
// PollWait, and claims the partitions that discovery found since the last
// call.
func (s *source) Next(ctx context.Context, b *record.Batch, max int) error {
	if err := connector.CheckNext(ctx, s.closed, max); err != nil {
		return err
	}
	s.recs = s.recs[:0]
	if !s.started {
		s.start()
	}
	if err := s.poll(); err != nil {
		return err
	}
	if len(s.parts) == 0 {
		return s.idle(ctx)
	}
	pctx, cancel := context.WithTimeout(ctx, PollWait)
	fetches := s.cl.PollRecords(pctx, max)
	cancel()
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.fetchErrors(fetches); err != nil {
		return err
	}
	s.emit(fetches, b)
	s.lags.note(fetches, s.parts, s.cfg.ReadUncommitted)
	return nil
}

// idle sleeps for PollWait when there is nothing to read, then claims
// what discovery found meanwhile.
func (s *source) idle(ctx context.Context) error {
	if err := s.clock.Sleep(ctx, PollWait); err != nil {
		return err
	}
	return s.poll()
}

// poll claims what discovery found, if it found anything since the last
// call.
func (s *source) poll() error {
	select {
	case l := <-s.found:
		return s.claim(l)
	default:
		return nil
	}
}

// emit appends the polled records to b and advances their splits. It
// advances past control records (transaction markers) without emitting
// them, as librdkafka and the Java consumer do.
func (s *source) emit(fetches kgo.Fetches, b *record.Batch) {
	var last *split
	id := 0
	fetches.EachRecord(func(r *kgo.Record) {
		if last == nil || last.Partition != r.Partition || last.Topic != r.Topic {
			p := tp{r.Topic, r.Partition}
			if last = s.parts[p]; last == nil {
				return // NB: not ours; cannot happen, as we consume only our splits.
			}
			id = s.partitionID(p)
		}
		last.Offset = r.Offset + 1
		if r.Attrs.IsControl() {
			return
		}
		b.Append(nil, s.format.value(r), r.Timestamp.UnixMilli())
		s.recs = append(s.recs, id)
	})
}

// RecordSplits implements connector.SplitReporter: each partition is a
// split of its own for watermarks.
func (s *source) RecordSplits() []int { return s.recs }

// partitionID numbers partition p, the same for the life of the source.
func (s *source) partitionID(p tp) int {
	if s.ids == nil {
		s.ids = map[tp]int{}
	}
	id, ok := s.ids[p]
	if !ok {
		id = len(s.ids)
		s.ids[p] = id
	}
	return id
}

// fetchErrors returns the first error of fetches that the source cannot
// wait out. Errors that the client retries by itself, such as a broker
// that is down, are only logged.
func (s *source) fetchErrors(fetches kgo.Fetches) error {
	for _, fe := range fetches.Errors() {
		var loss *kgo.ErrDataLoss
		switch {
		case errors.Is(fe.Err, context.DeadlineExceeded), errors.Is(fe.Err, context.Canceled):
		case errors.Is(fe.Err, kgo.ErrClientClosed):
			return connector.ErrClosed
		case errors.As(fe.Err, &loss):
			s.log.Warn("kafka source: records lost", "topic", fe.Topic, "partition", fe.Partition, "err", fe.Err)
		case kerr.IsRetriable(fe.Err) || isNetErr(fe.Err):
			s.log.Debug("kafka source: retrying", "topic", fe.Topic, "partition", fe.Partition, "err", fe.Err)
		default:
			return fmt.Errorf("kafka source: topic %s partition %d: %w", fe.Topic, fe.Partition, fe.Err)
		}
	}
	return nil
}

// start connects: it creates the client, consumes the partitions of the
// splits and starts discovery and, with a group, the committer.
func (s *source) start() {
	s.started = true
	s.cl, _ = kgo.NewClient(s.opts...) // NB: fails only on bad options, which clientOpts does not build.
	s.adm = kadm.NewClient(s.cl)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	add := map[string]map[int32]kgo.Offset{}
	var fresh []rule
	for _, sp := range s.splits {
		if sp.isRule() {
			if !sp.Rule.Started {
				fresh = append(fresh, *sp.Rule)
			}
			continue
		}
		addOffset(add, sp)
	}
	s.cl.AddConsumePartitions(add)
	s.found = make(chan listing)
	s.wg.Go(func() { s.discover(fresh) })
	if s.cfg.Group != "" {
		s.commits = make(chan kadm.Offsets, 1)
		s.wg.Go(s.commitLoop)
	}
}

// addOffset adds the partition of sp, at its offset, to add.
func addOffset(add map[string]map[int32]kgo.Offset, sp *split) {
	o := kgo.NewOffset().At(sp.Offset)
	if sp.Offset == offsetEarliest {
		o = kgo.NewOffset().AtStart()
	}
	if add[sp.Topic] == nil {
		add[sp.Topic] = map[int32]kgo.Offset{}
	}
	add[sp.Topic][sp.Partition] = o
}

// Position implements connector.Source. It does no I/O.
func (s *source) Position() ([][]byte, error) {
	out := make([][]byte, 0, len(s.splits))
	for _, sp := range s.splits {
		b, err := sp.encode()
		if err != nil {
			return nil, fmt.Errorf("kafka source: %w", err)
		}
		out = append(out, b)
	}
	return out, nil
}

// PositionFor is Position for checkpoint id: the source remembers the
// offsets, to commit them to its group once CheckpointComplete says that
// the checkpoint completed.
func (s *source) PositionFor(id int64) ([][]byte, error) {
	pos, err := s.Position()
	if err != nil || s.cfg.Group == "" {
		return pos, err
	}
	offs := kadm.Offsets{}
	for _, sp := range s.splits {
		if !sp.isRule() && sp.Offset >= 0 {
			offs.Add(kadm.Offset{Topic: sp.Topic, Partition: sp.Partition, At: sp.Offset, LeaderEpoch: -1})
		}
	}
	if len(s.pending) == maxPending {
		s.pending = s.pending[1:]
	}
	s.pending = append(s.pending, pendingCommit{id: id, offsets: offs})
	return pos, nil
}

// Seek implements connector.Source. A source that has started reading
// reconnects, so that nothing it buffered is emitted.
func (s *source) Seek(splits [][]byte) error {
	if s.closed {
		return connector.ErrClosed
	}
	out := make([]*split, 0, len(splits))
	seen := map[tp]bool{}
	for _, p := range splits {
		sp, err := decodeSplit(p)
		if err != nil {
			return err
		}
		if k := (tp{sp.Topic, sp.Partition}); !sp.isRule() {
			if seen[k] {
				return fmt.Errorf("kafka source: %w: partition %s/%d twice", connector.ErrBadPosition, k.topic, k.partition)
			}
			seen[k] = true
		}
		out = append(out, sp)
	}
	if s.started {
		s.stop()
		s.started = false
	}
	s.setSplits(out)
	s.pending = nil
	return nil
}

// Close implements connector.Source.
func (s *source) Close() error {
	if s.closed {
		return connector.ErrClosed
	}
	s.closed = true
	if s.started {
		s.stop()
	}
	return nil
}

// stop ends the background goroutines and closes the client.
func (s *source) stop() {
	s.cancel()
	s.wg.Wait()
	s.cl.Close()
}
