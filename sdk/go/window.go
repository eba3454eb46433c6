package floe

import (
	"encoding/binary"
	"fmt"
)

// Window is a window's time range [Start, End), in ms since the epoch.
type Window struct{ Start, End int64 }

// Record is an input record handed to a window function.
type Record struct {
	Value     []byte
	Timestamp int64
}

// AggregateFunc is an incremental window function: the host keeps one
// accumulator of type A per key and window, folds each record into it with
// Add as it arrives, merges accumulators when session windows merge, and
// calls Result when the window fires. Add and Merge may modify and return
// their argument.
type AggregateFunc[A any] struct {
	Create func() A
	Add    func(acc A, rec Record) A
	Merge  func(a, b A) A
	// Result emits the window's results; they carry the timestamp
	// w.End-1.
	Result func(key []byte, w Window, acc A, out Emitter) error
}

// Aggregate registers an aggregate function for a job spec's window
// operator (`aggregate: name`). c encodes the accumulator between calls.
func Aggregate[A any](name string, c Codec[A], fn AggregateFunc[A]) {
	decode := func(b []byte) (A, error) { return c.Decode(b) }
	register(name, function{kind: kindAggregate, agg: &aggregate{
		add: func(dst, acc []byte, has bool, recs []Record) ([]byte, error) {
			var a A
			if has {
				var err error
				if a, err = decode(acc); err != nil {
					return nil, fmt.Errorf("accumulator: %w", err)
				}
			} else {
				a = fn.Create()
			}
			for _, r := range recs {
				a = fn.Add(a, r)
			}
			return c.Append(dst, a), nil
		},
		merge: func(accs [][]byte) ([]byte, error) {
			var m A
			for i, b := range accs {
				a, err := decode(b)
				if err != nil {
					return nil, fmt.Errorf("accumulator: %w", err)
				}
				if i == 0 {
					m = a
				} else {
					m = fn.Merge(m, a)
				}
			}
			if len(accs) == 0 {
				m = fn.Create()
			}
			return c.Append(nil, m), nil
		},
		result: func(key []byte, w Window, acc []byte, out Emitter) error {
			a, err := decode(acc)
			if err != nil {
				return fmt.Errorf("accumulator: %w", err)
			}
			return fn.Result(key, w, a, out)
		},
	}})
}

// ProcessWindow registers a window process function for a job spec's
// window operator (`process: name`): it gets every record of a key's
// window when the window fires. Its results carry the timestamp w.End-1.
func ProcessWindow(name string, fn func(key []byte, w Window, recs []Record, out Emitter) error) {
	register(name, function{kind: kindWindow, window: fn})
}

// aggregate is an AggregateFunc with its accumulator type erased.
type aggregate struct {
	// add appends the new accumulator to dst.
	add    func(dst, acc []byte, has bool, recs []Record) ([]byte, error)
	merge  func(accs [][]byte) ([]byte, error)
	result func(key []byte, w Window, acc []byte, out Emitter) error
}

// The operations of floe_window (sdk/ABI.md, "Window functions").
const (
	windowAdd     = 0
	windowMerge   = 1
	windowResult  = 2
	windowProcess = 3
)

// window runs floe_window's op over the payload in the input buffer's first
// n bytes.
func (o *operator) window(opcode int32, n int) int32 {
	err := callSafely(func() error { return o.runWindow(opcode, o.in[:n]) })
	o.flush()
	if err != nil {
		return failWith(-1, err)
	}
	return 0
}

func (o *operator) runWindow(opcode int32, buf []byte) error {
	wantAgg := opcode != windowProcess
	switch {
	case opcode < windowAdd || opcode > windowProcess:
		return fmt.Errorf("unknown window operation %d", opcode)
	case wantAgg && o.fn.kind != kindAggregate:
		return fmt.Errorf("function %s is not an aggregate function (register it with floe.Aggregate)", o.name)
	case !wantAgg && o.fn.kind != kindWindow:
		return fmt.Errorf("function %s is not a window process function (register it with floe.ProcessWindow)", o.name)
	}
	r := reader{buf: buf}
	groups := int(r.u32())
	for g := 0; g < groups && r.err == nil; g++ {
		switch opcode {
		case windowAdd:
			// NB: the records' slice and the new accumulator's bytes
			// are reused from group to group; Add gets records by
			// value, and the output copies the accumulator. An
			// allocation of each per group was most of the guest's cost
			// of a count over many small groups (Nexmark q5,
			// RATIONALE.md).
			acc, has := r.acc()
			o.recs = r.appendRecords(o.recs[:0], int(r.u32()))
			if r.err != nil {
				break
			}
			next, err := o.fn.agg.add(o.accBuf[:0], acc, has, o.recs)
			if err != nil {
				return err
			}
			o.accBuf = next
			o.out = appendOutput(o.out, 0, next, NoTimestamp)
		case windowMerge:
			accs := make([][]byte, int(r.u32()))
			for i := range accs {
				accs[i], _ = r.acc()
			}
			if r.err != nil {
				break
			}
			m, err := o.fn.agg.merge(accs)
			if err != nil {
				return err
			}
			o.out = appendOutput(o.out, 0, m, NoTimestamp)
		case windowResult:
			key, w := r.bytes(), Window{r.i64(), r.i64()}
			acc, _ := r.acc()
			if r.err != nil {
				break
			}
			o.ctx.key, o.ctx.ts = key, w.End-1
			if err := o.fn.agg.result(key, w, acc, o); err != nil {
				return err
			}
		case windowProcess:
			key, w := r.bytes(), Window{r.i64(), r.i64()}
			recs := r.records(int(r.u32()))
			if r.err != nil {
				break
			}
			o.ctx.key, o.ctx.ts = key, w.End-1
			if err := o.fn.window(key, w, recs, o); err != nil {
				return err
			}
		}
		if len(o.out) >= outputFlushSize {
			o.flush()
		}
	}
	return r.err
}

// reader decodes a floe_window payload; the first error sticks.
type reader struct {
	buf []byte
	off int
	err error
}

func (r *reader) need(n int) bool {
	if r.err == nil && len(r.buf)-r.off < n {
		r.err = errShortBuffer
	}
	return r.err == nil
}

func (r *reader) u32() uint32 {
	if !r.need(4) {
		return 0
	}
	v := binary.LittleEndian.Uint32(r.buf[r.off:])
	r.off += 4
	return v
}

func (r *reader) i64() int64 {
	if !r.need(8) {
		return 0
	}
	v := int64(binary.LittleEndian.Uint64(r.buf[r.off:]))
	r.off += 8
	return v
}

func (r *reader) bytes() []byte {
	n := int(r.u32())
	if !r.need(n) {
		return nil
	}
	b := r.buf[r.off : r.off+n : r.off+n]
	r.off += n
	return b
}

// acc reads an accumulator; a length of 0xFFFFFFFF means none.
func (r *reader) acc() ([]byte, bool) {
	if r.need(4) && binary.LittleEndian.Uint32(r.buf[r.off:]) == 0xFFFFFFFF {
		r.off += 4
		return nil, false
	}
	return r.bytes(), r.err == nil
}

func (r *reader) records(n int) []Record {
	return r.appendRecords(make([]Record, 0, n), n)
}

// appendRecords appends n records to recs.
func (r *reader) appendRecords(recs []Record, n int) []Record {
	for i := 0; i < n && r.err == nil; i++ {
		_, v, ts, next, err := decodeInput(r.buf, r.off)
		if err != nil {
			r.err = err
			break
		}
		r.off = next
		recs = append(recs, Record{Value: v, Timestamp: ts})
	}
	return recs
}
