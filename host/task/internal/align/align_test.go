package align

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// msg is a message of a script: "IN: data X", "IN: watermark T",
// "IN: barrier N" or "IN: end".
type msg struct {
	in   int
	kind string
	arg  string
}

func (m msg) String() string {
	return strings.TrimSpace(fmt.Sprintf("%d: %s %s", m.in, m.kind, m.arg))
}

func parseMsg(t *testing.T, line string) msg {
	in, rest, ok := strings.Cut(line, ":")
	n, err := strconv.Atoi(in)
	if !ok || err != nil {
		t.Fatalf("bad message %q: want \"IN: kind [arg]\"", line)
	}
	kind, arg, _ := strings.Cut(strings.TrimSpace(rest), " ")
	return msg{in: n, kind: kind, arg: arg}
}

// TestAlign runs the scripts in testdata/. Commands:
//
//	new inputs=N      a task with N inputs
//	recv              one message a line, as the task receives them
//	replay            the task handles what alignment held
//	state             what the aligner holds
//
// recv and replay print, for each message, what the task does with it as
// its inbox loop does: hold it, process it, begin aligning, block an input,
// snapshot (and which inputs that unblocks), or fail.
func TestAlign(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var a *Aligner[msg]
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			var sb strings.Builder
			switch d.Cmd {
			case "new":
				var n int
				d.ScanArgs(t, "inputs", &n)
				a = New[msg](n)
				return "ok\n"
			case "recv":
				for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
					m := parseMsg(t, line)
					fmt.Fprintf(&sb, "%s → %s\n", m, deliver(t, a, m))
				}
			case "replay":
				for m, ok := a.Replay(); ok; m, ok = a.Replay() {
					fmt.Fprintf(&sb, "%s → %s\n", m, deliver(t, a, m))
				}
			case "state":
				return state(a)
			default:
				t.Fatalf("unknown command %q", d.Cmd)
			}
			if sb.Len() == 0 {
				return "(nothing)\n"
			}
			return sb.String()
		})
	})
}

// deliver handles m as the task's inbox loop does and says what happened.
func deliver(t *testing.T, a *Aligner[msg], m msg) string {
	if a.Hold(m.in, m) {
		return "held"
	}
	var blocked []int
	for i := range a.blocked {
		if a.Blocked(i) {
			blocked = append(blocked, i)
		}
	}
	var out Outcome
	switch m.kind {
	case "barrier":
		id, err := strconv.ParseInt(m.arg, 10, 64)
		if err != nil {
			t.Fatalf("bad barrier %q", m.arg)
		}
		if out, err = a.Barrier(m.in, id); err != nil {
			return "error: " + err.Error()
		}
	case "end":
		out = a.End(m.in)
	case "data", "watermark":
		return "process"
	default:
		t.Fatalf("unknown message kind %q", m.kind)
	}
	var acts []string
	if out.Began != 0 {
		acts = append(acts, fmt.Sprintf("begin %d", out.Began))
	}
	if out.Blocked >= 0 {
		acts = append(acts, fmt.Sprintf("block %d", out.Blocked))
	}
	if out.Snapshot != 0 {
		if m.kind == "barrier" {
			blocked = append(blocked, m.in)
		}
		slices.Sort(blocked)
		acts = append(acts, fmt.Sprintf("snapshot %d, unblock %v", out.Snapshot, blocked))
	}
	if len(acts) == 0 {
		return "ended"
	}
	return strings.Join(acts, ", ")
}

func state(a *Aligner[msg]) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "aligning %d\n", a.Aligning())
	for i := range a.held {
		fmt.Fprintf(&sb, "input %d:", i)
		switch {
		case a.ended[i]:
			sb.WriteString(" ended")
		case a.blocked[i]:
			sb.WriteString(" blocked")
		default:
			sb.WriteString(" open")
		}
		for _, m := range a.held[i] {
			fmt.Fprintf(&sb, ", holds %s", m)
		}
		sb.WriteString("\n")
	}
	for _, m := range a.replay[a.next:] {
		fmt.Fprintf(&sb, "to replay %s\n", m)
	}
	return sb.String()
}

// TestHoldingDoesNotAllocate checks that, once its buffers have grown, the
// aligner holds and replays checkpoint after checkpoint without
// allocating: it is on the path of every batch.
func TestHoldingDoesNotAllocate(t *testing.T) {
	a := New[msg](3)
	round := func() {
		for i := 0; i < 3; i++ {
			if _, err := a.Barrier(i, 7); err != nil {
				t.Fatal(err)
			}
			for j := 0; j < 50; j++ {
				if i < 2 && !a.Hold(i, msg{in: i, kind: "data"}) {
					t.Fatal("a blocked input's message was not held")
				}
			}
		}
		n := 0
		for _, ok := a.Replay(); ok; _, ok = a.Replay() {
			n++
		}
		if n != 100 {
			t.Fatalf("replayed %d messages, want 100", n)
		}
	}
	round()
	if allocs := testing.AllocsPerRun(100, round); allocs != 0 {
		t.Fatalf("%v allocations a checkpoint, want 0", allocs)
	}
}
