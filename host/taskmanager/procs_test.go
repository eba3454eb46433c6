package taskmanager

import (
	"runtime"
	"testing"
)

func TestRuntimeGivesEveryRunningTaskAP(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	r := &Runtime{cpus: 2}
	for _, step := range []struct{ add, want int }{
		{1, 3}, {3, 6}, {-2, 4}, {-2, 3}, // never fewer than CPUs + 1
	} {
		r.add(step.add)
		if got := runtime.GOMAXPROCS(0); got != step.want {
			t.Fatalf("after %+d tasks: GOMAXPROCS %d, want %d", step.add, got, step.want)
		}
	}
	fixed := &Runtime{cpus: 2, fixed: true}
	fixed.add(5)
	if got := runtime.GOMAXPROCS(0); got != 3 {
		t.Fatalf("a GOMAXPROCS from the environment moved to %d", got)
	}
	var none *Runtime
	none.taskStarted() // a task manager without a Runtime
}

func TestMemoryLimitIsWithinTheMachine(t *testing.T) {
	avail, total := memAvailable(), memTotal()
	if total <= 0 {
		t.Skip("no /proc/meminfo here")
	}
	if avail <= 0 || avail > total {
		t.Fatalf("memAvailable %d, machine %d", avail, total)
	}
}
