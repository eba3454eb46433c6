package kafka

import (
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/floe-stream/floe/host/connector"
)

// lags is a source's lag per partition, written by the task's goroutine
// after each fetch and read by metrics from others.
type lags struct {
	mu  sync.Mutex
	lag map[tp]int64
}

// note records the lag of every partition of fetches against the splits'
// offsets, which emit has advanced: the records up to the last stable
// offset (read_committed, the default) or the high watermark
// (readUncommitted) that the source has not yet emitted.
func (l *lags) note(fetches kgo.Fetches, parts map[tp]*split, uncommitted bool) {
	if len(fetches) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fetches.EachPartition(func(p kgo.FetchTopicPartition) {
		sp := parts[tp{p.Topic, p.Partition}]
		end := p.LastStableOffset
		if uncommitted {
			end = p.HighWatermark
		}
		if sp == nil || end < 0 || sp.Offset < 0 {
			return
		}
		if l.lag == nil {
			l.lag = map[tp]int64{}
		}
		l.lag[tp{p.Topic, p.Partition}] = max(0, end-sp.Offset)
	})
}

// reset forgets every partition, for new splits.
func (l *lags) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lag = nil
}

// Lags implements connector.Lagging.
func (s *source) Lags(dst []connector.PartitionLag) []connector.PartitionLag {
	s.lags.mu.Lock()
	defer s.lags.mu.Unlock()
	for p, n := range s.lags.lag {
		dst = append(dst, connector.PartitionLag{Topic: p.topic, Partition: p.partition, Records: n})
	}
	return dst
}
