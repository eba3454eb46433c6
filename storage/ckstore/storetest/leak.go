package storetest

import (
	"runtime"
	"testing"
	"time"
)

// CheckGoroutines registers a cleanup that fails t if, once the test and
// the cleanups registered after this call are over, more goroutines run
// than when CheckGoroutines was called. Goroutines that are still winding
// down (closing HTTP connections) get a grace period. Tests that use it
// must not run in parallel with others.
func CheckGoroutines(t testing.TB) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<16)
			t.Errorf("%d goroutines leaked:\n%s", n-before, buf[:runtime.Stack(buf, true)])
		}
	})
}
