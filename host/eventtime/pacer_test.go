package eventtime

import (
	"fmt"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

// TestPacer runs the scripts in testdata/pacer. Times are offsets from
// the moment the source opened. Commands:
//
//	new interval=D idle=D
//	read at=D records=N wm=T [splits-idle]
//
// read is one turn of a source task's loop: it read N records by at, and
// its watermark (from its generator or its splits) is T. It prints what
// the task sends downstream.
func TestPacer(t *testing.T) {
	datadriven.Walk(t, "testdata/pacer", func(t *testing.T, path string) {
		var p *Pacer
		epoch := time.Unix(1_000_000, 0)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "new":
				p = NewPacer(duration(t, d, "interval"), duration(t, d, "idle"), epoch)
				return "ok\n"
			case "read":
				var n int
				var wm int64
				d.ScanArgs(t, "records", &n)
				d.ScanArgs(t, "wm", &wm)
				now := epoch.Add(duration(t, d, "at"))
				if !p.Due(now, n) {
					return "not due\n"
				}
				m, ok := p.Emit(now, wm, d.HasArg("splits-idle"))
				switch {
				case !ok:
					return "nothing to send\n"
				case m.Idle:
					return fmt.Sprintf("send idle at %s\n", mark(m.Watermark))
				}
				return fmt.Sprintf("send %s\n", mark(m.Watermark))
			}
			t.Fatalf("unknown command %q", d.Cmd)
			return ""
		})
	})
}

func duration(t *testing.T, d *datadriven.TestData, key string) time.Duration {
	var s string
	d.ScanArgs(t, key, &s)
	v, err := time.ParseDuration(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
