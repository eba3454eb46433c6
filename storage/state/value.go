package state

// Value is the handle of a value state: one value per key.
type Value struct {
	handle
}

// Get returns the value of key in key group kg and whether it has one. The
// slice is valid until the next call on the Backend.
func (v *Value) Get(kg uint16, key []byte) ([]byte, bool, error) {
	val, ok, err := v.b.store.Get(v.storeKey(kg, key))
	return val, ok, v.wrap("get", err)
}

// Put sets the value of key in key group kg. The state copies val.
func (v *Value) Put(kg uint16, key, val []byte) error {
	return v.wrap("put", v.b.store.Set(v.storeKey(kg, key), val))
}

// Delete removes the value of key in key group kg.
func (v *Value) Delete(kg uint16, key []byte) error {
	return v.wrap("delete", v.b.store.Delete(v.storeKey(kg, key)))
}
