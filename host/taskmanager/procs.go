package taskmanager

import (
	"os"
	"runtime"
)

// SpareProc gives the process a spare P: GOMAXPROCS becomes one more than
// the CPUs it may use, unless the GOMAXPROCS environment variable sets it.
// It returns the value. A process that runs tasks calls it at start.
//
// At full speed the tasks keep every P busy. Go looks for network
// connections that became ready from an idle P, or else from its monitor
// only every 10ms, so without a spare P every hop of a state lookup (the
// scheduler's request, the reply), every exchange credit and heartbeat
// waits up to 10ms. A spare P costs the OS a thread that mostly sleeps in
// the network poller. Measured on 2 CPUs with a job at full speed and
// state lookups at 20K/s: p99 176ms with no spare P, 24ms with one, 15ms
// with two (GOMAXPROCS=4), no better with six; but each spare P also costs
// the job some 4-5% of its throughput, hence one.
func SpareProc() int {
	if os.Getenv("GOMAXPROCS") != "" {
		return runtime.GOMAXPROCS(0)
	}
	n := runtime.GOMAXPROCS(0) + 1
	runtime.GOMAXPROCS(n)
	return n
}
