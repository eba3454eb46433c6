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
	g.cutIn()
	// The task holds the gate again, and the lookup has read (the mutex
	// orders its write before this read).
	if !read {
		t.Fatal("the waiting lookup did not get in at the state point")
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
