package nexmark

import (
	"slices"
	"strings"
	"testing"

	nexmarksrc "github.com/floe-stream/floe/host/connector/nexmark"
)

// TestNativeOnAHandWrittenStream runs the native queries over the
// hand-written stream, in its (timestamp) order, and checks them against the
// outputs worked out by hand.
func TestNativeOnAHandWrittenStream(t *testing.T) {
	lines, stamps := make([][]byte, len(stream)), make([]int64, len(stream))
	for i, l := range stream {
		lines[i] = []byte(l)
		stamps[i] = fieldInt(t, l, map[byte]int{'P': 7, 'A': 6, 'B': 6}[l[0]])
	}
	for name, want := range map[string][]string{"q1": wantQ1, "q2": wantQ2, "q5": wantQ5, "q7": wantQ7} {
		if got := runNative(t, name, lines, stamps); !slices.Equal(got, sortedCopy(want)) {
			t.Errorf("native %s:\n got %q\nwant %q", name, got, sortedCopy(want))
		}
	}
}

// TestNativeMatchesReferenceOnAGeneratedStream runs the native queries and
// the brute-force ones over 300,000 generated events at 2,000 events/s
// (150 s of event time: 15 tumbling and 79 sliding windows) and checks that
// they agree, and that every query has results.
func TestNativeMatchesReferenceOnAGeneratedStream(t *testing.T) {
	lines, stamps, strs := generate(300_000, 2000)
	e, err := Parse(strs)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct {
		name string
		ref  func(*Events) []string
	}{{"q1", Q1}, {"q2", Q2}, {"q5", Q5}, {"q7", Q7}} {
		want := q.ref(e)
		got := runNative(t, q.name, lines, stamps)
		if !slices.Equal(got, want) {
			t.Errorf("%s: native gives %d lines, reference %d; they differ", q.name, len(got), len(want))
		}
		if len(want) == 0 {
			t.Errorf("%s: no results over the generated stream", q.name)
		}
	}
	if got := len(Q8(e)); got == 0 {
		t.Error("q8: no new users over the generated stream")
	}
}

func TestNativeNeedsTimeOrder(t *testing.T) {
	var q5 Q5Native
	var q7 Q7Native
	emit := func([]byte) {}
	bid := []byte("B,1,2,3,c,u,50")
	for name, add := range map[string]func([]byte, int64, func([]byte)) error{"q5": q5.Add, "q7": q7.Add} {
		if err := add(bid, 50, emit); err != nil {
			t.Fatal(err)
		}
		if err := add(bid, 49, emit); err == nil || !strings.Contains(err.Error(), "time order") {
			t.Errorf("%s: a timestamp going back gave %v, want an error", name, err)
		}
	}
}

func TestNativeRejectsMalformedBids(t *testing.T) {
	for _, line := range []string{"B,", "B,1,2", "B,1,2,x,c,u,5", "B,1,,3,c,u,5", "B,1,2,1234567890123456789,c,u,5"} {
		if _, _, err := Q1Native(nil, []byte(line)); err == nil {
			t.Errorf("Q1Native(%q) succeeded", line)
		}
	}
	if out, ok, err := Q1Native([]byte("x"), []byte("P,1000,a,b,c,d,e,5")); ok || err != nil || string(out) != "x" {
		t.Errorf("Q1Native on a person = %q, %v, %v; want no output", out, ok, err)
	}
}

// runNative runs the native query name over lines with their timestamps
// and returns its output, sorted.
func runNative(t *testing.T, name string, lines [][]byte, stamps []int64) []string {
	t.Helper()
	out := []string{}
	emit := func(l []byte) { out = append(out, string(l)) }
	var q5 Q5Native
	var q7 Q7Native
	var buf []byte
	for i, line := range lines {
		var ok bool
		var err error
		switch name {
		case "q1":
			buf, ok, err = Q1Native(buf[:0], line)
		case "q2":
			buf, ok, err = Q2Native(buf[:0], line)
		case "q5":
			err = q5.Add(line, stamps[i], emit)
		case "q7":
			err = q7.Add(line, stamps[i], emit)
		}
		if err != nil {
			t.Fatalf("%s: line %d %q: %v", name, i, line, err)
		}
		if ok {
			emit(buf)
		}
	}
	q5.Flush(emit)
	q7.Flush(emit)
	slices.Sort(out)
	return out
}

// generate returns the first n events of the default stream at eps events
// per second of event time, as byte lines, timestamps and strings.
func generate(n, eps int64) ([][]byte, []int64, []string) {
	g := nexmarksrc.NewGenerator(eps, 0)
	strs := Generate(n, eps, 0)
	lines, stamps := make([][]byte, n), make([]int64, n)
	for i, s := range strs {
		lines[i], stamps[i] = []byte(s), g.Timestamp(int64(i))
	}
	return lines, stamps, strs
}

func fieldInt(t *testing.T, line string, field int) int64 {
	t.Helper()
	var p fieldParser
	v := p.int(strings.Split(line, ",")[field])
	if p.err != nil {
		t.Fatal(p.err)
	}
	return v
}
