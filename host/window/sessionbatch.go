package window

import (
	"context"
	"slices"

	"github.com/floe-stream/floe/host/record"
)

// pending is a session window of a key while a batch merges: the stored
// sessions it covers and the batch's records added to it.
type pending struct {
	W      W
	stored []session
	elems  elemList
}

// keySessions is one key's sessions while a batch merges, earliest first,
// and where readSessions found them.
type keySessions struct {
	kg        uint16
	key       []byte
	list      []pending
	live      *liveSessions
	fromState bool
	arena     *elemArena // the batch's records
}

// add merges the session window w of a record into the key's sessions.
// NB: the list is sorted and no two of its windows overlap (each add
// merges all those w overlaps), so the windows w overlaps are a run of
// it, merged into the run's first in place. Merging into a new pending
// copied the key's records of the batch so far at every record: a key
// with many records in a batch (Nexmark q11's hot bidder) cost time
// quadratic in them.
func (k *keySessions) add(w W, e Elem) {
	i := 0
	for i < len(k.list) && k.list[i].W.End < w.Start {
		i++
	}
	j := i
	for j < len(k.list) && k.list[j].W.Start <= w.End {
		j++
	}
	if i == j {
		k.list = slices.Insert(k.list, i, pending{W: w, elems: k.arena.one(e)})
		return
	}
	p := &k.list[i]
	p.W.Start, p.W.End = min(p.W.Start, w.Start), max(k.list[j-1].W.End, w.End)
	for _, x := range k.list[i+1 : j] {
		p.stored = append(p.stored, x.stored...)
		p.elems = k.arena.concat(p.elems, x.elems)
	}
	p.elems = k.arena.concat(p.elems, k.arena.one(e))
	k.list = slices.Delete(k.list, i+1, j)
}

// mergeBatch adds the records of in to their keys' session windows, for an
// aggregate function. Merging in memory ends where merging record by record
// would: each key's final sessions, their timers (those of the stored
// sessions merged into another are deleted, a window made and merged
// within the batch never gets one), and a fired session that a late record
// updates fires again, once per batch as in the other windows.
func (o *Operator) mergeBatch(ctx context.Context, in, out *record.Batch) error {
	clear(o.groups)
	o.sl.batch++
	o.sl.arena.reset(len(in.Records))
	keys := o.sl.pending[:0]
	defer func() { o.sl.pending = keys }()
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
		g, err := o.groupOf(r, &keys)
		if err != nil {
			return err
		}
		keys[g].add(w, Elem{Value: r.Value, Timestamp: ts})
	}
	if len(keys) == 0 {
		return nil
	}
	accs, err := o.accumulate(ctx, keys)
	if err != nil {
		return err
	}
	return o.storeBatch(ctx, keys, accs, out)
}

// groupOf returns the index in keys of record r's key's sessions, read
// into a new slot of keys at the key's first record of the batch. NB: a
// key whose sessions are in memory is found with one lookup, in the live
// map, which also says whether the batch has it already; a lookup in a
// map of the batch's keys as well was a tenth of mergeBatch in Nexmark
// q11's profile.
func (o *Operator) groupOf(r *record.Record, keys *[]keySessions) (int, error) {
	var lk *liveSessions
	if o.liveOn() {
		lk = o.sl.keys[string(r.Key)]
	}
	if lk != nil && lk.batch == o.sl.batch {
		return lk.group, nil
	}
	if lk == nil {
		if g, ok := o.groups[string(r.Key)]; ok {
			return g, nil
		}
	}
	g := len(*keys)
	*keys = slices.Grow(*keys, 1)[:g+1]
	if err := o.loadKeySessions(&(*keys)[g], r.KeyGroup, r.Key, lk); err != nil {
		return 0, err
	}
	if lk != nil {
		lk.batch, lk.group = o.sl.batch, g
	} else {
		o.groups[string(r.Key)] = g
	}
	return g, nil
}

// loadKeySessions reads the sessions of key into k, each as a pending
// session of its own, given the key's list in memory, lk, if there.
// k's list is reused.
func (o *Operator) loadKeySessions(k *keySessions, kg uint16, key []byte, lk *liveSessions) error {
	var ss []session
	fromState := false
	if lk != nil {
		ss = lk.list
	} else {
		var err error
		if ss, lk, fromState, err = o.readSessions(kg, key); err != nil {
			return err
		}
	}
	clear(k.list)
	*k = keySessions{kg: kg, key: key, list: k.list[:0], live: lk, fromState: fromState, arena: &o.sl.arena}
	for i, s := range ss {
		// NB: stored is a view of ss, which no append can write to
		// (cap 1); ss stays unchanged until writeSessions.
		k.list = append(k.list, pending{W: s.W, stored: ss[i : i+1 : i+1]})
	}
	return nil
}

// accumulate returns the new accumulator of each session the batch added
// records to, in order of keys and sessions: one Merge call for the
// sessions that merged stored ones, and one Add call.
func (o *Operator) accumulate(ctx context.Context, keys []keySessions) ([][]byte, error) {
	// NB: the groups' slice is reused: growing it anew for every batch
	// was two fifths of accumulate in q11's profile.
	clear(o.sl.adds)
	adds := o.sl.adds[:0]
	defer func() { o.sl.adds = adds }()
	var merges [][][]byte
	var mergedInto []int
	for i := range keys {
		k := &keys[i]
		for _, p := range k.list {
			if p.elems.n == 0 {
				continue
			}
			g := AddGroup{Key: k.key, Elems: k.arena.flatten(p.elems)}
			switch len(p.stored) {
			case 0:
			case 1:
				g.Acc, g.HasAcc = p.stored[0].Val, true
			default:
				vals := make([][]byte, len(p.stored))
				for i, s := range p.stored {
					vals[i] = s.Val
				}
				merges = append(merges, vals)
				mergedInto = append(mergedInto, len(adds))
				g.HasAcc = true
			}
			adds = append(adds, g)
		}
	}
	if len(merges) > 0 {
		m, err := o.fn.Merge(ctx, merges)
		if err != nil {
			return nil, err
		}
		for i, a := range mergedInto {
			adds[a].Acc = slices.Clone(m[i])
		}
	}
	return o.fn.Add(ctx, adds)
}

// storeBatch writes the keys' sessions with their new accumulators accs,
// sets their timers and fires again the fired sessions the batch updated.
func (o *Operator) storeBatch(ctx context.Context, keys []keySessions, accs [][]byte, out *record.Batch) error {
	var fire []FireGroup
	ss := o.sl.list[:0]
	defer func() { clear(ss); o.sl.list = ss[:0] }()
	a := 0
	for i := range keys {
		k := &keys[i]
		ss = ss[:0]
		for _, p := range k.list {
			if p.elems.n == 0 {
				ss = append(ss, p.stored[0])
				continue
			}
			s := session{W: p.W, Val: newAcc(p, accs[a])}
			a++
			ss = append(ss, s)
			if err := o.retime(k, p); err != nil {
				return err
			}
			if o.fired(p.W) {
				fire = append(fire, FireGroup{Key: slices.Clone(k.key), W: p.W, Acc: s.Val})
			}
		}
		if err := o.writeSessions(k.kg, k.key, ss, k.live, k.fromState); err != nil {
			return err
		}
	}
	if len(fire) > 0 {
		return o.fn.Fire(ctx, fire, out)
	}
	return nil
}

// retime deletes the timers of the stored sessions merged into p and sets
// p's.
func (o *Operator) retime(k *keySessions, p pending) error {
	for _, x := range p.stored {
		if x.W.MaxTimestamp() != p.W.MaxTimestamp() && !o.fired(x.W) {
			if err := o.timers.Delete(k.kg, k.key, o.cfg.Domain, x.W.MaxTimestamp()); err != nil {
				return err
			}
		}
	}
	return o.register(k.kg, k.key, p.W)
}

// newAcc returns a copy of acc, the new accumulator of p, in the buffer
// of the stored session p continues if there is one: no one else holds
// that buffer once the batch has added to it.
func newAcc(p pending, acc []byte) []byte {
	if len(p.stored) == 0 {
		return slices.Clone(acc)
	}
	return append(p.stored[0].Val[:0], acc...)
}
