package window

// Live sessions: an aggregate's session windows without allowed lateness
// live in the operator's memory, a key's list at a time, and go to keyed
// state only before a snapshot (BeforeSnapshot), as live.go does for
// tumbling and sliding windows. A key's sessions grow with every batch
// that has its records (Nexmark q11's bidders): a Get, a decode and a Put
// of its list per batch, and the Put and Delete of its timer each time
// the session's end moved, were most of the window operator's CPU in
// q11's profile (RATIONALE.md).
//
// A key's list is in memory, or in state only; a list in memory may also
// have a copy in state, written by an earlier snapshot and stale since,
// which goes when the key's last session fires. Past Config.LiveBytes, a
// key's list goes to state, as every list did before; stateOnly counts
// those keys and the restored ones, so that while it is zero a key
// missing from memory has no sessions and costs no read of state. The
// sessions' timers are in memory only (timersInMemory): a restore sets
// them again from the restored lists (RestoredWindow).

// liveSessions is a key's session list in memory.
type liveSessions struct {
	kg   uint16
	key  []byte
	list []session
	size int64 // what the list counts against Config.LiveBytes
	// batch and group: the key's slot in sessionsInMemory.pending while
	// merging batch number batch.
	batch uint64
	group int
	// stored: keyed state has a copy, from a snapshot; dirty: the copy is
	// older than list, or missing.
	stored, dirty bool
}

// sessionsInMemory is the operator's live session lists.
type sessionsInMemory struct {
	keys      map[string]*liveSessions
	stateOnly int64         // keys whose lists are in state only
	batch     uint64        // the number of the batch merging
	pending   []keySessions // its keys' sessions, reused
	adds      []AddGroup    // its Add call's groups, reused
	list      []session     // a key's new list, reused
	arena     elemArena     // the batch's records
}

// sessionOverhead is what a session in memory costs besides its
// accumulator, for the bound; a key costs liveOverhead and its bytes.
const sessionOverhead = 16

func sessionsSize(key []byte, ss []session) int64 {
	n := int64(len(key) + liveOverhead)
	for _, s := range ss {
		n += int64(len(s.Val) + sessionOverhead)
	}
	return n
}

// readSessions returns the sessions of key, earliest first: the list in
// memory if there, lk, or the one in state, which fromState says was
// there. The caller must not keep the list past writeSessions.
func (o *Operator) readSessions(kg uint16, key []byte) (ss []session, lk *liveSessions, fromState bool, err error) {
	if o.liveOn() {
		if lk := o.sl.keys[string(key)]; lk != nil {
			return lk.list, lk, false, nil
		}
		if o.sl.stateOnly == 0 {
			return nil, nil, false, nil
		}
	}
	ss, err = o.sessions(kg, key)
	return ss, nil, len(ss) > 0, err
}

// writeSessions keeps ss as the sessions of key, which readSessions
// returned with lk and fromState: in memory if the key's list is there
// or there is room, in state otherwise. ss is copied.
func (o *Operator) writeSessions(kg uint16, key []byte, ss []session, lk *liveSessions, fromState bool) error {
	if !o.liveOn() {
		return o.putSessions(kg, key, ss)
	}
	size := sessionsSize(key, ss)
	if lk != nil {
		o.liveBytes -= lk.size
		if len(ss) == 0 || o.liveBytes+size > o.cfg.LiveBytes {
			delete(o.sl.keys, string(key))
			if len(ss) == 0 {
				if lk.stored {
					return o.state.Delete(kg, key, sessionsKey)
				}
				return nil
			}
			o.sl.stateOnly++ // grew past the bound
			return o.putSessions(kg, key, ss)
		}
		lk.list, lk.size, lk.dirty = append(lk.list[:0], ss...), size, true
		o.liveBytes += size
		return nil
	}
	if len(ss) == 0 {
		if !fromState {
			return nil
		}
		o.sl.stateOnly--
		return o.state.Delete(kg, key, sessionsKey)
	}
	if o.liveBytes+size > o.cfg.LiveBytes {
		if !fromState {
			o.sl.stateOnly++
		}
		return o.putSessions(kg, key, ss)
	}
	if fromState {
		o.sl.stateOnly--
	}
	if o.sl.keys == nil {
		o.sl.keys = map[string]*liveSessions{}
	}
	key = append([]byte(nil), key...)
	o.sl.keys[string(key)] = &liveSessions{kg: kg, key: key, list: append([]session(nil), ss...), size: size, stored: fromState, dirty: true}
	o.liveBytes += size
	return nil
}

// sessionsBeforeSnapshot writes the live session lists changed since the
// last snapshot to keyed state.
func (o *Operator) sessionsBeforeSnapshot() error {
	for _, lk := range o.sl.keys {
		if !lk.dirty {
			continue
		}
		if err := o.putSessions(lk.kg, lk.key, lk.list); err != nil {
			return err
		}
		lk.stored, lk.dirty = true, false
	}
	return nil
}

// restoredSessions sets again the timers of the sessions of key, whose
// list was found in restored keyed state under mapKey.
func (o *Operator) restoredSessions(kg uint16, key, mapKey []byte) error {
	if !o.timersInMemory() || string(mapKey) != string(sessionsKey) {
		return nil // NB: an entry of the layout of one entry per window is ignored
	}
	ss, err := o.sessions(kg, key)
	if err != nil {
		return err
	}
	for _, s := range ss {
		o.timers.RegisterInMemory(kg, key, o.cfg.Domain, s.W.MaxTimestamp())
	}
	if o.liveOn() && len(ss) > 0 {
		o.sl.stateOnly++
	}
	return nil
}
