package task

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// gate is the lock over a task's keyed state: the task holds it while its
// operators run a batch, fire timers or write a snapshot, and a lookup
// holds it while it reads.
//
// A lookup need not wait for a whole batch. Operator instances call cutIn
// between their state operations (host.InstanceConfig.StatePoint), and
// there the task lets waiting lookups in. Each key is then read as its
// last state operation left it, as it would be between batches.
type gate struct {
	mu      sync.Mutex
	waiting atomic.Int32
	// held says the task holds mu; only the task's goroutine uses it.
	held bool
}

// lock and unlock are the task's.
func (g *gate) lock() {
	g.mu.Lock()
	g.held = true
}

func (g *gate) unlock() {
	g.held = false
	g.mu.Unlock()
}

// lockForLookup takes the gate for a lookup, cutting into the task's batch.
func (g *gate) lockForLookup() {
	g.waiting.Add(1)
	g.mu.Lock()
	g.waiting.Add(-1)
}

func (g *gate) unlockForLookup() { g.mu.Unlock() }

// cutIn lets the lookups waiting for the gate in, if the task holds it.
// The task's goroutine calls it.
func (g *gate) cutIn() {
	if !g.held || g.waiting.Load() == 0 {
		return
	}
	g.mu.Unlock()
	// NB: Unlock readies a waiter on this P; yield it the P until every
	// waiter is in (they leave waiting once they hold mu), within reason.
	for i := 0; i < 100 && g.waiting.Load() > 0; i++ {
		runtime.Gosched()
	}
	g.mu.Lock()
}
