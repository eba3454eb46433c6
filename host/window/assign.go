// Package window is Floe's built-in window operator: it assigns a keyed
// stream's records to tumbling, sliding or session windows on event or
// processing time, keeps each key's windows in keyed state (an accumulator
// per window for an aggregate function, the records for a window process
// function), fires them with timers, lets late records within the allowed
// lateness update a fired window, and sends later ones to a side output.
// The user's function runs in Wasm (host.Instance.Window); the operator
// reaches it through Function, so its logic is tested without Wasm.
package window

import "fmt"

// Kind is a window shape.
type Kind string

// The window kinds.
const (
	Tumbling Kind = "tumbling"
	Sliding  Kind = "sliding"
	Session  Kind = "session"
)

// Spec describes the windows of an operator; durations are in ms.
type Spec struct {
	Kind  Kind
	Size  int64 // tumbling and sliding
	Slide int64 // sliding
	Gap   int64 // session
}

// Validate reports a spec that cannot assign windows.
func (s Spec) Validate() error {
	switch s.Kind {
	case Tumbling:
		if s.Size <= 0 {
			return fmt.Errorf("a tumbling window needs a size > 0")
		}
	case Sliding:
		if s.Size <= 0 || s.Slide <= 0 {
			return fmt.Errorf("a sliding window needs a size and a slide > 0")
		}
		if s.Size%s.Slide != 0 {
			return fmt.Errorf("a sliding window's size (%dms) must be a multiple of its slide (%dms)", s.Size, s.Slide)
		}
	case Session:
		if s.Gap <= 0 {
			return fmt.Errorf("a session window needs a gap > 0")
		}
	default:
		return fmt.Errorf("unknown window kind %q (want tumbling, sliding or session)", s.Kind)
	}
	return nil
}

// W is one window, [Start, End).
type W struct{ Start, End int64 }

// MaxTimestamp is the last instant of the window: it fires once time
// reaches it.
func (w W) MaxTimestamp() int64 { return w.End - 1 }

func (w W) String() string { return fmt.Sprintf("[%d,%d)", w.Start, w.End) }

// Assign appends to dst the windows a record at ts belongs to, earliest
// first. Session windows start as [ts, ts+gap) and merge later.
func (s Spec) Assign(dst []W, ts int64) []W {
	switch s.Kind {
	case Tumbling:
		start := floorTo(ts, s.Size)
		return append(dst, W{start, start + s.Size})
	case Sliding:
		last := floorTo(ts, s.Slide)
		for start := last - s.Size + s.Slide; start <= last; start += s.Slide {
			dst = append(dst, W{start, start + s.Size})
		}
		return dst
	}
	return append(dst, W{ts, ts + s.Gap})
}

// floorTo rounds ts down to a multiple of n, negative times included.
func floorTo(ts, n int64) int64 {
	r := ts % n
	if r < 0 {
		r += n
	}
	return ts - r
}
