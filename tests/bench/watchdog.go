package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"
)

// rowTimeout bounds one benchmark: past it, the harness writes every
// goroutine's stack to the log and exits, so that a hung job or cluster
// shows where it hangs instead of stalling `make bench`.
const rowTimeout = 5 * time.Minute

// watch starts the watchdog of benchmark name, which fires after timeout;
// stop disarms it.
func watch(name string, timeout time.Duration, log io.Writer) (stop func() bool) {
	t := time.AfterFunc(timeout, func() {
		fmt.Fprintf(log, "bench: %s has run for %s; goroutines:\n", name, timeout)
		pprof.Lookup("goroutine").WriteTo(log, 2)
		os.Exit(3)
	})
	return t.Stop
}
