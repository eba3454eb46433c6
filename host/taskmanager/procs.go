package taskmanager

import (
	"os"
	"runtime"
)

// SpareProc sets GOMAXPROCS to one more than the CPUs the process may use,
// unless the GOMAXPROCS environment variable sets it, and returns the
// value. A process that runs tasks calls it at start.
//
// At full speed the tasks keep every P busy. Go looks for network
// connections that became ready from an idle P, or else from its monitor
// only every 10ms, so without a spare P every hop of a state lookup (the
// scheduler's request, the reply), every exchange credit and heartbeat
// waits up to 10ms. The spare P costs the OS a thread that mostly sleeps in
// the network poller.
func SpareProc() int {
	if os.Getenv("GOMAXPROCS") != "" {
		return runtime.GOMAXPROCS(0)
	}
	n := runtime.GOMAXPROCS(0) + 1
	runtime.GOMAXPROCS(n)
	return n
}
