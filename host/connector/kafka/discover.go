package kafka

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// listing is what one look at the cluster found: the partition count of
// every topic the source reads, and, for the first look of a source that
// holds rules not yet started, the start offset of every partition those
// rules own.
type listing struct {
	counts map[string]int32
	start  map[tp]int64
	// err is a failure that waiting does not cure, such as a failed
	// authentication: the source fails with it.
	err error
}

// retryWait is how long the discoverer waits after a failed look.
const retryWait = time.Second

// discover looks at the cluster at once, then every discovery interval,
// and hands each listing to the task's goroutine through found. fresh are
// the rules not yet started, whose partitions the first listing resolves
// start offsets for.
func (s *source) discover(fresh []rule) {
	interval := orDefault(s.cfg.DiscoveryInterval, DefaultDiscoveryInterval)
	for {
		l, err := s.list(fresh)
		wait := interval
		switch {
		case s.ctx.Err() != nil:
			return
		case fatal(err):
			select {
			case s.found <- listing{err: fmt.Errorf("kafka source: listing partitions: %w", err)}:
			case <-s.ctx.Done():
			}
			return
		case err != nil:
			s.log.Warn("kafka source: listing partitions", "err", err)
			wait = retryWait
		default:
			select {
			case s.found <- l:
			case <-s.ctx.Done():
				return
			}
			fresh = nil
			if interval < 0 {
				return
			}
		}
		if s.clock.Sleep(s.ctx, wait) != nil {
			return
		}
	}
}

// list looks at the cluster once.
func (s *source) list(fresh []rule) (listing, error) {
	ctx, cancel := context.WithTimeout(s.ctx, orDefault(s.cfg.RequestTimeout, DefaultRequestTimeout))
	defer cancel()
	details, err := s.adm.ListTopics(ctx, s.cfg.Topics...)
	if err != nil {
		return listing{}, err
	}
	l := listing{counts: map[string]int32{}}
	for t, d := range details {
		if d.Err != nil || d.IsInternal || (s.re != nil && !s.re.MatchString(t)) {
			continue
		}
		l.counts[t] = int32(len(d.Partitions))
	}
	if len(fresh) > 0 {
		if l.start, err = s.startOffsets(ctx, l.counts, fresh); err != nil {
			return listing{}, err
		}
	}
	return l, nil
}

// startOffsets resolves the configured start position of every partition
// in counts that one of the fresh rules owns.
func (s *source) startOffsets(ctx context.Context, counts map[string]int32, fresh []rule) (map[tp]int64, error) {
	start := map[tp]int64{}
	var topics []string
	for t, n := range counts {
		for p := range n {
			if slices.ContainsFunc(fresh, func(r rule) bool { return r.owns(t, p) }) {
				start[tp{t, p}] = offsetEarliest
				topics = append(topics, t)
			}
		}
	}
	if len(start) == 0 {
		return start, nil
	}
	topics = slices.Compact(slices.Sorted(slices.Values(topics)))
	var found func(t string, p int32) (int64, bool)
	switch s.cfg.StartFrom.Kind {
	case "", StartEarliest:
		return start, nil
	case StartLatest, StartTimestamp:
		var lo kadm.ListedOffsets
		var err error
		if s.cfg.StartFrom.Kind == StartLatest {
			lo, err = s.adm.ListEndOffsets(ctx, topics...)
		} else {
			lo, err = s.adm.ListOffsetsAfterMilli(ctx, s.cfg.StartFrom.Millis, topics...)
		}
		if err == nil {
			err = lo.Error()
		}
		if err != nil {
			return nil, fmt.Errorf("listing start offsets: %w", err)
		}
		found = func(t string, p int32) (int64, bool) {
			o, ok := lo.Lookup(t, p)
			return o.Offset, ok && o.Offset >= 0
		}
	case StartCommitted:
		or, err := s.adm.FetchOffsets(ctx, s.cfg.Group)
		if err != nil {
			return nil, fmt.Errorf("fetching the offsets of group %s: %w", s.cfg.Group, err)
		}
		found = func(t string, p int32) (int64, bool) {
			o, ok := or.Lookup(t, p)
			return o.At, ok && o.Err == nil && o.At >= 0
		}
	}
	for k := range start {
		if o, ok := found(k.topic, k.partition); ok {
			start[k] = o
		}
	}
	return start, nil
}

// claim applies a listing: every rule the source holds claims the
// partitions it owns that it has not looked at yet, and the source starts
// reading them.
func (s *source) claim(l listing) error {
	if l.err != nil {
		return l.err
	}
	add := map[string]map[int32]kgo.Offset{}
	topics := slices.Sorted(maps.Keys(l.counts))
	// NB: range walks only the splits there were before it appends.
	for _, sp := range s.splits {
		r := sp.Rule
		if r == nil {
			continue
		}
		for _, t := range topics {
			for p := r.Seen[t]; p < l.counts[t]; p++ {
				if !r.owns(t, p) || s.parts[tp{t, p}] != nil {
					continue
				}
				off := int64(offsetEarliest)
				if o, ok := l.start[tp{t, p}]; ok && !r.Started {
					off = o
				}
				c := &split{Topic: t, Partition: p, Offset: off}
				s.splits = append(s.splits, c)
				s.parts[tp{t, p}] = c
				s.nparts.Store(int32(len(s.parts)))
				addOffset(add, c)
			}
			r.Seen[t] = max(r.Seen[t], l.counts[t])
		}
		if l.start != nil {
			r.Started = true
		}
	}
	if len(add) > 0 {
		s.cl.AddConsumePartitions(add)
	}
	return nil
}

// fatal reports whether err is an error that Kafka says retrying does not
// cure, such as a failed authentication or authorization.
func fatal(err error) bool {
	var ke *kerr.Error
	return errors.As(err, &ke) && !ke.Retriable
}

// isNetErr reports whether err is a network failure, which the client
// retries.
func isNetErr(err error) bool {
	var ne net.Error
	return errors.As(err, &ne)
}
