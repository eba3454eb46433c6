package window

import (
	"bytes"
	"context"
)

// Live windows: the accumulators of an aggregate's tumbling or sliding
// windows without allowed lateness live in the operator's memory and go
// to keyed state only before a snapshot (BeforeSnapshot). Such a window
// lives from its first record to its one timer, often between two
// checkpoints, and a Get and a Put in the store's write-back cache per
// window per batch were the top of Nexmark q5's profile (RATIONALE.md).
//
// A window is in memory, or in state only; a window in memory may also
// have a copy in state, written by an earlier snapshot and stale since,
// which goes when the window fires. Past Config.LiveBytes, new windows go
// to state, as every window did before; stateOnly counts those and the
// restored ones, so that while it is zero a window missing from memory
// is new and costs no read of state.

// liveKey is a key's windows in memory.
type liveKey struct {
	kg   uint16
	key  []byte
	wins []liveWin
}

// liveWin is one window's accumulator in memory.
type liveWin struct {
	w   W
	acc []byte
	// stored: keyed state has a copy, from a snapshot; dirty: the copy is
	// older than acc, or missing.
	stored, dirty bool
}

// liveOverhead is what a window in memory costs besides its bytes, for
// the bound.
const liveOverhead = 64

// liveOn tells whether the operator keeps live windows in memory.
func (o *Operator) liveOn() bool {
	return o.cfg.LiveBytes > 0 && o.fn.Aggregate() && o.timersInMemory()
}

// find returns the index of window w in lk's windows, or -1.
func (lk *liveKey) find(w W) int {
	if lk == nil {
		return -1
	}
	for i := range lk.wins {
		if lk.wins[i].w == w {
			return i
		}
	}
	return -1
}

// addLive folds this batch's groups into the live windows, or into state
// for those not in memory.
func (o *Operator) addLive(ctx context.Context) error {
	lks := o.liveOf[:0]
	from := o.fromState[:0]
	for i := range o.adds {
		g := &o.adds[i]
		var lk *liveKey
		if p := o.next[i]; p >= 0 {
			lk = lks[p] // the same key's earlier group of this batch
		} else {
			lk = o.live[string(g.Key)]
		}
		lks = append(lks, lk)
		fromState := false
		if j := lk.find(o.addWin[i]); j >= 0 {
			g.Acc, g.HasAcc = lk.wins[j].acc, true
		} else if o.stateOnly > 0 {
			acc, ok, err := o.state.Get(o.addKG[i], g.Key, o.mapKey(o.addWin[i]))
			if err != nil {
				return err
			}
			g.Acc, g.HasAcc, fromState = bytes.Clone(acc), ok, ok
		}
		from = append(from, fromState)
	}
	o.liveOf, o.fromState = lks, from
	accs, err := o.fn.Add(ctx, o.adds)
	if err != nil {
		return err
	}
	for i, acc := range accs {
		if err := o.keepLive(i, acc); err != nil {
			return err
		}
	}
	for _, lk := range o.liveOf {
		if lk != nil && len(lk.wins) == 0 {
			delete(o.live, string(lk.key)) // its windows grew past the bound
		}
	}
	return nil
}

// keepLive keeps group i's new accumulator: in memory if its window is
// there or there is room, in state otherwise.
func (o *Operator) keepLive(i int, acc []byte) error {
	g, w, lk := &o.adds[i], o.addWin[i], o.liveOf[i]
	if p := o.next[i]; lk == nil && p >= 0 {
		lk = o.liveOf[p] // made for the key's earlier group of this batch
	}
	o.liveOf[i] = lk
	if j := lk.find(w); j >= 0 {
		lw := &lk.wins[j]
		o.liveBytes += int64(len(acc) - len(lw.acc))
		lw.acc, lw.dirty = append(lw.acc[:0], acc...), true
		if o.liveBytes > o.cfg.LiveBytes {
			return o.evict(lk, j)
		}
		return nil
	}
	size := int64(len(acc) + len(g.Key) + liveOverhead)
	if o.liveBytes+size > o.cfg.LiveBytes {
		if !o.fromState[i] {
			o.stateOnly++
		}
		return o.state.Put(o.addKG[i], g.Key, o.mapKey(w), acc)
	}
	if lk == nil {
		lk = &liveKey{kg: o.addKG[i], key: bytes.Clone(g.Key)}
		o.live[string(lk.key)] = lk
		o.liveOf[i] = lk
	}
	if o.fromState[i] {
		o.stateOnly--
	}
	lk.wins = append(lk.wins, liveWin{w: w, acc: bytes.Clone(acc), stored: o.fromState[i], dirty: true})
	o.liveBytes += size
	return nil
}

// evict moves window j of lk, which grew past the bound, to state. NB: lk
// stays in the map even if empty, as the key's later groups of the batch
// hold it; addLive deletes it after them.
func (o *Operator) evict(lk *liveKey, j int) error {
	lw := lk.wins[j]
	lk.wins = append(lk.wins[:j], lk.wins[j+1:]...)
	o.liveBytes -= int64(len(lw.acc) + len(lk.key) + liveOverhead)
	o.stateOnly++
	return o.state.Put(lk.kg, lk.key, o.mapKey(lw.w), lw.acc)
}

// takeLive removes window w of key from memory and returns its
// accumulator, deleting its copy in state if a snapshot wrote one.
func (o *Operator) takeLive(kg uint16, key []byte, w W) ([]byte, bool, error) {
	lk := o.live[string(key)]
	j := lk.find(w)
	if j < 0 {
		return nil, false, nil
	}
	lw := lk.wins[j]
	lk.wins = append(lk.wins[:j], lk.wins[j+1:]...)
	if len(lk.wins) == 0 {
		delete(o.live, string(key))
	}
	o.liveBytes -= int64(len(lw.acc) + len(key) + liveOverhead)
	if lw.stored {
		if err := o.state.Delete(kg, key, o.mapKey(w)); err != nil {
			return nil, false, err
		}
	}
	return lw.acc, true, nil
}

// peekLive returns window w of key's accumulator in memory, if there.
func (o *Operator) peekLive(key []byte, w W) ([]byte, bool) {
	lk := o.live[string(key)]
	if j := lk.find(w); j >= 0 {
		return lk.wins[j].acc, true
	}
	return nil, false
}

// BeforeSnapshot writes the live windows changed since the last snapshot
// to keyed state, so that the snapshot the task takes next holds every
// window. The task calls it in its loop, holding the state gate, right
// before it takes the state out of the store.
func (o *Operator) BeforeSnapshot() error {
	if o.cfg.Spec.Kind == Session {
		return o.sessionsBeforeSnapshot()
	}
	for _, lk := range o.live {
		for j := range lk.wins {
			lw := &lk.wins[j]
			if !lw.dirty {
				continue
			}
			if err := o.state.Put(lk.kg, lk.key, o.mapKey(lw.w), lw.acc); err != nil {
				return err
			}
			lw.stored, lw.dirty = true, false
		}
	}
	return nil
}
