package pebblekv

// DisableFilter turns off s's key filter, so that every cache miss reads
// Pebble and tests exercise reads of Pebble with a large cache.
func DisableFilter(s *Store) {
	s.filter.off = true
}
