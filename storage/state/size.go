package state

import (
	"fmt"
	"strings"

	"github.com/floe-stream/floe/storage/kv"
)

// Size is how much keyed state there is: store entries (one per value or
// list state of a key, one per map entry of a map state) and their bytes,
// keys and values as stored.
type Size struct {
	Keys, Bytes int64
}

// sizes sums the store's changes per namespace. It is the store's
// kv.Observer, so it runs on the task's goroutine, and costs a call only
// for writes that add or remove an entry or change a value's length.
type sizes struct {
	byNS map[string]*Size
	// last is the Size of lastNS: writes come in runs of one namespace, so
	// most need no map lookup.
	lastNS string
	last   *Size
}

// Resized implements kv.Observer.
func (s *sizes) Resized(key []byte, keys, bytes int) {
	ns := key[:0]
	if len(key) >= 3 && len(key) >= 3+int(key[2]) {
		ns = key[3 : 3+int(key[2])]
	}
	if s.last == nil || s.lastNS != string(ns) {
		s.find(ns)
	}
	s.last.Keys += int64(keys)
	s.last.Bytes += int64(bytes)
}

// find makes the Size of ns the last one, adding it if it is new.
func (s *sizes) find(ns []byte) {
	sz, ok := s.byNS[string(ns)]
	if !ok {
		sz = &Size{}
		s.byNS[string(ns)] = sz
	}
	s.lastNS, s.last = string(ns), sz
}

// TrackSizes starts keeping the size of each operator's state (SizeOf) as
// the store changes, if the store can report its changes (kv.Observable, as
// memkv and pebblekv are; it does nothing otherwise). It first scans what
// the store already holds, so call it once, before restoring into an empty
// store is cheapest. See the stores for what observing costs them.
func (b *Backend) TrackSizes() error {
	o, ok := b.log.Store.(kv.Observable)
	if !ok {
		return nil
	}
	clear(b.sizes.byNS)
	b.sizes.last = nil
	if err := o.Observe(b.sizes); err != nil {
		return fmt.Errorf("state: track sizes: %w", err)
	}
	return nil
}

// SizeOf returns the size of the state of the operator with the given uid:
// of every namespace Namespace(operatorUID, name), and of the namespaces
// the host keeps for the operator, named by the uid, '#' and a suffix (a
// window operator's windows, an operator's timers). Job specs keep '/' and
// '#' out of uids, so no operator's namespaces are another's. It is exact when the
// Backend tracks sizes (TrackSizes), and zero otherwise. It costs a look at each namespace the state has held and
// allocates nothing.
func (b *Backend) SizeOf(operatorUID string) Size {
	var total Size
	for ns, sz := range b.sizes.byNS {
		if rest, ok := strings.CutPrefix(ns, operatorUID); ok && rest != "" && (rest[0] == '/' || rest[0] == '#') {
			total.Keys += sz.Keys
			total.Bytes += sz.Bytes
		}
	}
	return total
}
