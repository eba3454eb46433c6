package replog

import (
	"slices"
	"testing"
)

// TestLeaderChangesAlternate feeds forwardLeaderChanges what raft's leader
// channel may deliver, which drops values a slow reader missed, and checks
// that LeaderChanges alternates all the same.
func TestLeaderChangesAlternate(t *testing.T) {
	for _, tc := range []struct {
		name string
		from []bool
		want []bool
	}{
		{"gained and lost", []bool{true, false}, []bool{true, false}},
		{"lost and regained unseen", []bool{true, true}, []bool{true, false, true}},
		{"gained and lost unseen", []bool{true, false, false}, []bool{true, false, true, false}},
		{"nothing", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &Log{changes: make(chan bool, 16), done: make(chan struct{})}
			src := make(chan bool)
			l.wg.Add(1)
			go l.forwardLeaderChanges(src)
			for _, v := range tc.from {
				src <- v
			}
			// Once everything is forwarded, closing done ends the
			// forwarder; the values stay in the buffered channel.
			eventually(t, "the values are forwarded", func() bool { return len(l.changes) >= len(tc.want) })
			close(l.done)
			l.wg.Wait()
			var got []bool
			for v := range l.changes {
				got = append(got, v)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("LeaderChanges delivered %v, want %v", got, tc.want)
			}
		})
	}
}
