package file

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/floe-stream/floe/host/record"
)

// DefaultMaxOpenBuckets is how many buckets a sink subtask keeps a file
// open in when Buckets leaves MaxOpen zero.
const DefaultMaxOpenBuckets = 16

// MaxOpenBucketsLimit is the largest MaxOpen a config accepts.
const MaxOpenBucketsLimit = 1024

// Buckets splits a sink's output into subdirectories by event time, as
// Flink's DateTimeBucketAssigner does: a record goes into the bucket named
// by its timestamp formatted in UTC with a Go time layout, so the layout
// "dt=2006-01-02/hm=15:04" puts a record of 2024-01-01T10:07:31Z into
// <path>/dt=2024-01-01/hm=10:07. The zero Buckets writes no buckets.
type Buckets struct {
	// Format is the Go time layout of a bucket's path, relative to the
	// sink's directory; "" means no buckets.
	Format string
	// MaxOpen bounds the buckets a subtask has a file open in; writing to
	// one more closes the one least recently written. 0 means
	// DefaultMaxOpenBuckets.
	MaxOpen int
}

// errNoEventTime is what a bucketed sink returns for a record without a
// timestamp.
var errNoEventTime = errors.New("a record without an event time cannot go into a time bucket")

// layoutSamples are the instants a layout is tried on: every field of the
// last differs from the first's.
var layoutSamples = []time.Time{
	time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),
	time.Date(1999, 12, 31, 23, 59, 58, 999e6, time.UTC),
}

// CheckBucketFormat reports why layout cannot name buckets: it must give a
// clean relative path inside the sink's directory (no "..", no leading
// "/", no empty element, no element starting with a dot, which would hide
// the bucket the way uncommitted files are hidden).
func CheckBucketFormat(layout string) error {
	for _, at := range layoutSamples {
		p := at.Format(layout)
		if !filepath.IsLocal(p) || filepath.Clean(p) != p || p == "." || strings.Contains(p, `\`) {
			return fmt.Errorf("bucket format %q gives %q, not a relative path inside the sink's directory", layout, p)
		}
		for _, elem := range strings.Split(p, "/") {
			if strings.HasPrefix(elem, ".") {
				return fmt.Errorf("bucket format %q gives %q, whose element %q starts with a dot", layout, p, elem)
			}
		}
	}
	return nil
}

// validate reports what is wrong with b.
func (b Buckets) validate() error {
	if b.MaxOpen < 0 || b.MaxOpen > MaxOpenBucketsLimit {
		return fmt.Errorf("max open buckets %d is not from 1 to %d (or 0 for the default)", b.MaxOpen, MaxOpenBucketsLimit)
	}
	if b.Format == "" {
		return nil
	}
	return CheckBucketFormat(b.Format)
}

// maxOpen returns MaxOpen, or its default.
func (b Buckets) maxOpen() int {
	if b.MaxOpen == 0 {
		return DefaultMaxOpenBuckets
	}
	return b.MaxOpen
}

// bucketer names the bucket of each record. It remembers the last
// timestamp, since consecutive records mostly share their bucket.
type bucketer struct {
	layout string
	buf    []byte
	lastTS int64
	last   string
	primed bool
}

// bucket returns the bucket of a record with timestamp ts: a relative
// path, or "" when there are no buckets.
func (b *bucketer) bucket(ts int64) (string, error) {
	if b.layout == "" {
		return "", nil
	}
	if ts == record.NoTimestamp {
		return "", errNoEventTime
	}
	if b.primed && ts == b.lastTS {
		return b.last, nil
	}
	b.buf = time.UnixMilli(ts).UTC().AppendFormat(b.buf[:0], b.layout)
	if !b.primed || string(b.buf) != b.last {
		b.last = string(b.buf)
	}
	b.lastTS, b.primed = ts, true
	return b.last, nil
}

// lru tracks which of a bounded number of open buckets was written least
// recently.
type lru[T any] struct {
	max   int
	clock uint64
	open  map[string]*lruEntry[T]
}

type lruEntry[T any] struct {
	val  T
	used uint64
}

func newLRU[T any](max int) *lru[T] {
	return &lru[T]{max: max, open: map[string]*lruEntry[T]{}}
}

// get returns the open value of bucket and marks it used.
func (l *lru[T]) get(bucket string) (T, bool) {
	e, ok := l.open[bucket]
	if !ok {
		var zero T
		return zero, false
	}
	l.clock++
	e.used = l.clock
	return e.val, true
}

// full reports whether opening one more bucket needs one closed first.
func (l *lru[T]) full() bool { return len(l.open) >= l.max }

// oldest removes and returns the bucket written least recently.
func (l *lru[T]) oldest() (string, T) {
	var name string
	var best *lruEntry[T]
	for n, e := range l.open {
		if best == nil || e.used < best.used {
			name, best = n, e
		}
	}
	delete(l.open, name)
	return name, best.val
}

// add records v as the open value of bucket, used now.
func (l *lru[T]) add(bucket string, v T) {
	l.clock++
	l.open[bucket] = &lruEntry[T]{val: v, used: l.clock}
}
