package main

import (
	"fmt"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
)

const (
	// countKeys is the number of distinct keys of the keyed count jobs.
	countKeys = 100_000
	// countRecordSize is the size of their records in bytes.
	countRecordSize = 100
	// countWarmup is the number of records of the untimed first run, which
	// also tells how many records make a timed run last countRun.
	countWarmup = 1_000_000
	countRun    = 6 * time.Second
	// checkpointEvery is the checkpoint interval of checkpointed runs.
	checkpointEvery = time.Second
)

// countJob is the keyed count over generated records: generator ->
// keyBy(csv:0) -> udfs/wordcount's count, in pebble value state ->
// stdout sink (discarded), at parallelism 2 on one task manager with two
// slots.
func countJob(name string, records int64) genJob {
	return genJob{name: name, records: records, keys: countKeys, size: countRecordSize, parallelism: 2, count: true}
}

// calibrate runs the count job once, untimed, and returns how many
// records make a run last d.
func (e *env) calibrate(name string, d time.Duration) (int64, error) {
	sub, err := e.submission(countJob(name, countWarmup), 0)
	if err != nil {
		return 0, err
	}
	_, rate, err := e.runInProcess(sub, 2, countWarmup, nil)
	if err != nil {
		return 0, fmt.Errorf("warm-up: %w", err)
	}
	return max(countWarmup, int64(rate*d.Seconds())), nil
}

// benchCheckpointedThroughput runs the keyed count with a checkpoint every
// second and without, over the same records, on fresh in-process
// mini-clusters with file:// checkpoint storage (the scheduler's default,
// under its data directory). Rates are records over the RUNNING span.
func benchCheckpointedThroughput(e *env) (Result, error) {
	records, err := e.calibrate("checkpointed-throughput", countRun)
	if err != nil {
		return Result{}, err
	}
	var with, without []float64
	var cps []api.CheckpointStatus
	for i := range e.cfg.Runs {
		for _, side := range []struct {
			name     string
			interval time.Duration
			into     *[]float64
		}{{"checkpoints 1s", checkpointEvery, &with}, {"no checkpoints", 0, &without}} {
			sub, err := e.submission(countJob("checkpointed-throughput", records), side.interval)
			if err != nil {
				return Result{}, err
			}
			var got []api.CheckpointStatus
			st, rate, err := e.runInProcess(sub, 2, records, func(c *cluster, id string, stop <-chan struct{}) error {
				<-stop
				cps, err := c.Scheduler.Checkpoints(e.ctx, id)
				got = cps
				return err
			})
			if err != nil {
				return Result{}, fmt.Errorf("%s, run %d: %w", side.name, i+1, err)
			}
			n, _ := completed(got)
			fmt.Fprintf(e.cfg.Log, "checkpointed-throughput %-14s run %d: %s records/s (%d records in %.2fs, %d checkpoints completed)\n",
				side.name, i+1, human(rate), records, float64(records)/rate, n)
			if side.interval > 0 && n == 0 {
				return Result{}, fmt.Errorf("run %d: no checkpoint completed (job %s)", i+1, st.ID)
			}
			*side.into = append(*side.into, rate)
			cps = append(cps, got...)
		}
	}
	res := Result{Name: "checkpointed-throughput", RecordsPerSec: median(with), NativeRecordsPerSec: median(without), Baseline: "no checkpoints"}
	res.Ratio = res.RecordsPerSec / res.NativeRecordsPerSec
	n, c := completed(cps)
	res.Extra = map[string]any{
		"runs_records_per_sec": with, "baseline_runs_records_per_sec": without,
		"records": records, "keys": countKeys, "record_bytes": countRecordSize, "parallelism": 2,
		"interval_ms": checkpointEvery.Milliseconds(), "storage": "file", "state": "pebble",
		"checkpoints_completed": n, "checkpoints_failed": c.failed,
		"checkpoint_mean_ms": c.meanMillis, "checkpoint_max_ms": c.maxMillis,
		"checkpoint_mean_incremental_bytes": c.meanIncremental, "checkpoint_max_full_bytes": c.maxFull,
		"checkpoint_mean_sync_ms": c.meanSyncMillis, "checkpoint_max_sync_ms": c.maxSyncMillis, "checkpoint_max_alignment_ms": c.maxAlignMillis,
		"target_ratio": 0.9,
	}
	res.Summary = fmt.Sprintf("keyed count (pebble, %d keys) at %s records/s with a checkpoint every %s, %s records/s without: %.0f%% (target >= 90%%); %d records per run; %d checkpoints completed (%d failed), mean %.0fms, max %dms, mean upload %s, processing paused %.0fms per checkpoint (max %dms) to take the snapshot",
		countKeys, human(res.RecordsPerSec), checkpointEvery, human(res.NativeRecordsPerSec), 100*res.Ratio, records, n, c.failed, c.meanMillis, c.maxMillis, mib(int64(c.meanIncremental)), c.meanSyncMillis, c.maxSyncMillis)
	return res, nil
}

// ckptStats sums up checkpoints.
type ckptStats struct {
	failed          int
	meanMillis      float64
	maxMillis       int64
	meanIncremental float64
	maxFull         int64
	// maxSyncMillis is the longest a subtask paused processing to take
	// its snapshot; maxAlignMillis the longest it waited for barriers.
	maxSyncMillis, maxAlignMillis int64
	// meanSyncMillis is the mean, over checkpoints, of the longest pause.
	meanSyncMillis float64
}

// completed counts the completed checkpoints and sums them up.
func completed(cps []api.CheckpointStatus) (int, ckptStats) {
	var s ckptStats
	n := 0
	for _, cp := range cps {
		switch cp.Status {
		case api.CheckpointFailed:
			s.failed++
		case api.CheckpointCompleted:
			n++
			s.meanMillis += float64(cp.DurationMillis)
			s.meanIncremental += float64(cp.IncrementalBytes)
			s.maxMillis = max(s.maxMillis, cp.DurationMillis)
			s.maxFull = max(s.maxFull, cp.FullBytes)
			var sync int64
			for _, sub := range cp.Subtasks {
				sync = max(sync, sub.SyncMillis)
				s.maxAlignMillis = max(s.maxAlignMillis, sub.AlignmentMillis)
			}
			s.maxSyncMillis = max(s.maxSyncMillis, sync)
			s.meanSyncMillis += float64(sync)
		}
	}
	if n > 0 {
		s.meanMillis /= float64(n)
		s.meanIncremental /= float64(n)
		s.meanSyncMillis /= float64(n)
	}
	return n, s
}
