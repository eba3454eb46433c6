package file

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/internal/linewriter"
	"github.com/floe-stream/floe/host/record"
)

// bucketSink is the sink of a job without checkpoints that writes buckets:
// each bucket directory gets a part file of the subtask, PartName(i),
// written as the plain sink writes its one part file. A bucket's file is
// truncated the first time this sink opens it and appended to when it is
// opened again after being closed to bound the open buckets.
type bucketSink struct {
	cfg     SinkConfig
	subtask int
	buckets bucketer
	open    *lru[*sink]
	opened  map[string]bool
	batch   record.Batch // the records of one bucket, passed on together
	closed  bool
}

func openBucketSink(cfg SinkConfig, split connector.SplitInfo) *bucketSink {
	return &bucketSink{
		cfg: cfg, subtask: split.Subtask, buckets: bucketer{layout: cfg.Buckets.Format},
		open: newLRU[*sink](cfg.Buckets.maxOpen()), opened: map[string]bool{},
	}
}

// Write implements connector.Sink: each run of records of one bucket goes
// to its part file in one batch.
func (s *bucketSink) Write(b *record.Batch) error {
	if s.closed {
		return connector.ErrClosed
	}
	cur := ""
	for i := range b.Records {
		r := &b.Records[i]
		bucket, err := s.buckets.bucket(r.Timestamp)
		if err != nil {
			return fmt.Errorf("file sink %s: %w", s.cfg.Path, err)
		}
		if bucket != cur && len(s.batch.Records) > 0 {
			if err := s.flushRun(cur); err != nil {
				return err
			}
		}
		cur = bucket
		s.batch.Records = append(s.batch.Records, *r)
	}
	if len(s.batch.Records) == 0 {
		return nil
	}
	return s.flushRun(cur)
}

// flushRun writes the records gathered for bucket.
func (s *bucketSink) flushRun(bucket string) error {
	defer func() { s.batch.Records = s.batch.Records[:0] }()
	p, ok := s.open.get(bucket)
	if !ok {
		if s.open.full() {
			if _, old := s.open.oldest(); old != nil {
				if err := old.Close(); err != nil {
					return err
				}
			}
		}
		var err error
		if p, err = s.openPart(bucket); err != nil {
			return err
		}
		s.open.add(bucket, p)
	}
	return p.Write(&s.batch)
}

// openPart opens the part file of bucket: created or truncated the first
// time, appended to after.
func (s *bucketSink) openPart(bucket string) (*sink, error) {
	dir := filepath.Join(s.cfg.Path, bucket)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("file sink: create bucket: %w", err)
	}
	path := filepath.Join(dir, PartName(s.subtask))
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if s.opened[bucket] {
		flags = os.O_WRONLY | os.O_APPEND
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return nil, fmt.Errorf("file sink: %w", err)
	}
	s.opened[bucket] = true
	w := linewriter.New(linewriter.Config{
		Out: f, BufferSize: bufferSize(s.cfg.BufferSize),
		FlushInterval: flushInterval(s.cfg.FlushInterval), Ticks: s.cfg.ticks,
	})
	return &sink{path: path, f: f, w: w}, nil
}

// Flush implements connector.Sink.
func (s *bucketSink) Flush() error {
	if s.closed {
		return connector.ErrClosed
	}
	var err error
	for _, e := range s.open.open {
		err = errors.Join(err, e.val.Flush())
	}
	return err
}

// Close implements connector.Sink: every open part file is flushed and
// closed.
func (s *bucketSink) Close() error {
	if s.closed {
		return connector.ErrClosed
	}
	s.closed = true
	var err error
	for _, e := range s.open.open {
		err = errors.Join(err, e.val.Close())
	}
	return err
}
