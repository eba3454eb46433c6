package window

// elemArena holds the records a batch adds to session windows, each
// pending session's as a linked list through it (elemList), so that a
// record costs an append to one slice, and merging two sessions' records
// costs a link: a slice of records per pending session, grown record by
// record and copied at each merge, was the largest allocation of q11's
// mergeBatch. flatten lays a list out contiguously for the Add call.
type elemArena struct {
	elems []Elem
	next  []int32 // the index of the record after elems[i], or -1
	flat  []Elem
}

// elemList is a list of records in an elemArena; the zero value is empty.
type elemList struct {
	head, tail, n int32
}

// reset empties the arena for a batch of up to n records.
func (a *elemArena) reset(n int) {
	clear(a.elems)
	clear(a.flat)
	a.elems, a.next = a.elems[:0], a.next[:0]
	if cap(a.flat) < n {
		a.flat = make([]Elem, 0, n)
	}
	a.flat = a.flat[:0]
}

// one returns a list of record e alone.
func (a *elemArena) one(e Elem) elemList {
	i := int32(len(a.elems))
	a.elems = append(a.elems, e)
	a.next = append(a.next, -1)
	return elemList{head: i, tail: i, n: 1}
}

// concat returns the records of l, then those of m; l and m are spent.
func (a *elemArena) concat(l, m elemList) elemList {
	switch {
	case m.n == 0:
		return l
	case l.n == 0:
		return m
	}
	a.next[l.tail] = m.head
	return elemList{head: l.head, tail: m.tail, n: l.n + m.n}
}

// flatten returns the records of l in order, in a slice that stays valid
// until reset. NB: reset sized flat for every record of the batch, so
// appending never moves what earlier calls returned.
func (a *elemArena) flatten(l elemList) []Elem {
	start := len(a.flat)
	for i, k := l.head, int32(0); k < l.n; i, k = a.next[i], k+1 {
		a.flat = append(a.flat, a.elems[i])
	}
	return a.flat[start:len(a.flat):len(a.flat)]
}
