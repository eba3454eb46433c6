package task

import (
	"runtime"
	"testing"
)

func TestLookupsCutInAtStatePoints(t *testing.T) {
	var g gate
	g.lock()
	read := false
	done := make(chan struct{})
	go func() {
		defer close(done)
		g.lockForLookup()
		read = true
		g.unlockForLookup()
	}()
	for g.waiting.Load() == 0 {
		runtime.Gosched()
	}
	// NB: cutIn yields to waiters a bounded number of times, so on a
	// loaded machine one state point may pass before the lookup runs; it
	// must get in at one of the next ones, as it would in a long batch.
	for i := 0; !read; i++ {
		if i == 1000 {
			t.Fatal("the waiting lookup did not get in at 1000 state points")
		}
		g.cutIn()
		// The task holds the gate again, so the mutex orders the lookup's
		// write before this read.
	}
	if !g.held {
		t.Fatal("the task lost the gate")
	}
	g.unlock()
	<-done
}

func TestCutInWithoutTheGateOrWaitersDoesNothing(t *testing.T) {
	var g gate
	g.cutIn() // not held: must not unlock an unlocked mutex
	g.lock()
	g.cutIn() // nobody waiting: keeps it
	if g.mu.TryLock() {
		t.Fatal("cutIn without waiters released the gate")
	}
	g.unlock()
}
