package state

// Map is the handle of a map state: a map from map keys to values per key.
type Map struct {
	handle
}

// Get returns the value of map key mk of key in key group kg and whether
// there is one. The slice is valid until the next call on the Backend.
func (m *Map) Get(kg uint16, key, mk []byte) ([]byte, bool, error) {
	val, ok, err := m.b.store.Get(m.entryKey(kg, key, mk))
	return val, ok, m.wrap("get", err)
}

// Put sets the value of map key mk of key in key group kg. The state
// copies mk and val.
func (m *Map) Put(kg uint16, key, mk, val []byte) error {
	return m.wrap("put", m.b.store.Set(m.entryKey(kg, key, mk), val))
}

// Delete removes map key mk of key in key group kg.
func (m *Map) Delete(kg uint16, key, mk []byte) error {
	return m.wrap("delete", m.b.store.Delete(m.entryKey(kg, key, mk)))
}

// Iter calls fn for each entry of the map of key in key group kg, in
// ascending byte order of map keys. mk and val are valid only during the
// call; fn may use the Backend, but the entries it adds or removes do not
// change this iteration. An error from fn stops the iteration and is
// returned as is.
func (m *Map) Iter(kg uint16, key []byte, fn func(mk, val []byte) error) error {
	start, end := m.span(kg, key)
	m.b.collected = m.b.borrow()
	err := m.b.store.Scan(start, end, m.b.collect)
	buf := m.b.collected
	m.b.collected = nil
	defer m.b.giveBack(buf)
	if err != nil {
		return m.wrap("iter", err)
	}
	for rest := buf; len(rest) > 0; {
		var mk, val []byte
		mk, rest, _ = nextElem(rest)
		val, rest, _ = nextElem(rest)
		if err := fn(mk, val); err != nil {
			return err
		}
	}
	return nil
}

// Clear removes every entry of the map of key in key group kg.
func (m *Map) Clear(kg uint16, key []byte) error {
	start, end := m.span(kg, key)
	return m.wrap("clear", m.b.store.DeleteRange(start, end))
}

// entryKey builds the store key of one map entry in the Backend's scratch
// buffer.
func (m *Map) entryKey(kg uint16, key, mk []byte) []byte {
	m.b.key = append(m.storeKey(kg, key), mk...)
	return m.b.key
}

// span returns the store key range of all entries of key's map, in the
// Backend's scratch buffers.
func (m *Map) span(kg uint16, key []byte) (start, end []byte) {
	start = m.storeKey(kg, key)
	m.b.end = appendPrefixEnd(m.b.end[:0], start)
	return start, m.b.end
}

// collectEntry appends one scanned map entry to b.collected as a map key
// and a value, each length-prefixed. It is Map.Iter's scan callback.
func (b *Backend) collectEntry(k, v []byte) error {
	p, err := decodeKey(k)
	if err != nil {
		return err
	}
	b.collected = appendElem(appendElem(b.collected, p.rest), v)
	return nil
}
