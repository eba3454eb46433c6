//go:build !wasip1

package floetest_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	floe "github.com/floe-stream/floe/sdk/go"
	"github.com/floe-stream/floe/sdk/go/floetest"
)

// limits is the broadcast state of setLimit (the broadcast function) and
// check (the keyed one): a name's limit.
var limits = floe.NewBroadcastState("limits", floe.String, floe.Int64)

func init() {
	floe.Process("setLimit", func(_ *floe.Context, rec []byte, _ floe.Emitter) error {
		name, n, _ := strings.Cut(string(rec), "=")
		v, err := strconv.ParseInt(n, 10, 64)
		if err != nil {
			return err
		}
		limits.Put(name, v)
		return nil
	})
	floe.Process("check", func(ctx *floe.Context, rec []byte, out floe.Emitter) error {
		if string(rec) == "reset" {
			limits.Clear() // not allowed here: the host refuses it
			return nil
		}
		v, _ := strconv.ParseInt(string(rec), 10, 64)
		limit, ok := limits.Get(string(ctx.Key()))
		out.Emit(fmt.Appendf(nil, "%s %d over %d: %v", ctx.Key(), v, limit, ok && v > limit))
		return nil
	})
}

// TestBroadcastWriteOutsideTheBroadcastFunctionFails checks that the
// harness refuses a write of broadcast state from the keyed function, as
// Floe's host does, and lets the broadcast function write.
func TestBroadcastWriteOutsideTheBroadcastFunctionFails(t *testing.T) {
	h := floetest.New()
	if err := h.OpenBroadcast("check", "setLimit", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Process2(floetest.Value("a=1")); err != nil {
		t.Fatal(err)
	}
	if got := h.BroadcastState("limits"); len(got) != 1 {
		t.Fatalf("broadcast state %v, want one entry", got)
	}
	_, err := h.Process(floetest.Record{Key: []byte("a"), Value: []byte("reset")})
	if err == nil || !strings.Contains(err.Error(), `broadcast state "limits" is read-only here`) {
		t.Fatalf("a keyed write of broadcast state: %v", err)
	}
	if got := h.BroadcastState("limits"); len(got) != 1 {
		t.Errorf("the refused write cleared the state: %v", got)
	}
}

func ExampleHarness_OpenBroadcast() {
	h := floetest.New()
	if err := h.OpenBroadcast("check", "setLimit", nil); err != nil {
		panic(err)
	}
	_, err := h.Process2(floetest.Value("a=10")) // the broadcast input: every subtask gets it
	if err != nil {
		panic(err)
	}
	out, err := h.Process(floetest.Record{Key: []byte("a"), Value: []byte("12"), Timestamp: floe.NoTimestamp})
	fmt.Println(floetest.Strings(out), err)
	// Output: [main a 12 over 10: true] <nil>
}
