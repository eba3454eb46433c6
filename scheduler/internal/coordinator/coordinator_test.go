package coordinator

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

// TestCoordinator runs the scenarios in testdata/. Commands:
//
//	config interval=D timeout=D min-pause=D max-concurrent=N
//	start at=D tasks=S/T,... sources=S/T,...
//	tick at=D
//	ack id=N task=S/T at=D [handle=X]
//	decline id=N task=S/T at=D reason=X
//	finish task=S/T at=D
//	ending task=S/T at=D
//	trigger-now at=D
//	stop reason=X
//
// Each prints the actions returned and the checkpoints pending. Times are
// offsets from an epoch.
func TestCoordinator(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var c *Coordinator
		epoch := time.Unix(1_000_000, 0)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			at := func() time.Time { return epoch.Add(dur(t, d, "at")) }
			var acts []Action
			switch d.Cmd {
			case "config":
				var n int
				d.ScanArgs(t, "max-concurrent", &n)
				c = New(Config{Interval: dur(t, d, "interval"), Timeout: dur(t, d, "timeout"), MinPause: dur(t, d, "min-pause"), MaxConcurrent: n})
				return ""
			case "start":
				c.Start(at(), tasks(t, d, "tasks"), tasks(t, d, "sources"))
			case "tick":
				acts = c.Tick(at())
			case "ack":
				var handle string
				if d.HasArg("handle") {
					d.ScanArgs(t, "handle", &handle)
				}
				acts = c.Ack(at(), id(t, d), tasks(t, d, "task")[0], []byte(handle))
			case "decline":
				var reason string
				d.ScanArgs(t, "reason", &reason)
				acts = c.Decline(at(), id(t, d), tasks(t, d, "task")[0], reason)
			case "finish":
				acts = c.Finish(at(), tasks(t, d, "task")[0])
			case "ending":
				acts = c.Ending(at(), tasks(t, d, "task")[0])
			case "trigger-now":
				if tr, ok := c.TriggerNow(at()); ok {
					acts = []Action{tr}
				}
			case "stop":
				var reason string
				d.ScanArgs(t, "reason", &reason)
				acts = c.Stop(reason)
			default:
				t.Fatalf("unknown command %q", d.Cmd)
			}
			return render(acts, epoch) + fmt.Sprintf("pending %v\n", c.Pending())
		})
	})
}

func render(acts []Action, epoch time.Time) string {
	var sb strings.Builder
	for _, a := range acts {
		switch a := a.(type) {
		case Trigger:
			fmt.Fprintf(&sb, "trigger %d at %v\n", a.ID, a.Tasks)
		case Abort:
			fmt.Fprintf(&sb, "abort %d: %s\n", a.ID, a.Reason)
		case Complete:
			var hs []string
			for task, h := range a.Handles {
				hs = append(hs, fmt.Sprintf("%s=%s", task, h))
			}
			sort.Strings(hs)
			fmt.Fprintf(&sb, "complete %d triggered at %s handles %s\n", a.ID, a.Triggered.Sub(epoch), strings.Join(hs, " "))
		}
	}
	return sb.String()
}

func dur(t *testing.T, d *datadriven.TestData, key string) time.Duration {
	var s string
	d.ScanArgs(t, key, &s)
	v, err := time.ParseDuration(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func id(t *testing.T, d *datadriven.TestData) int64 {
	var n int
	d.ScanArgs(t, "id", &n)
	return int64(n)
}

func tasks(t *testing.T, d *datadriven.TestData, key string) []Task {
	var s string
	d.ScanArgs(t, key, &s)
	var out []Task
	for _, p := range strings.Split(s, ",") {
		st, sub, ok := strings.Cut(p, "/")
		a, err1 := strconv.Atoi(st)
		b, err2 := strconv.Atoi(sub)
		if !ok || err1 != nil || err2 != nil {
			t.Fatalf("bad task %q", p)
		}
		out = append(out, Task{a, b})
	}
	return out
}
