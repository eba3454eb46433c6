// Package faulty wraps a checkpoint.Store so that tests can make it fail or
// slow down on command, the way pebble's errorfs does for file systems:
// fail the next upload of a checkpoint's metadata, fail every upload after
// a number of bytes, make listings slow. Operations that no rule matches
// pass through to the wrapped store unchanged. Range reads (GetRange) count
// as gets, and Failures tells a test whether the faults it set up happened.
//
// Rules select calls by operation and by a path.Match pattern over the
// path (for List, over the prefix); an empty pattern matches every path.
// Note that "*" does not match "/": "chk-*/_metadata" matches
// "chk-12/_metadata" but not "a/chk-12/_metadata".
package faulty
