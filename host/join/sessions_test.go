package join

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/floe-stream/floe/host/timer"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/host/window"
	"github.com/floe-stream/floe/storage/keygroup"
)

// countingMap records which map keys a window join reads.
type countingMap struct {
	udf.MapState
	gets  [][]byte
	iters int
}

func (m *countingMap) Get(kg uint16, key, mk []byte) ([]byte, bool, error) {
	m.gets = append(m.gets, bytes.Clone(mk))
	return m.MapState.Get(kg, key, mk)
}

func (m *countingMap) Iter(kg uint16, key []byte, fn func(mk, v []byte) error) error {
	m.iters++
	return m.MapState.Iter(kg, key, fn)
}

// TestSessionMergeReadsOnlyTheMergedRows builds 40 sessions of one key,
// then adds a record that extends the 8th, and checks that the join read
// no other session's rows and scanned nothing.
func TestSessionMergeReadsOnlyTheMergedRows(t *testing.T) {
	var rows *countingMap
	h, err := newHarness(t, func(m udf.MapState, q *timer.Queue) (joiner, error) {
		rows = &countingMap{MapState: m}
		return NewWindow(WindowConfig{Spec: window.Spec{Kind: window.Session, Gap: 5}, Kind: Inner}, Concat{Sep: []byte("|")}, rows, q)
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		// Sessions [100i, 100i+6) with one left and one right row each.
		if _, err := h.feed(Left, []string{fmt.Sprintf("k@%d l%d", 100*i, i)}); err != nil {
			t.Fatal(err)
		}
		if _, err := h.feed(Right, []string{fmt.Sprintf("k@%d r%d", 100*i+1, i)}); err != nil {
			t.Fatal(err)
		}
	}
	rows.gets, rows.iters = nil, 0
	if _, err := h.feed(Right, []string{"k@703 r7b"}); err != nil { // extends [700,706) to [700,708)
		t.Fatal(err)
	}
	if rows.iters != 0 {
		t.Errorf("the merge scanned the key's rows %d times", rows.iters)
	}
	for _, mk := range rows.gets {
		if len(mk) < 16 {
			continue // the session index
		}
		if w := decodeWindowKey(mk); w.Start != 700 {
			t.Errorf("the merge read %x, of window %v; only [700,706) merged", mk, w)
		}
	}
	out, err := h.watermark(10_000)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range out.Records {
		got = append(got, fmt.Sprintf("%d %s", r.Timestamp, r.Value))
	}
	// Session i pairs li with ri at its last instant, 100i+5; the 8th also
	// with r7b, and ends at 708.
	var want []string
	for i := range 40 {
		end := int64(100*i + 5)
		if i == 7 {
			end = 707
			want = append(want, fmt.Sprintf("%d l7|r7b", end))
		}
		want = append(want, fmt.Sprintf("%d l%d|r%d", end, i, i))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("pairs:\n%v\nwant\n%v", got, want)
	}
}

// TestSessionsWithoutAnIndex starts from rows written without the session
// index, as before it existed, and checks that a record merging them and
// the firing see every row.
func TestSessionsWithoutAnIndex(t *testing.T) {
	var op *Window
	h, err := newHarness(t, func(m udf.MapState, q *timer.Queue) (joiner, error) {
		w, err := NewWindow(WindowConfig{Spec: window.Spec{Kind: window.Session, Gap: 5}, Kind: Inner}, Concat{Sep: []byte("|")}, m, q)
		op = w
		return w, err
	})
	if err != nil {
		t.Fatal(err)
	}
	kg := keygroup.Of([]byte("k"), 128)
	h.keys["k"] = true
	// The old layout: rows and a counter per window, nothing else.
	if err := op.addRows(kg, []byte("k"), window.W{Start: 1, End: 6}, []row{{Left, []byte("l1")}, {Right, []byte("r2")}}); err != nil {
		t.Fatal(err)
	}
	if err := op.addRows(kg, []byte("k"), window.W{Start: 9, End: 14}, []row{{Left, []byte("l9")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.feed(Right, []string{"k@5 r5"}); err != nil { // [5,10) bridges both
		t.Fatal(err)
	}
	if got, want := h.state(t), "k [1,14) left l1\nk [1,14) left l9\nk [1,14) right r2\nk [1,14) right r5\ntimers: 1, late: 0"; got != want {
		t.Errorf("state:\n%s\nwant\n%s", got, want)
	}
	out, err := h.watermark(100)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := h.render(out), "k@13 l1|r2\nk@13 l1|r5\nk@13 l9|r2\nk@13 l9|r5"; got != want {
		t.Errorf("pairs:\n%s\nwant\n%s", got, want)
	}
}
