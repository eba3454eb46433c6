//go:build !wasip1

package main

import (
	"slices"
	"strings"
	"testing"

	floe "github.com/floe-stream/floe/sdk/go"
	"github.com/floe-stream/floe/sdk/go/floetest"
)

// TestRules runs both functions on one instance, as a coProcess with a
// broadcast input does: events through Process, rules through Process2.
// An event before its rule waits for the end of the input; a rule's first
// limit stands.
func TestRules(t *testing.T) {
	h := floetest.New()
	if err := h.OpenBroadcast("onEvent", "onRule", nil); err != nil {
		t.Fatal(err)
	}
	var got []string
	add := func(out []floetest.Emitted, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range out {
			got = append(got, string(e.Value))
		}
	}
	ev := func(user, rest string) floetest.Record {
		return floetest.Record{Key: []byte(user), Value: []byte(user + "," + rest), Timestamp: floe.NoTimestamp}
	}
	rule := func(v string) floetest.Record { return floetest.Record{Value: []byte(v), Timestamp: floe.NoTimestamp} }
	add(h.Process(ev("ann", "1,big,500")))
	add(h.Process2(rule("big,100"), rule("small,10")))
	add(h.Process(ev("bob", "2,big,50"), ev("ann", "3,small,11")))
	add(h.Process2(rule("big,1000")))
	add(h.Process(ev("bob", "4,big,500"), ev("bob", "5,none,1")))
	add(h.AdvanceWatermark(1<<63 - 1))
	want := []string{"2,bob,big,50,ok", "3,ann,small,11,alert", "4,bob,big,500,alert", "1,ann,big,500,alert", "5,bob,none,1,norule"}
	if !slices.Equal(got, want) {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), strings.Join(want, " "))
	}
	if n := len(h.BroadcastState("rules")); n != 2 {
		t.Errorf("%d rules kept, want 2", n)
	}
}

// TestRulesRefusesMalformedInput names the input that is wrong.
func TestRulesRefusesMalformedInput(t *testing.T) {
	for _, tc := range []struct {
		rule bool
		in   string
		want string
	}{
		{true, "big", "want rule,limit"},
		{true, "big,x", "want rule,limit with an integer limit"},
		{false, "ann,1,big", "want user,seq,rule,amount"},
		{false, "ann,1,big,x", "want user,seq,rule,amount with an integer amount"},
	} {
		h := floetest.New()
		if err := h.OpenBroadcast("onEvent", "onRule", nil); err != nil {
			t.Fatal(err)
		}
		r := floetest.Record{Key: []byte("ann"), Value: []byte(tc.in), Timestamp: floe.NoTimestamp}
		var err error
		if tc.rule {
			r.Key = nil
			_, err = h.Process2(r)
		} else {
			_, err = h.Process(r)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.in, err, tc.want)
		}
	}
}
