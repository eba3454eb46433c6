package clienttest

import (
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/rest"
)

// NewServer serves svc through the scheduler's REST handler with default
// options until tb ends, and checks then that the server left no goroutines
// behind (see CheckGoroutines). Clients should use http.DefaultClient or the
// server's Client, whose idle connections the server closes.
func NewServer(tb testing.TB, svc api.Service) *httptest.Server {
	tb.Helper()
	CheckGoroutines(tb)
	srv := httptest.NewServer(rest.New(svc, rest.Options{}))
	tb.Cleanup(srv.Close)
	return srv
}

// settle is how long CheckGoroutines waits for goroutines to end.
var settle = 5 * time.Second

// CheckGoroutines makes tb fail if, once its cleanups have run, goroutines
// remain that did not exist when CheckGoroutines was called. Cleanups run
// last in, first out, so call it before starting whatever a later cleanup
// stops. It waits up to five seconds for goroutines to end, and ignores the
// process-wide os/signal loop. It cannot tell apart the goroutines of tests
// that run in parallel, so use it only in sequential tests.
func CheckGoroutines(tb testing.TB) {
	tb.Helper()
	before := goroutines()
	tb.Cleanup(func() {
		deadline := time.Now().Add(settle)
		for {
			leaked := newSince(before)
			if len(leaked) == 0 {
				return
			}
			if time.Now().After(deadline) {
				tb.Errorf("%d goroutines leaked:\n\n%s", len(leaked), strings.Join(leaked, "\n\n"))
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// goroutines returns the stack of every goroutine by its header line,
// "goroutine N", without the state that follows it.
func goroutines() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	stacks := make(map[string]string)
	for _, s := range strings.Split(string(buf), "\n\n") {
		id, _, _ := strings.Cut(s, " [")
		stacks[id] = s
	}
	return stacks
}

// newSince returns the stacks of the goroutines that are not in before.
func newSince(before map[string]string) []string {
	var leaked []string
	for id, stack := range goroutines() {
		if _, ok := before[id]; !ok && !strings.Contains(stack, "os/signal.loop") {
			leaked = append(leaked, stack)
		}
	}
	slices.Sort(leaked)
	return leaked
}
