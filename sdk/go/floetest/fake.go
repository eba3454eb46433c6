//go:build !wasip1

package floetest

import (
	"bytes"
	"encoding/binary"
	"slices"
	"sort"

	floe "github.com/floe-stream/floe/sdk/go"
)

// stateKey names one key's state, or the operator state when key is
// operatorKey.
type stateKey struct{ state, key string }

// operatorKey stands for the record index -1: operator state, which has no
// key.
const operatorKey = "\x00operator"

// timer is a registered timer.
type timer struct {
	domain int32
	ts     int64
	key    string
}

// fake implements nativehost.Host in memory. Its state and timers are
// named by state name and key, not by the ids of one instance, so that
// they survive a new Open.
type fake struct {
	states    []string // by id
	outputs   []string // by port - 1
	keys      [][]byte // by record index of the current call
	values    map[stateKey][]byte
	lists     map[stateKey][][]byte
	maps      map[stateKey]map[string][]byte
	timers    map[timer]bool
	watermark int64
	now       int64
	emitted   []Emitted
	failure   *Failure
	// kinds are the declared states' kinds, by id; onBroadcast says the
	// running call is a broadcast input's, the only one that may write
	// broadcast state; trapped that a host function refused the call, as
	// the real host's trap does.
	kinds       []int32
	onBroadcast bool
	trapped     bool
}

func newFake() *fake {
	return &fake{values: map[stateKey][]byte{}, lists: map[stateKey][][]byte{},
		maps: map[stateKey]map[string][]byte{}, timers: map[timer]bool{}, watermark: floe.NoTimestamp}
}

// at names state id's state for record rec.
func (f *fake) at(state, rec int32) stateKey {
	if rec < 0 {
		return stateKey{f.states[state], operatorKey}
	}
	if f.onBroadcast && !f.trapped {
		f.failure = &Failure{Record: -1, Message: "keyed state \"" + f.states[state] + "\" used by the function of the broadcast input, whose records have no key"}
		f.trapped = true
	}
	return stateKey{f.states[state], string(f.keys[rec])}
}

// fill copies v into buf if it fits and returns v's length.
func fill(buf, v []byte) int32 {
	if len(v) <= len(buf) {
		copy(buf, v)
	}
	return int32(len(v))
}

// lengthPrefixed appends b with its u32 length.
func lengthPrefixed(dst, b []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...)
}

func (f *fake) Emit(run []byte) {
	for len(run) >= 16 {
		port := binary.LittleEndian.Uint32(run)
		n := binary.LittleEndian.Uint32(run[4:])
		ts := int64(binary.LittleEndian.Uint64(run[8:]))
		out := "main"
		if port > 0 {
			out = f.outputs[port-1]
		}
		f.emitted = append(f.emitted, Emitted{Output: out, Value: bytes.Clone(run[16 : 16+n]), Timestamp: ts})
		run = run[16+n:]
	}
}

func (f *fake) OutputDeclare(name string) int32 {
	if i := slices.Index(f.outputs, name); i >= 0 {
		return int32(i + 1)
	}
	f.outputs = append(f.outputs, name)
	return int32(len(f.outputs))
}

func (f *fake) Fail(rec int32, msg string) {
	if f.failure == nil {
		f.failure = &Failure{Record: int(rec), Message: msg}
	}
}

// StateDeclare gives each declaration the next id. The fake keeps every
// kind of state by name, so it needs neither the kind nor the flags.
func (f *fake) StateDeclare(kind int32, name string, flags int32) int32 {
	f.states = append(f.states, name)
	f.kinds = append(f.kinds, kind)
	return int32(len(f.states) - 1)
}

func (f *fake) ValueGet(state, rec int32, buf []byte) int32 {
	v, ok := f.values[f.at(state, rec)]
	if !ok {
		return -1
	}
	return fill(buf, v)
}

func (f *fake) ValuePut(state, rec int32, v []byte) { f.values[f.at(state, rec)] = bytes.Clone(v) }
func (f *fake) ValueDelete(state, rec int32)        { delete(f.values, f.at(state, rec)) }

func (f *fake) ListAppend(state, rec int32, v []byte) {
	k := f.at(state, rec)
	f.lists[k] = append(f.lists[k], bytes.Clone(v))
}

func (f *fake) ListGet(state, rec int32, buf []byte) int32 {
	l, ok := f.lists[f.at(state, rec)]
	if !ok {
		return -1
	}
	var b []byte
	for _, e := range l {
		b = lengthPrefixed(b, e)
	}
	return fill(buf, b)
}

func (f *fake) ListClear(state, rec int32) { delete(f.lists, f.at(state, rec)) }

func (f *fake) MapGet(state, rec int32, k, buf []byte) int32 {
	v, ok := f.maps[f.at(state, rec)][string(k)]
	if !ok {
		return -1
	}
	return fill(buf, v)
}

// writable reports whether the running call may write state id's map,
// refusing the call, as the host traps, when it is a broadcast map written
// outside the broadcast input's function.
func (f *fake) writable(state int32) bool {
	if f.kinds[state] != kindBroadcastMap || f.onBroadcast {
		return true
	}
	if !f.trapped {
		f.failure = &Failure{Record: -1, Message: "broadcast state \"" + f.states[state] + "\" is read-only here: only the function of the broadcast input may write it"}
		f.trapped = true
	}
	return false
}

// kindBroadcastMap is the ABI's state kind of broadcast map state.
const kindBroadcastMap = 6

func (f *fake) MapPut(state, rec int32, k, v []byte) {
	if !f.writable(state) {
		return
	}
	sk := f.at(state, rec)
	if f.maps[sk] == nil {
		f.maps[sk] = map[string][]byte{}
	}
	f.maps[sk][string(k)] = bytes.Clone(v)
}

func (f *fake) MapDelete(state, rec int32, k []byte) {
	if !f.writable(state) {
		return
	}
	sk := f.at(state, rec)
	delete(f.maps[sk], string(k))
	if len(f.maps[sk]) == 0 {
		delete(f.maps, sk)
	}
}

// MapEntries returns the entries in key order, so that output is
// deterministic.
func (f *fake) MapEntries(state, rec int32, buf []byte) int32 {
	m, ok := f.maps[f.at(state, rec)]
	if !ok {
		return -1
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b []byte
	for _, k := range keys {
		b = lengthPrefixed(lengthPrefixed(b, []byte(k)), m[k])
	}
	return fill(buf, b)
}

func (f *fake) MapClear(state, rec int32) {
	if f.writable(state) {
		delete(f.maps, f.at(state, rec))
	}
}

func (f *fake) TimerRegister(rec, domain int32, ts int64) {
	f.timers[timer{domain, ts, string(f.keys[rec])}] = true
}

func (f *fake) TimerDelete(rec, domain int32, ts int64) {
	delete(f.timers, timer{domain, ts, string(f.keys[rec])})
}

func (f *fake) CurrentWatermark() int64 { return f.watermark }
func (f *fake) ProcessingTime() int64   { return f.now }

// due removes and returns the earliest timer of domain at or before upTo,
// the smallest key first among equal timestamps, as the host fires them.
func (f *fake) due(domain int32, upTo int64) (timer, bool) {
	var next timer
	found := false
	for t := range f.timers {
		if t.domain != domain || t.ts > upTo {
			continue
		}
		if !found || t.ts < next.ts || t.ts == next.ts && t.key < next.key {
			next, found = t, true
		}
	}
	if found {
		delete(f.timers, next)
	}
	return next, found
}
