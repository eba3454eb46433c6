package eventtime

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestTracker runs the scripts in testdata/tracker. Commands:
//
//	new inputs=N     a task with N inputs, all at min
//	rewire inputs=N  the task reads N new inputs, all at min, as after a
//	                 partial rescale that kept it running
//	recv             one event a line: "IN: watermark T", "IN: idle T"
//	                 (an idle watermark at T), "IN: records" or "IN: end"
//
// recv prints, for each event, the task's watermark after it and whether
// it advanced ("advance to T": the task fires its event-time timers and
// sends T on).
func TestTracker(t *testing.T) {
	datadriven.Walk(t, "testdata/tracker", func(t *testing.T, path string) {
		var tr *Tracker
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "new":
				var n int
				d.ScanArgs(t, "inputs", &n)
				tr = NewTracker(n)
				return "ok\n"
			case "rewire":
				var n int
				d.ScanArgs(t, "inputs", &n)
				tr.Rewire(n)
				return "at " + mark(tr.Current()) + "\n"
			case "recv":
				var sb strings.Builder
				for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
					fmt.Fprintf(&sb, "%s → %s\n", line, trackerEvent(t, tr, line))
				}
				return sb.String()
			}
			t.Fatalf("unknown command %q", d.Cmd)
			return ""
		})
	})
}

func trackerEvent(t *testing.T, tr *Tracker, line string) string {
	in, ev, ok := strings.Cut(line, ":")
	from, err := strconv.Atoi(in)
	if !ok || err != nil {
		t.Fatalf("bad event %q: want \"IN: event\"", line)
	}
	kind, arg, _ := strings.Cut(strings.TrimSpace(ev), " ")
	var wm int64
	var adv bool
	switch kind {
	case "watermark", "idle":
		ts, err := strconv.ParseInt(arg, 10, 64)
		if err != nil {
			t.Fatalf("bad timestamp in %q", line)
		}
		wm, adv = tr.Watermark(from, ts, kind == "idle")
	case "records":
		tr.Active(from)
		wm = tr.Current()
	case "end":
		wm, adv = tr.End(from)
	default:
		t.Fatalf("unknown event %q", kind)
	}
	if adv {
		return "advance to " + mark(wm)
	}
	return "stay at " + mark(wm)
}

// mark prints a watermark, naming Min and Max.
func mark(wm int64) string {
	switch wm {
	case Min:
		return "min"
	case Max:
		return "max"
	}
	return strconv.FormatInt(wm, 10)
}
