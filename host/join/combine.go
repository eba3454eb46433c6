package join

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/floe-stream/floe/host/record"
)

// Pair is one joined pair, as a Combiner gets it. Right is nil and
// HasRight false for a left outer join's left row that found no match;
// Left is nil and NoLeft true for a right outer join's right row that
// found none (outer.go). Retract marks the retraction of a lone row's
// earlier pair, which only a retracting outer interval join emits. A
// window join's pair has its window's first instant in WindowStart (its
// Timestamp is the window's last).
type Pair struct {
	Key         []byte
	KeyGroup    uint16
	Left        []byte
	Right       []byte
	HasRight    bool
	NoLeft      bool
	Retract     bool
	Timestamp   int64
	WindowStart int64
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

// Wasm is the Combiner of a Wasm join function: a flatMap function that
// gets, for each pair, one record with the pair's key and timestamp whose
// value frames the pair (AppendFrame), and emits zero or more records.
type Wasm struct {
	Fn interface {
		Process(ctx context.Context, in, out *record.Batch) error
	}
	in record.Batch
	v  []byte
}

// Combine implements Combiner: one call of the function for all pairs.
func (w *Wasm) Combine(ctx context.Context, pairs []Pair, out *record.Batch) error {
	w.in.Reset()
	for _, p := range pairs {
		w.v = AppendFrame(w.v[:0], p)
		w.in.AppendKeyed(p.Key, w.v, p.Timestamp, p.KeyGroup)
	}
	return w.Fn.Process(ctx, &w.in, out)
}

// AppendFrame appends the value a join function gets for pair p: the
// left value's length as a little-endian u32, the left value, one byte
// that is 1 when the pair has a right value and 0 when it has none (a left
// outer join's unmatched row), and the right value (the rest).
func AppendFrame(dst []byte, p Pair) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(p.Left)))
	dst = append(dst, p.Left...)
	if p.HasRight {
		return append(append(dst, 1), p.Right...)
	}
	return append(dst, 0)
}

// SplitFrame is AppendFrame's inverse; the slices alias frame.
func SplitFrame(frame []byte) (left, right []byte, hasRight bool, err error) {
	if len(frame) < 5 {
		return nil, nil, false, fmt.Errorf("join: a pair frame of %d bytes is shorter than its header", len(frame))
	}
	n := binary.LittleEndian.Uint32(frame)
	if uint64(n)+5 > uint64(len(frame)) {
		return nil, nil, false, fmt.Errorf("join: a pair frame of %d bytes holds a left value of %d", len(frame), n)
	}
	left, rest := frame[4:4+n], frame[4+n:]
	switch rest[0] {
	case 0:
		if len(rest) > 1 {
			return nil, nil, false, fmt.Errorf("join: a pair frame without a right value has %d bytes after its left one", len(rest)-1)
		}
		return left, nil, false, nil
	case 1:
		return left, rest[1:], true, nil
	}
	return nil, nil, false, fmt.Errorf("join: a pair frame's right flag is %d, not 0 or 1", rest[0])
}
