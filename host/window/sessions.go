package window

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/floe-stream/floe/host/record"
)

// NB: a key's session windows live in one state entry, under sessionsKey,
// as a list sorted by window: a merge rewrites that entry in place. With
// one entry per window, each merge deleted the merged windows' entries,
// and the next record's scan of the key walked over their tombstones: a
// key with a long session (Nexmark q11's hot bidder) cost time linear in
// its bids per record (RATIONALE.md, "Session windows in one entry").
// The records of a process function's windows stay in elems, one entry
// each, under the window's map key.
var sessionsKey = []byte{'s'}

// session is one session window of a key and its payload: the
// accumulator of an aggregate function, or the number of records kept
// for a process function (u64, big endian).
type session struct {
	W   W
	Val []byte
}

// appendSessions encodes a key's sessions: per session, start and end
// (i64 LE), the payload's length (uvarint) and the payload.
func appendSessions(dst []byte, ss []session) []byte {
	for _, s := range ss {
		dst = binary.LittleEndian.AppendUint64(dst, uint64(s.W.Start))
		dst = binary.LittleEndian.AppendUint64(dst, uint64(s.W.End))
		dst = binary.AppendUvarint(dst, uint64(len(s.Val)))
		dst = append(dst, s.Val...)
	}
	return dst
}

// decodeSessions decodes appendSessions' encoding; the payloads are
// copies.
func decodeSessions(b []byte) ([]session, error) {
	var ss []session
	for len(b) > 0 {
		if len(b) < 16 {
			return nil, fmt.Errorf("window: corrupt session list")
		}
		w := W{int64(binary.LittleEndian.Uint64(b)), int64(binary.LittleEndian.Uint64(b[8:]))}
		n, k := binary.Uvarint(b[16:])
		if k <= 0 || uint64(len(b)-16-k) < n {
			return nil, fmt.Errorf("window: corrupt session list")
		}
		b = b[16+k:]
		ss = append(ss, session{W: w, Val: bytes.Clone(b[:n])})
		b = b[n:]
	}
	return ss, nil
}

// sessions returns the session windows of key, earliest first.
func (o *Operator) sessions(kg uint16, key []byte) ([]session, error) {
	v, ok, err := o.state.Get(kg, key, sessionsKey)
	if err != nil || !ok {
		return nil, err
	}
	return decodeSessions(v)
}

// putSessions stores the session windows of key, or deletes the entry
// when there are none.
func (o *Operator) putSessions(kg uint16, key []byte, ss []session) error {
	if len(ss) == 0 {
		return o.state.Delete(kg, key, sessionsKey)
	}
	o.enc = appendSessions(o.enc[:0], ss)
	return o.state.Put(kg, key, sessionsKey, o.enc)
}

// overlaps tells whether session windows a and b touch, so merge.
func overlaps(a, b W) bool { return a.Start <= b.End && b.Start <= a.End }

// processSessions merges each record's session window with the key's
// overlapping ones. An aggregate function's sessions merge in memory, a
// key's list is read and written once per batch and the function is
// called once for the batch (mergeBatch); a process function's, whose
// records move between windows in elems, merge record by record.
func (o *Operator) processSessions(ctx context.Context, in, out *record.Batch) error {
	if o.fn.Aggregate() {
		return o.mergeBatch(ctx, in, out)
	}
	for i := range in.Records {
		r := &in.Records[i]
		ts, err := o.timestamp(r)
		if err != nil {
			return err
		}
		w := W{ts, ts + o.cfg.Spec.Gap}
		if o.isLate(w) {
			o.toLate(r)
			continue
		}
		if err := o.mergeInto(ctx, r, w, ts, out); err != nil {
			return err
		}
	}
	return nil
}

// mergeInto adds record r, whose own session window is w, to the key's
// sessions, merging every window that overlaps w.
func (o *Operator) mergeInto(ctx context.Context, r *record.Record, w W, ts int64, out *record.Batch) error {
	kg, key := r.KeyGroup, r.Key
	ss, err := o.sessions(kg, key)
	if err != nil {
		return err
	}
	var overlap, rest []session
	merged := w
	for _, s := range ss {
		if overlaps(s.W, w) {
			overlap = append(overlap, s)
			merged.Start, merged.End = min(merged.Start, s.W.Start), max(merged.End, s.W.End)
		} else {
			rest = append(rest, s)
		}
	}
	for _, x := range overlap {
		if x.W.MaxTimestamp() != merged.MaxTimestamp() && !o.fired(x.W) {
			if err := o.timers.Delete(kg, key, o.cfg.Domain, x.W.MaxTimestamp()); err != nil {
				return err
			}
		}
	}
	elem := Elem{Value: r.Value, Timestamp: ts}
	var val []byte
	if o.fn.Aggregate() {
		val, err = o.addToSession(ctx, key, overlap, elem)
	} else {
		val, err = o.appendToSession(kg, key, overlap, merged, elem)
	}
	if err != nil {
		return err
	}
	s := session{W: merged, Val: val}
	at, _ := slices.BinarySearchFunc(rest, merged, func(s session, w W) int {
		if s.W.Start != w.Start {
			return cmpInt(s.W.Start, w.Start)
		}
		return cmpInt(s.W.End, w.End)
	})
	if err := o.putSessions(kg, key, slices.Insert(rest, at, s)); err != nil {
		return err
	}
	if err := o.register(kg, key, merged); err != nil {
		return err
	}
	if o.fired(merged) {
		fg, err := o.loadSession(kg, key, s)
		if err != nil {
			return err
		}
		return o.fn.Fire(ctx, []FireGroup{fg}, out)
	}
	return nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// addToSession returns the accumulator of the sessions overlap merged,
// with elem added.
func (o *Operator) addToSession(ctx context.Context, key []byte, overlap []session, elem Elem) ([]byte, error) {
	g := AddGroup{Key: key, Elems: []Elem{elem}}
	switch len(overlap) {
	case 0:
	case 1:
		g.Acc, g.HasAcc = overlap[0].Val, true
	default:
		vals := make([][]byte, len(overlap))
		for i, x := range overlap {
			vals[i] = x.Val
		}
		m, err := o.fn.Merge(ctx, [][][]byte{vals})
		if err != nil {
			return nil, err
		}
		g.Acc, g.HasAcc = bytes.Clone(m[0]), true
	}
	accs, err := o.fn.Add(ctx, []AddGroup{g})
	if err != nil {
		return nil, err
	}
	return bytes.Clone(accs[0]), nil
}

// appendToSession moves the records of the sessions overlap into window
// merged, in window order, appends elem, and returns merged's count. The
// first session's records stay where they are when its window is merged.
func (o *Operator) appendToSession(kg uint16, key []byte, overlap []session, merged W, elem Elem) ([]byte, error) {
	var n uint64
	if len(overlap) > 0 && overlap[0].W == merged {
		n = sessionCount(overlap[0])
		overlap = overlap[1:]
	}
	var elems []Elem
	for _, x := range overlap {
		e, err := o.loadElems(kg, key, x.W)
		if err != nil {
			return nil, err
		}
		elems = append(elems, e...)
		if err := o.dropElems(kg, key, x.W); err != nil {
			return nil, err
		}
	}
	n, err := o.putElems(kg, key, merged, n, append(elems, elem))
	if err != nil {
		return nil, err
	}
	return binary.BigEndian.AppendUint64(nil, n), nil
}

func sessionCount(s session) uint64 {
	if len(s.Val) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(s.Val)
}

// loadSession returns session s of key as a FireGroup.
func (o *Operator) loadSession(kg uint16, key []byte, s session) (FireGroup, error) {
	fg := FireGroup{Key: bytes.Clone(key), W: s.W}
	if o.fn.Aggregate() {
		fg.Acc = s.Val
		return fg, nil
	}
	var err error
	fg.Elems, err = o.loadElems(kg, key, s.W)
	return fg, err
}

// fireSessions adds the session windows of key whose time has come at ts
// to o.fire and drops those past their allowed lateness.
func (o *Operator) fireSessions(ts int64, kg uint16, key []byte) error {
	ss, lk, fromState, err := o.readSessions(kg, key)
	if err != nil {
		return err
	}
	for _, s := range ss {
		if s.W.MaxTimestamp() != ts {
			continue
		}
		fg, err := o.loadSession(kg, key, s)
		if err != nil {
			return err
		}
		o.fire = append(o.fire, fg)
	}
	keep := ss[:0]
	for _, s := range ss {
		if s.W.MaxTimestamp()+o.lateness() > ts {
			keep = append(keep, s)
			continue
		}
		if !o.fn.Aggregate() {
			if err := o.dropElems(kg, key, s.W); err != nil {
				return err
			}
		}
	}
	if len(keep) == len(ss) {
		return nil
	}
	return o.writeSessions(kg, key, keep, lk, fromState)
}
