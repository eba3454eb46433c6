package cluster

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/task"
	"github.com/floe-stream/floe/scheduler/api"
)

// throttled is an unbounded generator whose records cross the exchange,
// keyed by value, to a deliberately slow map (about 1 ms a record) and on to
// a file sink.
const throttled = `
name: throttled
parallelism: 2
modules:
  testops: testops.wasm
source: {type: generator, uid: gen, count: 0}
operators:
  - {type: keyBy, uid: by-value, key: value}
  - {type: map, uid: slow, module: testops, function: slow}
sink: {type: file, uid: out, path: "${output}"}
`

// inboxBatches is the credit of each channel of the exchange, in batches:
// the default of taskmanager.Config.InboxBatches, which floe taskmanager
// does not change.
const inboxBatches = 4

// Bounds of the back-pressure test.
const (
	// rssLimit is a generous bound on any process's resident memory.
	rssLimit = 400 << 20
	// rssSlack is how far memory may rise after the warm-up, at least.
	rssSlack = 64 << 20
	// samplePeriod and samples: how often and how many times the test
	// samples memory and counters, after warmUp samples.
	samplePeriod = 500 * time.Millisecond
	samples      = 14
	warmUp       = 4
)

// sample is what the test sees at one moment.
type sample struct {
	rss map[string]int64 // by process name
	// emitted is what the source stage sent towards the exchange, received
	// what the slow stage took out of it.
	emitted, received, written int64
	backPressure               float64
}

func TestSlowOperatorThrottlesAnUnboundedSource(t *testing.T) {
	c := newCluster(t, clusterConfig{taskManagers: 2, slots: 2})
	out := filepath.Join(t.TempDir(), "out")
	id := c.submit(writeSpec(t, "throttled", throttled), "--set", "output="+out)
	job := c.waitJob(id, time.Minute, "running with records through the slow map", func(j api.JobStatus) bool {
		return j.State == api.JobRunning && len(j.Vertices) == 2 && j.Vertices[1].RecordsIn > 0
	})
	src, slow := job.Vertices[0], job.Vertices[1]
	if !strings.Contains(slow.Name, "slow") || src.Parallelism != 2 || slow.Parallelism != 2 {
		t.Fatalf("vertices %q (%d) and %q (%d), want the generator and the slow map at parallelism 2",
			src.Name, src.Parallelism, slow.Name, slow.Parallelism)
	}
	if tms := distinctTaskManagers(job); len(tms) != 2 {
		t.Fatalf("the job runs on task managers %v, want both, so that records cross between them", tms)
	}

	ss := c.sampleRun(id, samples)
	checkMemory(t, ss)
	// Between the source's output and the slow map's input, the exchange
	// holds at most its credits: inboxBatches batches on each channel, one
	// channel from every source subtask to every slow subtask. Each source
	// subtask also holds back a pending batch per target in its router, and
	// every task one batch in flight (a source batch half routed, the batch
	// a sender waits to send); that slack also covers the counters of the
	// two stages being sampled a heartbeat apart. Without back-pressure the
	// generator would be millions of records ahead.
	batch := int64(task.DefaultBatchSize)
	channels := int64(src.Parallelism * slow.Parallelism)
	bound := channels*inboxBatches*batch + channels*batch + int64(src.Parallelism+slow.Parallelism)*batch
	maxBP := 0.0
	for i, s := range ss {
		if gap := s.emitted - s.received; gap > bound {
			t.Errorf("sample %d: the source emitted %d records, the slow map received %d: %d buffered, more than the exchange's bound %d",
				i, s.emitted, s.received, gap, bound)
		}
		maxBP = max(maxBP, s.backPressure)
	}
	first, last := ss[0], ss[len(ss)-1]
	t.Logf("over %s: source %d -> %d records, slow map %d -> %d (bound on the gap %d), back-pressure up to %.0f%%",
		samplePeriod*samples, first.emitted, last.emitted, first.received, last.received, bound, maxBP*100)
	if last.written <= first.written {
		t.Errorf("the slow map wrote %d records, then %d: no progress", first.written, last.written)
	}
	if maxBP == 0 {
		t.Errorf("the source stage never reported back-pressure")
	}

	r := c.floe(time.Minute, "job", "cancel", id)
	if r.code != 0 || r.stdout != "CANCELED\n" {
		t.Fatalf("floe job cancel: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	r = c.floe(time.Minute, "job", "wait", id, "--timeout", "1m")
	if r.code != 1 || r.stdout != "CANCELED\n" || !strings.Contains(r.stderr, "canceled by user") {
		t.Errorf("floe job wait after cancel: exit %d, stdout %q, stderr %q; want 1, CANCELED and the reason", r.code, r.stdout, r.stderr)
	}
	job = c.job(id)
	if job.State != api.JobCanceled || job.EndedAt == nil {
		t.Errorf("job %s, ended at %v, want CANCELED with an end time", job.State, job.EndedAt)
	}
	for _, v := range job.Vertices {
		for _, s := range v.Subtasks {
			if s.State != api.TaskCanceled {
				t.Errorf("vertex %q subtask %d: %s, want CANCELED", v.Name, s.Subtask, s.State)
			}
		}
	}
	c.checkSlotsFree()
}

// distinctTaskManagers returns the task managers a job's subtasks run on.
func distinctTaskManagers(job api.JobStatus) []string {
	var tms []string
	for _, v := range job.Vertices {
		for _, s := range v.Subtasks {
			if !slices.Contains(tms, s.TaskManager) {
				tms = append(tms, s.TaskManager)
			}
		}
	}
	slices.Sort(tms)
	return tms
}

// sampleRun samples every process's memory and the job's counters n times,
// samplePeriod apart. The job must keep running.
func (c *cluster) sampleRun(id string, n int) []sample {
	c.t.Helper()
	var ss []sample
	for i := 0; i < n; i++ {
		time.Sleep(samplePeriod)
		s := sample{rss: map[string]int64{}}
		for _, p := range append([]*proc{c.sched}, c.taskManagerProcs()...) {
			rss, err := p.rss()
			if err != nil {
				c.t.Fatalf("%s: %v", p.name, err)
			}
			s.rss[p.name] = rss
		}
		job := c.job(id)
		if job.State != api.JobRunning {
			c.t.Fatalf("job %s while sampling: %s", job.State, job.Message)
		}
		src, slow := job.Vertices[0], job.Vertices[1]
		s.emitted, s.received, s.written, s.backPressure = src.RecordsOut, slow.RecordsIn, slow.RecordsOut, src.BackPressure
		ss = append(ss, s)
	}
	return ss
}

// checkMemory checks that every process stayed under rssLimit and that its
// memory, after warm-up, levelled off: the last samples are not much above
// the first ones after the warm-up.
func checkMemory(t *testing.T, ss []sample) {
	t.Helper()
	for name := range ss[0].rss {
		var series []int64
		for i, s := range ss {
			series = append(series, s.rss[name])
			if s.rss[name] > rssLimit {
				t.Errorf("%s: %d MiB resident at sample %d, more than %d MiB", name, s.rss[name]>>20, i, rssLimit>>20)
			}
		}
		settled := slices.Max(series[warmUp : warmUp+3])
		end := slices.Min(series[len(series)-3:])
		if end > settled+max(rssSlack, settled/2) {
			t.Errorf("%s: resident memory kept growing after warm-up: %d MiB, then %d MiB", name, settled>>20, end>>20)
		}
		t.Logf("%s: resident MiB %v", name, mib(series))
	}
}

func mib(bs []int64) []int64 {
	out := make([]int64, len(bs))
	for i, b := range bs {
		out[i] = b >> 20
	}
	return out
}

// checkSlotsFree checks that every task manager has all its slots free
// again.
func (c *cluster) checkSlotsFree() {
	c.t.Helper()
	tms, err := c.client.TaskManagers(context.Background())
	if err != nil {
		c.t.Fatal(err)
	}
	for _, tm := range tms {
		if tm.FreeSlots != tm.Slots {
			c.t.Errorf("%s: %d of %d slots free, want all", tm.ID, tm.FreeSlots, tm.Slots)
		}
	}
}
