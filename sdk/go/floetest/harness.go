//go:build !wasip1

package floetest

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"

	floe "github.com/floe-stream/floe/sdk/go"
	"github.com/floe-stream/floe/sdk/go/internal/nativehost"
)

// The operations of floe_window (sdk/ABI.md, "Window functions").
const (
	windowAdd     = 0
	windowMerge   = 1
	windowResult  = 2
	windowProcess = 3
)

// Harness drives a module's functions as Floe's host would: open, batches,
// timers, windows and close. New installs it as the SDK's host; the last
// Harness made is the one the SDK calls.
type Harness struct {
	f *fake
	// broadcast says the instance's second input is a broadcast input
	// (OpenBroadcast).
	broadcast bool
}

// New returns a harness with no state, no timers, no watermark
// (floe.NoTimestamp) and processing time 0, and installs it as the host of
// the SDK's operator.
func New() *Harness {
	h := &Harness{f: newFake()}
	nativehost.Current = h.f
	return h
}

// Open opens an instance running the function registered as function, with
// params and the host's floe.* entries (subtask 0 of 1, 128 key groups,
// unless params sets them). It fails with a *Failure.
func (h *Harness) Open(function string, params map[string]string) error {
	all := map[string]string{"floe.function": function, "floe.operator": "op", "floe.job": "test",
		"floe.subtask": "0", "floe.parallelism": "1", "floe.max_parallelism": "128"}
	for k, v := range params {
		all[k] = v
	}
	names := make([]string, 0, len(all))
	for k := range all {
		names = append(names, k)
	}
	slices.Sort(names)
	block := binary.LittleEndian.AppendUint32(nil, uint32(len(names)))
	for _, k := range names {
		block = lengthPrefixed(lengthPrefixed(block, []byte(k)), []byte(all[k]))
	}
	h.f.states, h.f.kinds, h.f.outputs, h.f.keys = nil, nil, nil, nil
	h.broadcast = false
	_, err := h.call(block, func(n int) int32 { return nativehost.Module.Open(n) })
	return err
}

// OpenCoProcess opens an instance of a two-input operator (a job spec's
// coProcess), running first on the records of its first input (Process)
// and second on those of its second (Process2), as Open does otherwise.
func (h *Harness) OpenCoProcess(first, second string, params map[string]string) error {
	all := map[string]string{"floe.function2": second}
	for k, v := range params {
		all[k] = v
	}
	return h.Open(first, all)
}

// OpenBroadcast opens an instance of an operator with a broadcast input (a
// job spec's coProcess with broadcast:): keyed runs on the records of its
// keyed input (Process), broadcast on those of its broadcast input
// (Process2, whose records have no key). As on Floe's host, only the
// broadcast function may write broadcast state: a write from any other
// call fails it.
func (h *Harness) OpenBroadcast(keyed, broadcast string, params map[string]string) error {
	err := h.OpenCoProcess(keyed, broadcast, params)
	h.broadcast = true
	return err
}

// BroadcastState returns the broadcast state named state, as stored, by
// encoded map key.
func (h *Harness) BroadcastState(state string) map[string][]byte {
	return h.f.maps[stateKey{state, operatorKey}]
}

// Process runs one batch of records and returns what it emitted. It fails
// with a *Failure that names the record at fault.
func (h *Harness) Process(records ...Record) ([]Emitted, error) {
	return h.process(nativehost.Module.Process, records)
}

// Process2 runs one batch of records of a two-input operator's second
// input (see OpenCoProcess), as Process does for its first.
func (h *Harness) Process2(records ...Record) ([]Emitted, error) {
	h.f.onBroadcast = h.broadcast
	defer func() { h.f.onBroadcast = false }()
	return h.process(nativehost.Module.Process2, records)
}

func (h *Harness) process(export func(n, count int) int32, records []Record) ([]Emitted, error) {
	var batch []byte
	h.f.keys = h.f.keys[:0]
	for _, r := range records {
		batch = appendRecord(batch, r.Key, r)
		h.f.keys = append(h.f.keys, r.Key)
	}
	return h.call(batch, func(n int) int32 { return export(n, len(records)) })
}

// AdvanceWatermark moves the watermark to wm and fires the event-time
// timers due, in timestamp then key order, returning what they emitted.
func (h *Harness) AdvanceWatermark(wm int64) ([]Emitted, error) {
	h.f.watermark = wm
	return h.fire(int32(floe.EventTime), wm)
}

// AdvanceProcessingTime moves processing time to now (ms since the epoch)
// and fires the processing-time timers due, returning what they emitted.
func (h *Harness) AdvanceProcessingTime(now int64) ([]Emitted, error) {
	h.f.now = now
	return h.fire(int32(floe.ProcessingTime), now)
}

// fire runs the timers of domain due at upTo, one call each.
func (h *Harness) fire(domain int32, upTo int64) ([]Emitted, error) {
	var out []Emitted
	for {
		t, ok := h.f.due(domain, upTo)
		if !ok {
			return out, nil
		}
		h.f.keys = [][]byte{[]byte(t.key)}
		got, err := h.call([]byte(t.key), func(n int) int32 { return nativehost.Module.OnTimer(domain, t.ts, n) })
		out = append(out, got...)
		if err != nil {
			return out, err
		}
	}
}

// Timers returns the number of timers registered and not yet fired.
func (h *Harness) Timers() int { return len(h.f.timers) }

// AggregateWindow runs an aggregate function (floe.Aggregate) over one
// window of key as the host does: each batch is folded into an accumulator
// of its own, the accumulators are merged when there are several, and the
// result is asked for. It returns what the result emitted. A window exists
// only once a record falls into it, so batches must not be empty.
func (h *Harness) AggregateWindow(key []byte, w floe.Window, batches ...[]Record) ([]Emitted, error) {
	if len(batches) == 0 {
		return nil, &Failure{Record: -1, Message: "floetest: AggregateWindow needs at least one batch"}
	}
	p := binary.LittleEndian.AppendUint32(nil, uint32(len(batches)))
	for _, b := range batches {
		p = binary.LittleEndian.AppendUint32(p, math.MaxUint32)
		p = binary.LittleEndian.AppendUint32(p, uint32(len(b)))
		for _, r := range b {
			p = appendRecord(p, key, r)
		}
	}
	accs, err := h.window(windowAdd, p)
	if err != nil {
		return nil, err
	}
	var acc []byte
	switch {
	case len(accs) == 1:
		acc = accs[0].Value
	case len(accs) > 1:
		p = binary.LittleEndian.AppendUint32(nil, 1)
		p = binary.LittleEndian.AppendUint32(p, uint32(len(accs)))
		for _, a := range accs {
			p = lengthPrefixed(p, a.Value)
		}
		merged, err := h.window(windowMerge, p)
		if err != nil {
			return nil, err
		}
		acc = merged[0].Value
	}
	p = lengthPrefixed(binary.LittleEndian.AppendUint32(nil, 1), key)
	p = binary.LittleEndian.AppendUint64(p, uint64(w.Start))
	p = binary.LittleEndian.AppendUint64(p, uint64(w.End))
	return h.window(windowResult, lengthPrefixed(p, acc))
}

// ProcessWindow runs a window process function (floe.ProcessWindow) over
// one window of key with records, as the host does when the window fires.
func (h *Harness) ProcessWindow(key []byte, w floe.Window, records ...Record) ([]Emitted, error) {
	p := lengthPrefixed(binary.LittleEndian.AppendUint32(nil, 1), key)
	p = binary.LittleEndian.AppendUint64(p, uint64(w.Start))
	p = binary.LittleEndian.AppendUint64(p, uint64(w.End))
	p = binary.LittleEndian.AppendUint32(p, uint32(len(records)))
	for _, r := range records {
		p = appendRecord(p, key, r)
	}
	return h.window(windowProcess, p)
}

func (h *Harness) window(opcode int32, payload []byte) ([]Emitted, error) {
	h.f.keys = nil
	return h.call(payload, func(n int) int32 { return nativehost.Module.Window(opcode, n) })
}

// Close closes the instance, running its OnClose hooks.
func (h *Harness) Close() error {
	_, err := h.call(nil, func(int) int32 { return nativehost.Module.Close() })
	return err
}

// Value returns the value state named state of key, as stored (encoded by
// its codec), and whether there is one.
func (h *Harness) Value(state string, key []byte) ([]byte, bool) {
	v, ok := h.f.values[stateKey{state, string(key)}]
	return v, ok
}

// List returns the list state named state of key, as stored.
func (h *Harness) List(state string, key []byte) [][]byte {
	return h.f.lists[stateKey{state, string(key)}]
}

// Map returns the map state named state of key, as stored, by encoded map
// key.
func (h *Harness) Map(state string, key []byte) map[string][]byte {
	return h.f.maps[stateKey{state, string(key)}]
}

// OperatorList returns the operator list state named state, as stored.
func (h *Harness) OperatorList(state string) [][]byte {
	return h.f.lists[stateKey{state, operatorKey}]
}

// PresetOperatorList sets the operator list state named state as a restore
// would, before an Open.
func (h *Harness) PresetOperatorList(state string, elements ...[]byte) {
	l := make([][]byte, len(elements))
	for i, e := range elements {
		l[i] = bytes.Clone(e)
	}
	h.f.lists[stateKey{state, operatorKey}] = l
}

// call copies input into the module's input buffer, runs export on it and
// returns what it emitted, or its failure.
func (h *Harness) call(input []byte, export func(n int) int32) ([]Emitted, error) {
	nativehost.Current = h.f
	copy(nativehost.Module.Alloc(len(input)), input)
	h.f.emitted, h.f.failure, h.f.trapped = nil, nil, false
	status := export(len(input))
	out := h.f.emitted
	h.f.emitted = nil
	if status != 0 || h.f.trapped {
		f := h.f.failure
		if f == nil {
			f = &Failure{Record: -1, Message: "failed without a message"}
		}
		return out, f
	}
	return out, nil
}

// appendRecord appends r under key in the layout of a batch (sdk/ABI.md).
func appendRecord(dst, key []byte, r Record) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(key)))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(r.Value)))
	dst = binary.LittleEndian.AppendUint64(dst, uint64(r.Timestamp))
	dst = append(dst, key...)
	return append(dst, r.Value...)
}
