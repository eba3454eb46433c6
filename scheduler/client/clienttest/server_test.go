package clienttest

import (
	"strings"
	"testing"
	"time"
)

// recorder is a testing.TB that keeps its cleanups and errors.
type recorder struct {
	testing.TB
	cleanups []func()
	errors   []string
}

func (r *recorder) Helper()               {}
func (r *recorder) Cleanup(f func())      { r.cleanups = append(r.cleanups, f) }
func (r *recorder) Errorf(string, ...any) { r.errors = append(r.errors, "error") }

func (r *recorder) runCleanups() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func TestCheckGoroutines(t *testing.T) {
	defer func(d time.Duration) { settle = d }(settle)
	settle = 50 * time.Millisecond
	tests := []struct {
		name  string
		stop  bool
		leaks bool
	}{{"stopped", true, false}, {"leaked", false, true}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			CheckGoroutines(rec)
			done, exited := make(chan struct{}), make(chan struct{})
			go func() { <-done; close(exited) }()
			if tt.stop {
				rec.Cleanup(func() { close(done) })
			}
			rec.runCleanups()
			if leaked := len(rec.errors) > 0; leaked != tt.leaks {
				t.Errorf("leak reported: %v, want %v", leaked, tt.leaks)
			}
			if !tt.stop {
				close(done)
			}
			<-exited
		})
	}
}

func TestNewServerServesFake(t *testing.T) {
	srv := NewServer(t, NewFake())
	resp, err := srv.Client().Get(srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Errorf("GET /healthz: %s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
}
