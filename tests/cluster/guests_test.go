package cluster

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
)

// bystander passes the numbers 0 to 19,999, generated at 1,000 a second,
// through testops' upper map, so that it runs for a while beside the jobs
// that misbehave.
const bystander = `
name: bystander
parallelism: 1
modules:
  testops: testops.wasm
source: {type: generator, uid: gen, count: 20000, rate: 1000}
operators:
  - {type: map, uid: upper, module: testops, function: upper}
sink: {type: file, uid: out, path: "${output}"}
`

// misbehaver runs one of the test modules' misbehaving functions over a
// few generated records.
const misbehaver = `
name: %s
parallelism: 1
modules:
  %[2]s: %[2]s.wasm
source: {type: generator, uid: gen, count: 10}
operators:
  - {type: flatMap, uid: bad, module: %[2]s, function: %[3]s}
sink: {type: file, uid: out, path: "${output}"}
`

// The task manager's caps in the test. The output cap is below its
// default so that the memory bound below is the tight one.
const (
	guestMemory = 64 << 20
	callOutput  = 8 << 20
	guestSlots  = 2
	// tmOverhead is the task manager's memory besides what its guests
	// may take: the Go runtime, gRPC, the tasks' state stores, and the
	// compiled code of testops (Go modules are large) and of the C module.
	// With the bystander running the task manager peaks at about 120 MiB;
	// 256 MiB leaves room for the garbage of records and of closed
	// instances.
	tmOverhead = 256 << 20
	// tmHeapLimit is the task manager's GOMEMLIMIT. A task manager runs
	// with GOGC 400 (taskmanager.TuneRuntime), which lets garbage pile up
	// to four times what is live, under a default limit of 3/4 of the
	// machine's memory; an operator who bounds a task manager's memory
	// sets GOMEMLIMIT. The test does, below the bound, so that what it
	// checks is what the caps bound: live memory. The other 128 MiB are
	// for what is not Go heap (compiled code, stacks).
	//
	// NB: the bystander is paced by its source, not by testops' slow map:
	// in one run of three, a task running the slow map (which spins in
	// the guest's idle loop) grew by about 10 KiB a record until it ended,
	// misbehaving jobs or not.
	tmHeapLimit = guestSlots*guestMemory*3/2 + 128<<20
)

// Guests that try to exhaust the host fail their own job with a message
// naming module, function and cap, while a job beside them on the same
// task manager runs on and finishes, and the task manager's memory stays
// within 1.5 times the guests' memory cap per slot plus a fixed overhead.
// Before the caps, the emit loop alone took a task manager past 3 GB
// (issue 16).
func TestMisbehavingGuestsFailAloneWithinBoundedMemory(t *testing.T) {
	c := newCluster(t, clusterConfig{})
	t.Setenv("GOMEMLIMIT", fmt.Sprint(tmHeapLimit)) // for the task manager, started now
	tm := c.startTaskManager(guestSlots, "--max-memory", fmt.Sprint(guestMemory), "--max-call-output", fmt.Sprint(callOutput))
	misbehave := filepath.Join(modulesDir, "misbehave.wasm")
	if out, err := exec.Command("sh", filepath.Join(repoRoot, "udfs", "testops", "c", "build.sh"), misbehave).CombinedOutput(); err != nil {
		t.Fatalf("building udfs/testops/c: %v\n%s", err, out)
	}

	dir := t.TempDir()
	output := filepath.Join(dir, "out")
	var lines []string
	for i := range 20000 {
		lines = append(lines, fmt.Sprint(i))
	}
	slices.Sort(lines)
	by := c.submit(writeSpec(t, "bystander", bystander), "--set", "output="+output)
	c.waitJob(by, time.Minute, "running", func(j api.JobStatus) bool { return j.State == api.JobRunning })
	if base, err := tm.peakRSS(); err == nil {
		t.Logf("task manager peak resident memory with the bystander alone: %d MiB", base>>20)
	}

	for _, tc := range []struct {
		module, function string
		want             []string
	}{
		{"testops", "emit-loop", []string{fmt.Sprintf("emitted more than %d bytes in one call", callOutput), "--max-call-output"}},
		{"testops", "huge-record", []string{"emitted a record of 17825792 bytes, over the cap of 16777216 bytes per record"}},
		{"misbehave", "table-grow", []string{"table.grow refused after 0 entries added"}},
		{"misbehave", "huge-fail", []string{"xxx… (8388608 bytes)"}},
	} {
		t.Run(tc.function, func(t *testing.T) {
			spec := writeSpec(t, tc.function, fmt.Sprintf(misbehaver, tc.function, tc.module, tc.function))
			id := c.submit(spec, "--set", "output="+filepath.Join(dir, tc.function))
			var job api.JobStatus
			if err := c.poll(2*time.Minute, func() (bool, error) {
				job = c.job(id)
				return api.Terminal(job.State), nil
			}); err != nil {
				t.Fatalf("job %s: %v; last %s: %s", tc.function, err, job.State, job.Message)
			}
			want := append(tc.want, fmt.Sprintf(`module %q function %q`, tc.module, tc.function))
			for _, w := range want {
				if job.State != api.JobFailed || !strings.Contains(job.Message, w) {
					t.Errorf("job %s ended %s: %.300q; want FAILED saying %q", tc.function, job.State, job.Message, w)
				}
			}
			if b := c.job(by); b.State != api.JobRunning && b.State != api.JobFinished {
				t.Fatalf("the bystander is %s beside the %s job: %s", b.State, tc.function, b.Message)
			} else {
				peak, _ := tm.peakRSS()
				t.Logf("the bystander is %s after the %s job failed; task manager peak resident memory %d MiB", b.State, tc.function, peak>>20)
			}
		})
	}

	c.wait(by, 3*time.Minute)
	if got := outputLines(t, output); !slices.Equal(got, lines) {
		t.Errorf("the bystander wrote %d lines, want the %d numbers it generated", len(got), len(lines))
	}
	peak, err := tm.peakRSS()
	if err != nil {
		t.Fatal(err)
	}
	bound := int64(guestSlots*guestMemory*3/2 + tmOverhead)
	t.Logf("task manager peak resident memory %d MiB, bound %d MiB", peak>>20, bound>>20)
	if peak > bound {
		t.Errorf("task manager peak resident memory %d MiB, more than %d MiB (1.5 x %d MiB per slot x %d slots + %d MiB)",
			peak>>20, bound>>20, guestMemory>>20, guestSlots, tmOverhead>>20)
	}
}

// outputLines returns the sorted lines of every part file in dir.
func outputLines(t *testing.T, dir string) []string {
	t.Helper()
	parts, err := filepath.Glob(filepath.Join(dir, "part-*"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, p := range parts {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Fields(string(b))...)
	}
	slices.Sort(lines)
	return lines
}
