package join

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/host/window"
)

// A session window join keeps, besides its rows, one index entry per key:
// the key's sessions and the number of rows of each, under the one-byte
// map key sessionsKey, which no window's row or counter key (17 bytes or
// more) can equal. A record finds the sessions it overlaps there and reads
// only their rows, by point reads, rather than iterating over every row of
// the key; a timer finds its sessions the same way.
//
// NB: a key whose rows were written before the index existed has rows and
// no index: the first record or timer of the key builds it from one scan.

var sessionsKey = []byte{0xff}

// session is one entry of the index: a session window and its row count,
// the next sequence number of its rows.
type session struct {
	w window.W
	n uint64
}

const sessionLen = 24

func encodeSessions(dst []byte, ss []session) []byte {
	for _, s := range ss {
		dst = binary.BigEndian.AppendUint64(dst, flip(s.w.Start))
		dst = binary.BigEndian.AppendUint64(dst, flip(s.w.End))
		dst = binary.BigEndian.AppendUint64(dst, s.n)
	}
	return dst
}

func decodeSessions(v []byte) ([]session, error) {
	if len(v)%sessionLen != 0 {
		return nil, fmt.Errorf("join: corrupt session index of %d bytes", len(v))
	}
	ss := make([]session, 0, len(v)/sessionLen)
	for ; len(v) > 0; v = v[sessionLen:] {
		w := window.W{Start: unflip(binary.BigEndian.Uint64(v)), End: unflip(binary.BigEndian.Uint64(v[8:]))}
		ss = append(ss, session{w: w, n: binary.BigEndian.Uint64(v[16:])})
	}
	return ss, nil
}

// sessions returns the sessions of key, by start.
func (o *Window) sessions(kg uint16, key []byte) ([]session, error) {
	v, ok, err := o.rows.Get(kg, key, sessionsKey)
	switch {
	case err != nil:
		return nil, err
	case ok:
		return decodeSessions(v)
	}
	wins, err := o.load(kg, key)
	if err != nil {
		return nil, err
	}
	ss := make([]session, 0, len(wins))
	for _, x := range wins {
		n, err := o.counter(kg, key, x.w)
		if err != nil {
			return nil, err
		}
		ss = append(ss, session{x.w, n})
	}
	return ss, nil
}

// putSessions writes key's index, deleting it when ss is empty.
func (o *Window) putSessions(kg uint16, key []byte, ss []session) error {
	if len(ss) == 0 {
		return o.rows.Delete(kg, key, sessionsKey)
	}
	o.index = encodeSessions(o.index[:0], ss)
	return o.rows.Put(kg, key, sessionsKey, o.index)
}

// counter returns the next sequence number of window w's rows.
func (o *Window) counter(kg uint16, key []byte, w window.W) (uint64, error) {
	v, ok, err := o.rows.Get(kg, key, append(windowKey(w), counterMark))
	if err != nil || !ok || len(v) != 8 {
		return 0, err
	}
	return binary.BigEndian.Uint64(v), nil
}

// sessionRows reads the rows of session s by point reads, in the order a
// scan of its map keys gives: left rows, then right rows, each by sequence
// number. fn, if set, also gets each row's map key.
func (o *Window) sessionRows(kg uint16, key []byte, s session, fn func(mk []byte) error) ([]row, error) {
	var rows []row
	for _, side := range []Side{Left, Right} {
		for seq := range s.n {
			mk := rowKey(s.w, side, seq)
			v, ok, err := o.rows.Get(kg, key, mk)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			rows = append(rows, row{side, slices.Clone(v)})
			if fn != nil {
				if err := fn(mk); err != nil {
					return nil, err
				}
			}
		}
	}
	return rows, nil
}

// dropSession deletes session s's rows and counter by point deletes.
func (o *Window) dropSession(kg uint16, key []byte, s session) error {
	_, err := o.sessionRows(kg, key, s, func(mk []byte) error { return o.rows.Delete(kg, key, mk) })
	if err != nil {
		return err
	}
	return o.rows.Delete(kg, key, append(windowKey(s.w), counterMark))
}

// mergeSession adds r, of side s, whose own session window is w, to the
// key's sessions, merging every session that overlaps w: it reads and
// moves only the rows of those. It returns the merged session.
func (o *Window) mergeSession(kg uint16, key []byte, side Side, value []byte, w window.W) (window.W, error) {
	ss, err := o.sessions(kg, key)
	if err != nil {
		return window.W{}, err
	}
	merged := w
	var rows []row
	kept := ss[:0:0]
	for _, x := range ss {
		if !(x.w.Start < w.End && w.Start < x.w.End) {
			kept = append(kept, x) // NB: sessions that only touch stay apart (doc.go)
			continue
		}
		merged.Start, merged.End = min(merged.Start, x.w.Start), max(merged.End, x.w.End)
		xr, err := o.sessionRows(kg, key, x, nil)
		if err != nil {
			return window.W{}, err
		}
		rows = append(rows, xr...)
		if err := o.dropSession(kg, key, x); err != nil {
			return window.W{}, err
		}
		if x.w.MaxTimestamp() != merged.MaxTimestamp() && !o.fired(x.w) {
			if err := o.timers.Delete(kg, key, udf.EventTime, x.w.MaxTimestamp()); err != nil {
				return window.W{}, err
			}
		}
	}
	// NB: a session that grew past x's end deletes x's firing timer above;
	// merged's end is at least x's, so x's cleanup timer, if any, finds
	// nothing to drop and is harmless.
	rows = append(rows, row{side, slices.Clone(value)})
	if err := o.addRows(kg, key, merged, rows); err != nil {
		return window.W{}, err
	}
	i, _ := slices.BinarySearchFunc(kept, merged, func(s session, w window.W) int { return compareWindows(s.w, w) })
	kept = slices.Insert(kept, i, session{merged, uint64(len(rows))})
	return merged, o.putSessions(kg, key, kept)
}

func compareWindows(a, b window.W) int {
	return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End))
}

// fireSessions emits the pairs of key's sessions whose last instant is ts
// (only session w when only is set) and, unless only is set, drops those
// past their allowed lateness.
func (o *Window) fireSessions(kg uint16, key []byte, ts int64, only *window.W) error {
	ss, err := o.sessions(kg, key)
	if err != nil {
		return err
	}
	kept := ss[:0:0]
	for _, x := range ss {
		if (only == nil && x.w.MaxTimestamp() == ts) || (only != nil && x.w == *only) {
			rows, err := o.sessionRows(kg, key, x, nil)
			if err != nil {
				return err
			}
			o.pair(kg, key, loaded{kg: kg, w: x.w, rows: rows})
		}
		if only == nil && x.w.MaxTimestamp()+o.cfg.AllowedLateness <= ts {
			if err := o.dropSession(kg, key, x); err != nil {
				return err
			}
			continue
		}
		kept = append(kept, x)
	}
	if only != nil || len(kept) == len(ss) {
		return nil
	}
	return o.putSessions(kg, key, kept)
}
