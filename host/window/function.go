package window

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/udf"
)

// Elem is a record kept in or handed to a window.
type Elem struct {
	Value     []byte
	Timestamp int64
}

// AddGroup is one key's window and the records to fold into its
// accumulator (nil Acc with HasAcc false: create one).
type AddGroup struct {
	Key    []byte
	Acc    []byte
	HasAcc bool
	Elems  []Elem
}

// FireGroup is a window that fires: its accumulator (aggregate functions)
// or its records (process functions).
type FireGroup struct {
	Key   []byte
	W     W
	Acc   []byte
	Elems []Elem
}

// Function is the user's window function. The operator calls it with
// many groups at once, so that a batch of records costs one call.
type Function interface {
	// Aggregate tells an aggregate function from a process function.
	Aggregate() bool
	// Add returns the new accumulator of each group, in order.
	Add(ctx context.Context, groups []AddGroup) ([][]byte, error)
	// Merge returns, for each list, the accumulators merged into one.
	Merge(ctx context.Context, groups [][][]byte) ([][]byte, error)
	// Fire appends the results of the windows to out.
	Fire(ctx context.Context, groups []FireGroup, out *record.Batch) error
}

// Wasm is a Function run by a Wasm instance through floe_window.
type Wasm struct {
	In  *udf.Instance
	Agg bool

	payload []byte
	out     record.Batch
}

// Aggregate implements Function.
func (w *Wasm) Aggregate() bool { return w.Agg }

// Add implements Function.
func (w *Wasm) Add(ctx context.Context, groups []AddGroup) ([][]byte, error) {
	p := binary.LittleEndian.AppendUint32(w.payload[:0], uint32(len(groups)))
	for _, g := range groups {
		if g.HasAcc {
			p = appendBytes(p, g.Acc)
		} else {
			p = binary.LittleEndian.AppendUint32(p, 0xFFFFFFFF)
		}
		p = binary.LittleEndian.AppendUint32(p, uint32(len(g.Elems)))
		for _, e := range g.Elems {
			p = appendRecord(p, g.Key, e)
		}
	}
	return w.accumulators(ctx, udf.WindowAdd, p, len(groups))
}

// Merge implements Function.
func (w *Wasm) Merge(ctx context.Context, groups [][][]byte) ([][]byte, error) {
	p := binary.LittleEndian.AppendUint32(w.payload[:0], uint32(len(groups)))
	for _, accs := range groups {
		p = binary.LittleEndian.AppendUint32(p, uint32(len(accs)))
		for _, a := range accs {
			p = appendBytes(p, a)
		}
	}
	return w.accumulators(ctx, udf.WindowMerge, p, len(groups))
}

// Fire implements Function.
func (w *Wasm) Fire(ctx context.Context, groups []FireGroup, out *record.Batch) error {
	p := binary.LittleEndian.AppendUint32(w.payload[:0], uint32(len(groups)))
	for _, g := range groups {
		p = appendBytes(p, g.Key)
		p = binary.LittleEndian.AppendUint64(p, uint64(g.W.Start))
		p = binary.LittleEndian.AppendUint64(p, uint64(g.W.End))
		if w.Agg {
			p = appendBytes(p, g.Acc)
			continue
		}
		p = binary.LittleEndian.AppendUint32(p, uint32(len(g.Elems)))
		for _, e := range g.Elems {
			p = appendRecord(p, g.Key, e)
		}
	}
	w.payload = p
	op := udf.WindowProcess
	if w.Agg {
		op = udf.WindowResult
	}
	return w.In.Window(ctx, op, p, out)
}

// accumulators calls op and returns the n accumulators it emitted.
func (w *Wasm) accumulators(ctx context.Context, op udf.WindowOp, p []byte, n int) ([][]byte, error) {
	w.payload = p
	w.out.Reset()
	if err := w.In.Window(ctx, op, p, &w.out); err != nil {
		return nil, err
	}
	if w.out.Len() != n {
		return nil, fmt.Errorf("window function emitted %d accumulators for %d windows", w.out.Len(), n)
	}
	accs := make([][]byte, n)
	for i := range accs {
		accs[i] = w.out.Records[i].Value
	}
	return accs, nil
}

func appendBytes(p, b []byte) []byte {
	p = binary.LittleEndian.AppendUint32(p, uint32(len(b)))
	return append(p, b...)
}

// appendRecord appends an input record (sdk/ABI.md, "Input batch").
func appendRecord(p, key []byte, e Elem) []byte {
	p = binary.LittleEndian.AppendUint32(p, uint32(len(key)))
	p = binary.LittleEndian.AppendUint32(p, uint32(len(e.Value)))
	p = binary.LittleEndian.AppendUint64(p, uint64(e.Timestamp))
	p = append(p, key...)
	return append(p, e.Value...)
}
