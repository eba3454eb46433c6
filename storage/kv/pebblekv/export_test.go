package pebblekv

// ForgetEmpty makes s behave as if its database had not been empty when it
// opened, so that tests exercise reads of Pebble with a large cache.
func ForgetEmpty(s *Store) {
	s.cache.complete = false
}
