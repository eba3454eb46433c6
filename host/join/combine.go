package join

import (
	"context"

	"github.com/floe-stream/floe/host/record"
)

// Pair is one joined pair, as a Combiner gets it. Right is nil and
// HasRight false for a left outer join's left row that found no match.
type Pair struct {
	Key       []byte
	KeyGroup  uint16
	Left      []byte
	Right     []byte
	HasRight  bool
	Timestamp int64
}

// Combiner turns joined pairs into output records. The operators hand it
// the pairs of one batch, one watermark step or one timer at once, so that
// a Wasm function is called once per batch; the bytes of pairs belong to
// the caller and are valid only during the call.
type Combiner interface {
	Combine(ctx context.Context, pairs []Pair, out *record.Batch) error
}

// Concat is the built-in Combiner: each pair becomes one record whose value
// is the left value, Sep and the right value (empty for an unmatched left
// row), with the pair's key, key group and timestamp.
type Concat struct{ Sep []byte }

// Combine implements Combiner.
func (c Concat) Combine(_ context.Context, pairs []Pair, out *record.Batch) error {
	var v []byte
	for _, p := range pairs {
		v = append(append(append(v[:0], p.Left...), c.Sep...), p.Right...)
		out.AppendKeyed(p.Key, v, p.Timestamp, p.KeyGroup)
	}
	return nil
}
