package taskmanager

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

const stateFailed = floev1.TaskState_TASK_STATE_FAILED

// TestAllowedPaths deploys a job that reads a file and writes a directory
// to task managers with allowed paths: the one whose roots hold both runs
// it; the one whose roots do not fails the task, before opening anything,
// with a message that names the field and the path.
func TestAllowedPaths(t *testing.T) {
	tests := []struct {
		name     string
		roots    func(dir string) []string
		checkpts string
		state    floev1.TaskState
		errs     []string
	}{
		{name: "inside", roots: func(dir string) []string { return []string{dir} }, state: stateFinished},
		{name: "outside", roots: func(string) []string { return []string{"/nonexistent-root"} }, state: stateFailed,
			errs: []string{"source.path: ", "sink.path: ", "outside the allowed paths (/nonexistent-root)"}},
		{name: "checkpoint storage outside", roots: func(dir string) []string { return []string{dir} }, checkpts: "file:///etc",
			state: stateFailed, errs: []string{`checkpoint storage: "file:///etc" is outside the allowed paths`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sched := newFakeScheduler(t, "a", 1, true)
			j := newJob(t, "confined", false, "one")
			roots := tt.roots(filepath.Dir(j.input))
			tm := startTMWith(t, func(c *Config) { c.AllowedPaths = roots }, time.Minute, sched.addr())
			waitFor(t, "registration", func() bool { return tm.leaderAddr() == sched.addr() })
			j.req.CheckpointStorage = tt.checkpts
			j.deploy(t, tm, 1)
			waitFor(t, "the task's end", func() bool {
				return sched.hasUpdate(j.id, stateFinished) || sched.hasUpdate(j.id, stateFailed)
			})
			if !sched.hasUpdate(j.id, tt.state) {
				t.Fatalf("the task did not end %v", tt.state)
			}
			msg := sched.lastError(j.id)
			for _, want := range tt.errs {
				if !strings.Contains(msg, want) {
					t.Errorf("the task's error %q does not say %q", msg, want)
				}
			}
		})
	}
}

// lastError returns the error of the last update of task id the fake
// took.
func (f *fakeScheduler) lastError(id *floev1.TaskID) string {
	return get(f, func(f *fakeScheduler) string {
		for i := len(f.updates) - 1; i >= 0; i-- {
			if keyOf(f.updates[i].Task) == keyOf(id) {
				return f.updates[i].Error
			}
		}
		return ""
	})
}
