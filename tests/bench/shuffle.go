package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
)

const (
	// shuffleRecordSize is the size of a shuffled record in bytes.
	shuffleRecordSize = 100
	// shuffleKeys is the number of distinct keys the records spread over.
	shuffleKeys = 100_000
	// shuffleWarmup is the number of records of the untimed first run, which
	// also tells how many records make a timed run last shuffleRun across
	// processes and at least shuffleMinRun in one.
	shuffleWarmup = 2_000_000
	shuffleRun    = 4 * time.Second
	shuffleMinRun = 3 * time.Second
)

// benchShuffle measures a keyBy exchange between two task manager
// processes: generator -> keyBy(csv:0) -> stdout sink (to /dev/null) at
// parallelism 2, on `floe scheduler` and two `floe taskmanager` processes
// of one slot each. Each process runs one source and one sink subtask, so
// about half of the records cross from one process to the other over gRPC.
// The baseline is the same job on one task manager process with two slots,
// where the exchange stays in memory. Both clusters are processes of the
// same binary, the jobs are submitted over REST, and a run's rate is its
// records over the job's RUNNING to FINISHED span in its history.
func benchShuffle(e *env) (Result, error) {
	bin, err := e.floeBinary()
	if err != nil {
		return Result{}, err
	}
	two, err := e.startProcs(bin, 2, 1)
	if err != nil {
		return Result{}, err
	}
	defer two.close()
	one, err := e.startProcs(bin, 1, 2)
	if err != nil {
		return Result{}, err
	}
	defer one.close()
	twoRate, _, err := two.shuffle(e.ctx, shuffleWarmup, true)
	if err != nil {
		return Result{}, fmt.Errorf("warm-up: %w", err)
	}
	oneRate, _, err := one.shuffle(e.ctx, shuffleWarmup, false)
	if err != nil {
		return Result{}, fmt.Errorf("warm-up in one process: %w", err)
	}
	records := int64(max(shuffleWarmup, twoRate*shuffleRun.Seconds(), oneRate*shuffleMinRun.Seconds()))
	var twos, ones, totals []float64
	for i := range e.cfg.Runs {
		for _, side := range []struct {
			name  string
			c     *procs
			split bool
			into  *[]float64
		}{{"two processes", two, true, &twos}, {"one process", one, false, &ones}} {
			r, total, err := side.c.shuffle(e.ctx, records, side.split)
			if err != nil {
				return Result{}, fmt.Errorf("%s, run %d: %w", side.name, i+1, err)
			}
			fmt.Fprintf(e.cfg.Log, "shuffle-keyby %-13s run %d: %s records/s (%d records, RUNNING->FINISHED %.2fs, submit->FINISHED %.2fs)\n",
				side.name, i+1, human(r), records, float64(records)/r, total.Seconds())
			*side.into = append(*side.into, r)
			if side.split {
				totals = append(totals, total.Seconds())
			}
		}
	}
	res := Result{Name: "shuffle-keyby", RecordsPerSec: median(twos), NativeRecordsPerSec: median(ones), Baseline: "one process"}
	res.Ratio = res.RecordsPerSec / res.NativeRecordsPerSec
	res.Extra = map[string]any{
		"runs_records_per_sec": twos, "baseline_runs_records_per_sec": ones,
		"records": records, "record_bytes": shuffleRecordSize, "keys": shuffleKeys, "parallelism": 2,
		"timing":                       "job history RUNNING -> FINISHED",
		"two_process_submit_to_end_s":  median(totals),
		"two_process_mib_per_sec":      res.RecordsPerSec * shuffleRecordSize / (1 << 20),
		"target_records_per_sec":       1e6,
		"target_ratio":                 0.5,
		"cross_process_share_expected": 0.5,
	}
	res.Summary = fmt.Sprintf("%s records/s of %d-byte records through a keyBy between 2 task manager processes (%.0f MiB/s), %s records/s in one process: %.0f%% (targets >= 1M/s, >= 50%%); %d records per run, RUNNING->FINISHED by the job's history",
		human(res.RecordsPerSec), shuffleRecordSize, res.Extra["two_process_mib_per_sec"], human(res.NativeRecordsPerSec), 100*res.Ratio, records)
	return res, nil
}

// procs is a process cluster in a directory of its own, which close
// removes.
type procs struct{ *procCluster }

func (e *env) startProcs(bin string, tms, slots int) (*procs, error) {
	dir, err := os.MkdirTemp(e.dir, fmt.Sprintf("procs-%dx%d-", tms, slots))
	if err != nil {
		return nil, err
	}
	c, err := startProcCluster(e.ctx, bin, dir, tms, slots)
	if err != nil {
		return nil, fmt.Errorf("%w (logs in %s)", err, dir)
	}
	return &procs{c}, nil
}

func (p *procs) close() error { return errors.Join(p.stop(), os.RemoveAll(p.dir)) }

// shuffle runs the job over records records and returns its records/s
// over the RUNNING span and its time from submission to end. With split,
// it checks that each stage runs on two task managers.
func (p *procs) shuffle(ctx context.Context, records int64, split bool) (float64, time.Duration, error) {
	job := genJob{name: "shuffle-keyby", records: records, keys: shuffleKeys, size: shuffleRecordSize, parallelism: 2}
	start := time.Now()
	id, err := p.submit(ctx, job.spec(), job.parallelism)
	if err != nil {
		return 0, 0, err
	}
	st, err := finished(ctx, p, id, records)
	total := time.Since(start)
	if err != nil {
		return 0, 0, err
	}
	if split {
		if err := spansTaskManagers(st, 2); err != nil {
			return 0, 0, err
		}
	}
	d, err := runningSpan(st)
	if err != nil {
		return 0, 0, err
	}
	return float64(records) / d.Seconds(), total, nil
}

// spansTaskManagers fails unless every stage of the job ran on n task
// managers.
func spansTaskManagers(st api.JobStatus, n int) error {
	for _, v := range st.Vertices {
		tms := map[string]bool{}
		for _, s := range v.Subtasks {
			tms[s.TaskManager] = true
		}
		if len(tms) != n {
			return fmt.Errorf("stage %q ran on %d task managers, want %d", v.Name, len(tms), n)
		}
	}
	return nil
}
