package join

import (
	"bytes"
	"fmt"

	"github.com/floe-stream/floe/host/record"
)

// Outer is the sides of an outer interval join whose rows are kept when
// they match nothing: OuterLeft (LEFT JOIN), OuterRight (RIGHT JOIN) or
// both (FULL JOIN). A row of an outer side is emitted alone, as a Pair
// without the other side's value, either once the watermark passes its
// interval unmatched (an appended result) or, with IntervalConfig.Retract,
// as soon as it arrives unmatched, and then retracted (a Pair with Retract
// set) when its first match arrives, as Flink's regular outer joins do (an
// updating result).
//
// The state of an outer side's row is its value after one byte, 1 once it
// has matched and 0 before, so that the mark survives checkpoints,
// restores and rescales with the row.
type Outer uint8

// The outer sides.
const (
	OuterLeft  Outer = 1 << Left
	OuterRight Outer = 1 << Right
	OuterFull        = OuterLeft | OuterRight
)

func (o Outer) has(s Side) bool { return o&(1<<s) != 0 }

// ParseOuter reads "", "left", "right" or "full".
func ParseOuter(s string) (Outer, error) {
	switch s {
	case "":
		return 0, nil
	case "left":
		return OuterLeft, nil
	case "right":
		return OuterRight, nil
	case "full":
		return OuterFull, nil
	}
	return 0, fmt.Errorf("join: outer is left, right or full, not %q", s)
}

func (s Side) other() Side { return 1 - s }

// alone is the pair of a row of side s that matched nothing.
func alone(s Side, key []byte, kg uint16, ts int64, v []byte) Pair {
	if s == Left {
		return Pair{Key: key, KeyGroup: kg, Left: v, Timestamp: ts}
	}
	return Pair{Key: key, KeyGroup: kg, Right: v, HasRight: true, NoLeft: true, Timestamp: ts}
}

// stored is the state value of a row of side s.
func (o *Interval) stored(s Side, v []byte, matched bool) []byte {
	if !o.cfg.Outer.has(s) {
		return v
	}
	mark := byte(0)
	if matched {
		mark = 1
	}
	return append([]byte{mark}, v...)
}

// unmarked is the row of side s in its state value v: v less the mark of
// an outer side.
func (o *Interval) unmarked(s Side, v []byte) []byte {
	if o.cfg.Outer.has(s) {
		return v[1:]
	}
	return v
}

// firstMatch marks the buffered row b of outer side s matched when r is
// its first match and, for a retracting join, retracts its lone pair.
func (o *Interval) firstMatch(s Side, r *record.Record, b *buffered) error {
	if !o.cfg.Outer.has(s) || b.matched {
		return nil
	}
	b.matched = true
	if o.cfg.Retract {
		p := alone(s, r.Key, r.KeyGroup, max(b.ts, r.Timestamp), b.value)
		p.Retract = true
		o.pairs = append(o.pairs, p)
	}
	return o.rows.Put(r.KeyGroup, r.Key, b.mk, o.stored(s, b.value, true))
}

// arrived emits a row r of outer side s that matched nothing on arrival
// alone: at once for a retracting join, or when no row still to come can
// match it (expired).
func (o *Interval) arrived(s Side, r *record.Record, matched, expired bool) {
	if o.cfg.Outer.has(s) && !matched && (o.cfg.Retract || expired) {
		o.pairs = append(o.pairs, alone(s, r.Key, r.KeyGroup, r.Timestamp, r.Value))
	}
}

// expired emits a row of outer side s at ts, whose interval the watermark
// has passed, alone if it matched nothing and the join does not retract
// (a retracting join emitted it on arrival).
func (o *Interval) expired(s Side, kg uint16, key []byte, ts int64, v []byte) {
	if o.cfg.Outer.has(s) && !o.cfg.Retract && v[0] == 0 {
		o.pairs = append(o.pairs, alone(s, bytes.Clone(key), kg, ts, bytes.Clone(v[1:])))
	}
}
