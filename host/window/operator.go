package window

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/timer"
	"github.com/floe-stream/floe/host/udf"
)

// Config configures a window operator.
type Config struct {
	Spec Spec
	// Domain is the time windows are measured in.
	Domain udf.TimeDomain
	// AllowedLateness (ms, event time) keeps a fired window that long, so
	// that late records update it and fire it again.
	AllowedLateness int64
	// LateOutput names the side output of records too late for every
	// window they belong to; "" drops them.
	LateOutput string
	// Now is processing time in ms.
	Now func() int64
	// LiveBytes bounds the memory an aggregate's live tumbling and
	// sliding windows without allowed lateness take in the operator
	// (live.go), or its session lists (sessionlive.go); past it, windows
	// go to keyed state. 0 keeps them all in state.
	LiveBytes int64
}

// Operator is one subtask of a keyed window operator.
type Operator struct {
	cfg       Config
	fn        Function
	state     udf.MapState // key → window → accumulator, or record count; sessions: key → sessionsKey → list
	elems     udf.MapState // key → window, sequence → record (process functions)
	timers    *timer.Queue
	watermark int64
	// procFired is the latest processing-time timer fired (NoTimestamp
	// before the first): a record that arrives at or before it belongs to
	// a later window (timestamp).
	procFired int64
	late      record.Batch
	lateCount int64

	ws     []W
	groups map[string]int // sessions: group index by key, per batch
	heads  map[string]int // tumbling, sliding: key's latest group, per batch
	next   []int          // the key's group before group i, or -1
	adds   []AddGroup
	addWin []W
	addKG  []uint16
	refire []bool
	mk     [16]byte
	enc    []byte
	fire   []FireGroup    // the windows the timers being fired fire
	one    [1]timer.Timer // FireTimer's timer

	live      map[string]*liveKey // live windows in memory, by key (live.go)
	liveBytes int64               // their size, for Config.LiveBytes
	stateOnly int64               // windows in state only: past the bound, or restored
	liveOf    []*liveKey          // group i's key's live windows, per batch
	fromState []bool              // group i's accumulator was read from state

	sl sessionsInMemory // live session lists (sessionlive.go)
}

// ErrNoTimestamp is returned for a record without event time in an
// event-time window.
var ErrNoTimestamp = errors.New("window: a record without a timestamp reached an event-time window (give the source timestamps)")

// New returns an operator keeping its windows in state, the records of a
// process function's windows in elems (one entry per record, so adding one
// costs the same however full the window), and its timers in timers, all
// in the subtask's keyed state.
func New(cfg Config, fn Function, state, elems udf.MapState, timers *timer.Queue) (*Operator, error) {
	if err := cfg.Spec.Validate(); err != nil {
		return nil, err
	}
	return &Operator{cfg: cfg, fn: fn, state: state, elems: elems, timers: timers, watermark: record.NoTimestamp, procFired: record.NoTimestamp, groups: map[string]int{}, heads: map[string]int{}, live: map[string]*liveKey{}}, nil
}

// ProcessingTime reports whether the operator's windows are measured in
// processing time.
func (o *Operator) ProcessingTime() bool { return o.cfg.Domain == udf.ProcessingTime }

// SetWatermark tells the operator its event time.
func (o *Operator) SetWatermark(ts int64) { o.watermark = ts }

// SideOutputs returns the late-data output, if any.
func (o *Operator) SideOutputs() []string {
	if o.cfg.LateOutput == "" {
		return nil
	}
	return []string{o.cfg.LateOutput}
}

// SideOutput returns the batch of late records since the caller reset it.
func (o *Operator) SideOutput(int) *record.Batch { return &o.late }

// Late returns how many records came too late for any window.
func (o *Operator) Late() int64 { return o.lateCount }

// Close implements the task's Operator; the function's instance is closed
// by its owner.
func (o *Operator) Close(context.Context) error { return nil }

// isLate tells whether w is past its allowed lateness.
func (o *Operator) isLate(w W) bool {
	return o.cfg.Domain == udf.EventTime && o.watermark != record.NoTimestamp &&
		w.MaxTimestamp()+o.cfg.AllowedLateness <= o.watermark
}

// fired tells whether w has fired already (a late record updates it).
func (o *Operator) fired(w W) bool {
	return o.cfg.Domain == udf.EventTime && o.watermark != record.NoTimestamp && w.MaxTimestamp() <= o.watermark
}

// Process assigns the records of in to windows and updates their state;
// out gets the results of windows that late records fire again.
func (o *Operator) Process(ctx context.Context, in, out *record.Batch) error {
	if o.cfg.Spec.Kind == Session {
		return o.processSessions(ctx, in, out)
	}
	o.reset()
	for i := range in.Records {
		r := &in.Records[i]
		ts, err := o.timestamp(r)
		if err != nil {
			return err
		}
		if !o.place(r, ts) {
			o.toLate(r)
		}
	}
	return o.flush(ctx, out)
}

func (o *Operator) timestamp(r *record.Record) (int64, error) {
	if o.cfg.Domain == udf.ProcessingTime {
		// NB: the timers due at now fire before the records that arrive
		// at now; a record of the same millisecond as a window's firing
		// would make that window again, which would fire twice. The clock
		// a record sees is past every fired window's end instead.
		return max(o.cfg.Now(), o.procFired+1), nil
	}
	if r.Timestamp == record.NoTimestamp {
		return 0, ErrNoTimestamp
	}
	return r.Timestamp, nil
}

func (o *Operator) toLate(r *record.Record) {
	o.lateCount++
	if o.cfg.LateOutput != "" {
		o.late.Append(nil, r.Value, r.Timestamp)
	}
}

func (o *Operator) reset() {
	clear(o.groups)
	clear(o.heads)
	o.adds, o.addWin, o.addKG, o.refire, o.next = o.adds[:0], o.addWin[:0], o.addKG[:0], o.refire[:0], o.next[:0]
}

// place puts record r into the groups of this batch of the windows it
// belongs to, and tells whether any was not late. The key is looked up
// once per record and its groups found on a short list, rather than a
// lookup by key and window per window: those lookups were an eighth of
// Nexmark q5's CPU (five sliding windows per record).
func (o *Operator) place(r *record.Record, ts int64) bool {
	o.ws = o.cfg.Spec.Assign(o.ws[:0], ts)
	head, ok := o.heads[string(r.Key)]
	if !ok {
		head = -1
	}
	placed, was := false, head
	for _, w := range o.ws {
		if o.isLate(w) {
			continue
		}
		placed = true
		head = o.add(r, w, ts, head)
	}
	if head != was {
		o.heads[string(r.Key)] = head
	}
	return placed
}

// add puts record r into window w's group of this batch, given the key's
// latest group head, and returns the key's latest group.
func (o *Operator) add(r *record.Record, w W, ts int64, head int) int {
	g := head
	for g >= 0 && o.addWin[g] != w {
		g = o.next[g]
	}
	if g < 0 {
		g = len(o.adds)
		o.adds = o.addGroup(r.Key)
		o.addWin = append(o.addWin, w)
		o.addKG = append(o.addKG, r.KeyGroup)
		o.refire = append(o.refire, o.fired(w))
		o.next = append(o.next, head)
		head = g
	}
	o.adds[g].Elems = append(o.adds[g].Elems, Elem{Value: r.Value, Timestamp: ts})
	return head
}

// addGroup appends a group of key to o.adds, reusing the records slice
// an earlier batch's group left in that place: growing each group's slice
// again in every batch was most of add's cost in Nexmark q5 and q7's
// profiles (RATIONALE.md).
func (o *Operator) addGroup(key []byte) []AddGroup {
	n := len(o.adds)
	if n == cap(o.adds) {
		return append(o.adds, AddGroup{Key: key})
	}
	adds := o.adds[:n+1]
	adds[n] = AddGroup{Key: key, Elems: adds[n].Elems[:0]}
	return adds
}

// flush folds this batch's groups into state, registers their timers and
// fires again the windows that late records updated.
func (o *Operator) flush(ctx context.Context, out *record.Batch) error {
	if len(o.adds) == 0 {
		return nil
	}
	if o.liveOn() {
		if err := o.addLive(ctx); err != nil {
			return err
		}
	} else if o.fn.Aggregate() {
		for i := range o.adds {
			g := &o.adds[i]
			acc, ok, err := o.state.Get(o.addKG[i], g.Key, o.mapKey(o.addWin[i]))
			if err != nil {
				return err
			}
			g.Acc, g.HasAcc = bytes.Clone(acc), ok
		}
		accs, err := o.fn.Add(ctx, o.adds)
		if err != nil {
			return err
		}
		for i, acc := range accs {
			if err := o.state.Put(o.addKG[i], o.adds[i].Key, o.mapKey(o.addWin[i]), acc); err != nil {
				return err
			}
		}
	} else {
		for i := range o.adds {
			held, err := o.appendElems(o.addKG[i], o.adds[i].Key, o.addWin[i], o.adds[i].Elems)
			if err != nil {
				return err
			}
			o.adds[i].HasAcc = held
		}
	}
	var fire []FireGroup
	for i := range o.adds {
		g := &o.adds[i]
		// NB: a window already in state has its timers: they were set
		// when it was first written, and timers live in the same keyed
		// state. Registering them again cost a timer lookup per window
		// per batch.
		if !g.HasAcc {
			if err := o.register(o.addKG[i], g.Key, o.addWin[i]); err != nil {
				return err
			}
		}
		if o.refire[i] {
			fg, err := o.load(o.addKG[i], g.Key, o.addWin[i])
			if err != nil {
				return err
			}
			fire = append(fire, fg)
		}
	}
	if len(fire) > 0 {
		return o.fn.Fire(ctx, fire, out)
	}
	return nil
}

// register sets the timers of window w of key: firing, and cleanup after
// the allowed lateness.
func (o *Operator) register(kg uint16, key []byte, w W) error {
	if o.timersInMemory() {
		o.timers.RegisterInMemory(kg, key, o.cfg.Domain, w.MaxTimestamp())
		return nil
	}
	if !o.fired(w) {
		if err := o.timers.Register(kg, key, o.cfg.Domain, w.MaxTimestamp()); err != nil {
			return err
		}
	}
	if o.cfg.AllowedLateness > 0 && o.cfg.Domain == udf.EventTime {
		return o.timers.Register(kg, key, o.cfg.Domain, w.MaxTimestamp()+o.cfg.AllowedLateness)
	}
	return nil
}

// timersInMemory tells whether the operator's timers live in memory only
// (timer.Queue.RegisterInMemory). Tumbling and sliding windows without
// allowed lateness do: such a window is in state exactly while its one
// timer is pending, as it fires and goes in one step, so the windows a
// checkpoint holds say which timers to set again after a restore
// (RestoredWindow). Writing each window's timer to keyed state, then
// deleting it, was a sixth of Nexmark q5's profile (RATIONALE.md). A window
// kept for late records has fired, and its cleanup timer cannot be told
// from its state, so those keep theirs in state. Sessions without allowed
// lateness keep theirs in memory too: a key's list says which are due
// (restoredSessions).
func (o *Operator) timersInMemory() bool {
	return o.lateness() == 0
}

// RestoredWindow sets again the timer of a window found in restored
// keyed state, given the key and the map key of its entry in the
// operator's window state; the task calls it for each such entry of the
// key groups it restores.
func (o *Operator) RestoredWindow(kg uint16, key, mapKey []byte) error {
	if o.cfg.Spec.Kind == Session {
		return o.restoredSessions(kg, key, mapKey)
	}
	if !o.timersInMemory() {
		return nil
	}
	if len(mapKey) != len(o.mk) {
		return fmt.Errorf("window: malformed window entry %x", mapKey)
	}
	w := decodeWindow(mapKey)
	if o.liveOn() {
		o.stateOnly++
	}
	o.timers.RegisterInMemory(kg, bytes.Clone(key), o.cfg.Domain, w.MaxTimestamp())
	return nil
}

// load reads window w of key as a FireGroup.
func (o *Operator) load(kg uint16, key []byte, w W) (FireGroup, error) {
	fg := FireGroup{Key: bytes.Clone(key), W: w}
	if !o.fn.Aggregate() {
		var err error
		fg.Elems, err = o.loadElems(kg, key, w)
		return fg, err
	}
	if acc, ok := o.peekLive(key, w); ok {
		fg.Acc = bytes.Clone(acc)
		return fg, nil
	}
	v, ok, err := o.state.Get(kg, key, o.mapKey(w))
	if err != nil || !ok {
		return FireGroup{}, err
	}
	fg.Acc = bytes.Clone(v)
	return fg, nil
}

// FireTimer fires the windows of key whose time has come at ts and drops
// those past their allowed lateness.
func (o *Operator) FireTimer(ctx context.Context, d udf.TimeDomain, ts int64, kg uint16, key []byte, out *record.Batch) error {
	o.one[0] = timer.Timer{Domain: d, Timestamp: ts, KeyGroup: kg, Key: key}
	return o.FireTimers(ctx, o.one[:], out)
}

// FireTimers does what FireTimer does for each of timers, popped in
// order, with one call of the function for all the windows they fire: the
// results are those of firing the timers one by one, in the same order. A
// call per timer was most of the cost of firing when many keys' windows
// end at once (Nexmark q5, RATIONALE.md).
func (o *Operator) FireTimers(ctx context.Context, timers []timer.Timer, out *record.Batch) error {
	defer func() { clear(o.fire); o.fire = o.fire[:0] }()
	for _, tm := range timers {
		if tm.Domain == udf.ProcessingTime {
			o.procFired = max(o.procFired, tm.Timestamp)
		}
		var err error
		if o.cfg.Spec.Kind == Session {
			err = o.fireSessions(tm.Timestamp, tm.KeyGroup, tm.Key)
		} else {
			err = o.fireFixed(tm.Timestamp, tm.KeyGroup, tm.Key)
		}
		if err != nil {
			return err
		}
	}
	if len(o.fire) == 0 {
		return nil
	}
	return o.fn.Fire(ctx, o.fire, out)
}

// fireFixed adds the tumbling or sliding window of key due at ts to
// o.fire and drops the one past its allowed lateness. Such a window is the
// one window of its size ending at its timer's instant, so point reads
// find them: the window ending at ts+1 fires, the one ending lateness
// earlier is dropped. This replaced a scan of all the key's windows per
// timer, which was a fifth of Nexmark q5's CPU (RATIONALE.md); the window
// that fires is read once, for its presence and its accumulator.
func (o *Operator) fireFixed(ts int64, kg uint16, key []byte) error {
	due := W{ts + 1 - o.cfg.Spec.Size, ts + 1}
	if o.liveOn() {
		acc, ok, err := o.takeLive(kg, key, due)
		if err != nil {
			return err
		}
		if ok {
			o.fire = append(o.fire, FireGroup{Key: bytes.Clone(key), W: due, Acc: acc})
			return nil
		}
		if o.stateOnly == 0 {
			return nil // the window is not in state either
		}
	}
	v, ok, err := o.state.Get(kg, key, o.mapKey(due))
	if err != nil {
		return err
	}
	if ok {
		fg := FireGroup{Key: bytes.Clone(key), W: due}
		if o.fn.Aggregate() {
			fg.Acc = bytes.Clone(v)
		} else if fg.Elems, err = o.loadElems(kg, key, due); err != nil {
			return err
		}
		o.fire = append(o.fire, fg)
	}
	l := o.lateness()
	if l == 0 {
		if !ok {
			return nil
		}
		if o.liveOn() {
			o.stateOnly--
		}
		return o.dropWindow(kg, key, due)
	}
	drop := W{due.Start - l, due.End - l}
	if _, ok, err = o.state.Get(kg, key, o.mapKey(drop)); err != nil || !ok {
		return err
	}
	return o.dropWindow(kg, key, drop)
}

// dropWindow deletes window w of key and its records.
func (o *Operator) dropWindow(kg uint16, key []byte, w W) error {
	if err := o.state.Delete(kg, key, o.mapKey(w)); err != nil {
		return err
	}
	if o.fn.Aggregate() {
		return nil
	}
	return o.dropElems(kg, key, w)
}

// dropElems deletes the records of window w of key.
func (o *Operator) dropElems(kg uint16, key []byte, w W) error {
	return udf.DeletePrefix(o.elems, kg, key, bytes.Clone(o.mapKey(w)))
}

func (o *Operator) lateness() int64 {
	if o.cfg.Domain == udf.EventTime {
		return o.cfg.AllowedLateness
	}
	return 0
}

// appendElems adds records to window w of key: one elems entry, under
// the window and a sequence number, and the window's count in state. It
// tells whether the window was in state already.
func (o *Operator) appendElems(kg uint16, key []byte, w W, elems []Elem) (bool, error) {
	var n uint64
	v, ok, err := o.state.Get(kg, key, o.mapKey(w))
	if err != nil {
		return false, err
	}
	if ok && len(v) == 8 {
		n = binary.BigEndian.Uint64(v)
	}
	if n, err = o.putElems(kg, key, w, n, elems); err != nil {
		return false, err
	}
	var count [8]byte
	binary.BigEndian.PutUint64(count[:], n)
	return ok, o.state.Put(kg, key, o.mapKey(w), count[:])
}

// putElems writes records to window w of key as one elems entry, a
// chunk under sequence number n, and returns the next sequence number,
// n+len(elems). One entry per batch rather than per record: a window keyed
// by the window itself (Nexmark q5's second stage, q7) got every record of
// a batch, and an entry per record cost a state Put, a scan hit and a
// Delete each (RATIONALE.md).
func (o *Operator) putElems(kg uint16, key []byte, w W, n uint64, elems []Elem) (uint64, error) {
	if len(elems) == 0 {
		return n, nil
	}
	ek := binary.BigEndian.AppendUint64(append(make([]byte, 0, 25), o.mapKey(w)...), n)
	ek = append(ek, chunkMark)
	o.enc = o.enc[:0]
	for _, e := range elems {
		o.enc = binary.AppendUvarint(o.enc, uint64(len(e.Value)))
		o.enc = appendElem(o.enc, e)
	}
	if err := o.elems.Put(kg, key, ek, o.enc); err != nil {
		return 0, err
	}
	return n + uint64(len(elems)), nil
}

// chunkMark ends the map key of an elems entry holding a chunk of records
// (uvarint length, i64 timestamp, value; repeated); an entry whose map key
// is window and sequence alone holds one record, as written before chunks.
const chunkMark = 1

// loadElems returns the records of window w of key, in arrival order.
func (o *Operator) loadElems(kg uint16, key []byte, w W) ([]Elem, error) {
	prefix := bytes.Clone(o.mapKey(w))
	var out []Elem
	err := o.elems.Iter(kg, key, func(mk, v []byte) error {
		if !bytes.HasPrefix(mk, prefix) {
			return nil
		}
		var err error
		if len(mk) == len(prefix)+9 && mk[len(mk)-1] == chunkMark {
			out, err = appendChunk(out, v)
			return err
		}
		e, err := decodeElem(v)
		if err != nil {
			return err
		}
		out = append(out, e)
		return nil
	})
	return out, err
}

// appendChunk appends the records of a chunk to dst; their values share
// one copy of the chunk.
func appendChunk(dst []Elem, chunk []byte) ([]Elem, error) {
	b := bytes.Clone(chunk)
	for len(b) > 0 {
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < 8+n {
			return dst, fmt.Errorf("window: corrupt chunk of window records")
		}
		b = b[k:]
		end := 8 + int(n)
		dst = append(dst, Elem{Timestamp: int64(binary.LittleEndian.Uint64(b)), Value: b[8:end:end]})
		b = b[end:]
	}
	return dst, nil
}

// appendElem encodes a kept record: i64 timestamp, value.
func appendElem(dst []byte, e Elem) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, uint64(e.Timestamp))
	return append(dst, e.Value...)
}

func decodeElem(b []byte) (Elem, error) {
	if len(b) < 8 {
		return Elem{}, fmt.Errorf("window: corrupt window record")
	}
	return Elem{Timestamp: int64(binary.LittleEndian.Uint64(b)), Value: bytes.Clone(b[8:])}, nil
}

// mapKey encodes a window so that byte order is start order.
func (o *Operator) mapKey(w W) []byte {
	binary.BigEndian.PutUint64(o.mk[:8], uint64(w.Start)^(1<<63))
	binary.BigEndian.PutUint64(o.mk[8:], uint64(w.End)^(1<<63))
	return o.mk[:]
}

func decodeWindow(mk []byte) W {
	return W{int64(binary.BigEndian.Uint64(mk[:8]) ^ (1 << 63)), int64(binary.BigEndian.Uint64(mk[8:]) ^ (1 << 63))}
}
