package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/floe-stream/floe/internal/wasmbuild"
	"github.com/floe-stream/floe/minicluster"
	"github.com/floe-stream/floe/scheduler/api"
)

// genJob is a job over generated records: a random generator of values
// "key-000123,<padding>" (host/connector/generator), a keyBy on the
// first CSV field, optionally wordcount's keyed count (queryable value state
// "counts"), and a stdout sink whose output the benchmarks discard.
type genJob struct {
	name        string
	records     int64
	keys        int
	size        int
	parallelism int
	// count chains udfs/wordcount's count function after the keyBy.
	count bool
}

// spec returns the job's YAML spec.
func (j genJob) spec() []byte {
	s := fmt.Sprintf("name: %s\nparallelism: %d\nmaxParallelism: 128\n", j.name, j.parallelism)
	if j.count {
		s += "modules: {wordcount: wordcount.wasm}\n"
	}
	s += fmt.Sprintf("source: {type: generator, uid: gen, kind: random, count: %d, keys: %d, size: %d}\n", j.records, j.keys, j.size)
	s += "operators:\n  - {type: keyBy, uid: by-key, key: \"csv:0\"}\n"
	if j.count {
		s += "  - {type: process, uid: count, module: wordcount, function: count}\n"
	}
	return []byte(s + "sink: {type: stdout, uid: out}\n")
}

// submission returns the job as an in-process submission, with its
// module built from udfs/wordcount when it counts.
func (e *env) submission(j genJob, interval time.Duration) (api.Submission, error) {
	sub := api.Submission{Spec: j.spec(), Parallelism: j.parallelism, CheckpointInterval: interval}
	if j.count {
		wasm, err := e.wasm("wordcount")
		if err != nil {
			return api.Submission{}, err
		}
		sub.Modules = map[string][]byte{"wordcount": wasm}
	}
	return sub, nil
}

// wasm returns the bytes of module udfs/<name>, built from source.
func (e *env) wasm(name string) ([]byte, error) {
	path, err := wasmbuild.Go(filepath.Join(e.root, "udfs", name), e.dir)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}

// cluster is an in-process mini-cluster in a directory of its own, which
// close removes.
type cluster struct {
	*minicluster.Cluster
	dir string
}

// startCluster starts a mini-cluster of one task manager with slots slots,
// sharing the env's engine, its stdout sinks discarding what they get.
// NB: the REST API listens too, for the benchmarks that go through it.
func (e *env) startCluster(slots int) (*cluster, error) { return e.startClusterWith(slots, false) }

func (c *cluster) close() error { return errors.Join(c.Close(), os.RemoveAll(c.dir)) }

// jobGetter is the part of api.Service that follows a job; the in-process
// scheduler and the REST client of the process benchmarks have it.
type jobGetter interface {
	Job(ctx context.Context, id string) (api.JobStatus, error)
}

// jobPoll is how often a job's status is polled.
const jobPoll = 10 * time.Millisecond

// awaitJob polls job id until done says so or it ends, and returns its
// last status.
func awaitJob(ctx context.Context, svc jobGetter, id string, done func(api.JobStatus) bool) (api.JobStatus, error) {
	deadline := time.Now().Add(3 * time.Minute)
	for {
		st, err := svc.Job(ctx, id)
		if err != nil {
			return st, err
		}
		if done(st) || api.Terminal(st.State) {
			return st, nil
		}
		if time.Now().After(deadline) {
			return st, fmt.Errorf("job %s still %s after 3 minutes", id, st.State)
		}
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case <-time.After(jobPoll):
		}
	}
}

// finished waits for job id to end and fails unless it finished having
// delivered want records to its last stage.
func finished(ctx context.Context, svc jobGetter, id string, want int64) (api.JobStatus, error) {
	st, err := awaitJob(ctx, svc, id, func(api.JobStatus) bool { return false })
	if err != nil {
		return st, err
	}
	if st.State != api.JobFinished {
		return st, fmt.Errorf("job %s %s: %s", id, st.State, st.Message)
	}
	if got := st.Vertices[len(st.Vertices)-1].RecordsIn; got != want {
		return st, fmt.Errorf("job %s: its last stage read %d records, want %d", id, got, want)
	}
	return st, nil
}

// runningSpan is how long a finished job was RUNNING: from its last
// RUNNING event to its FINISHED event, by the scheduler's clock.
func runningSpan(st api.JobStatus) (time.Duration, error) {
	var running, end time.Time
	for _, ev := range st.History {
		switch ev.State {
		case api.JobRunning:
			running = ev.Time
		case api.JobFinished:
			end = ev.Time
		}
	}
	if running.IsZero() || end.IsZero() || end.Before(running) {
		return 0, fmt.Errorf("job %s: no RUNNING then FINISHED in its history (state %s)", st.ID, st.State)
	}
	return end.Sub(running), nil
}

// runInProcess runs sub on a fresh mini-cluster of one task manager with
// slots slots, and returns the finished job's status and records/s over
// its RUNNING span. while, if set, runs once the job is RUNNING, until
// the job is no longer; its error fails the run.
func (e *env) runInProcess(sub api.Submission, slots int, records int64, while func(c *cluster, id string, stop <-chan struct{}) error) (api.JobStatus, float64, error) {
	c, err := e.startCluster(slots)
	if err != nil {
		return api.JobStatus{}, 0, err
	}
	st, rate, err := runOn(e.ctx, c, sub, records, while)
	return st, rate, errors.Join(err, c.close())
}

func runOn(ctx context.Context, c *cluster, sub api.Submission, records int64, while func(c *cluster, id string, stop <-chan struct{}) error) (api.JobStatus, float64, error) {
	id, err := c.Scheduler.Submit(ctx, sub)
	if err != nil {
		return api.JobStatus{}, 0, err
	}
	var whileErr error
	if while != nil {
		st, err := awaitJob(ctx, c.Scheduler, id, func(st api.JobStatus) bool { return st.State == api.JobRunning })
		if err != nil {
			return st, 0, err
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() { whileErr = while(c, id, stop) })
		_, err = awaitJob(ctx, c.Scheduler, id, func(st api.JobStatus) bool { return st.State != api.JobRunning })
		close(stop)
		wg.Wait()
		if err != nil {
			return api.JobStatus{}, 0, errors.Join(err, whileErr)
		}
	}
	st, err := finished(ctx, c.Scheduler, id, records)
	if err != nil {
		return st, 0, errors.Join(err, whileErr)
	}
	d, err := runningSpan(st)
	if err != nil {
		return st, 0, err
	}
	return st, float64(records) / d.Seconds(), whileErr
}
