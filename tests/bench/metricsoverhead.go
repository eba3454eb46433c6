package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/floe-stream/floe/host/connector/stdout"
	"github.com/floe-stream/floe/minicluster"
)

// scrapeEvery is how often the metrics-overhead row scrapes while the job
// runs: a fifteenth of Prometheus's default interval, to make the cost
// visible if there is one.
const scrapeEvery = time.Second

// benchMetricsOverhead runs the keyed count of checkpointed-throughput,
// without checkpoints, on fresh in-process mini-clusters with metrics on
// and off, alternating, over the same records. On: the task managers'
// metrics are served (minicluster.Config.MetricsAddr) and both their
// /metrics and the scheduler's are scraped every scrapeEvery while the job
// runs. Off: nothing is served or scraped. Tasks keep their per-batch
// counters either way: the heartbeats that give the job's status read them.
func benchMetricsOverhead(e *env) (Result, error) {
	records, err := e.calibrate("metrics-overhead", countRun)
	if err != nil {
		return Result{}, err
	}
	sub, err := e.submission(countJob("metrics-overhead", records), 0)
	if err != nil {
		return Result{}, err
	}
	var on, off []float64
	scrapes := 0
	for i := range e.cfg.Runs {
		for _, side := range []struct {
			name    string
			metrics bool
			into    *[]float64
		}{{"metrics on", true, &on}, {"metrics off", false, &off}} {
			c, err := e.startClusterWith(2, side.metrics)
			if err != nil {
				return Result{}, err
			}
			var while func(c *cluster, id string, stop <-chan struct{}) error
			n := 0
			if side.metrics {
				while = func(c *cluster, _ string, stop <-chan struct{}) error {
					var err error
					n, err = scrapeUntil(stop, "http://"+c.MetricsAddr()+"/metrics", "http://"+c.Scheduler.RESTAddr()+"/metrics")
					return err
				}
			}
			_, rate, err := runOn(e.ctx, c, sub, records, while)
			err = errors.Join(err, c.close())
			if err != nil {
				return Result{}, fmt.Errorf("%s, run %d: %w", side.name, i+1, err)
			}
			scrapes += n
			fmt.Fprintf(e.cfg.Log, "metrics-overhead %-11s run %d: %s records/s (%d records in %.2fs, %d scrapes)\n",
				side.name, i+1, human(rate), records, float64(records)/rate, n)
			*side.into = append(*side.into, rate)
		}
	}
	res := Result{Name: "metrics-overhead", RecordsPerSec: median(on), NativeRecordsPerSec: median(off), Baseline: "metrics off"}
	res.Ratio = res.RecordsPerSec / res.NativeRecordsPerSec
	res.Extra = map[string]any{
		"runs_records_per_sec": on, "baseline_runs_records_per_sec": off,
		"records": records, "keys": countKeys, "record_bytes": countRecordSize, "parallelism": 2,
		"scrape_interval_ms": scrapeEvery.Milliseconds(), "scrapes": scrapes, "target_ratio": 0.98,
	}
	res.Summary = fmt.Sprintf("keyed count (pebble, %d keys) at %s records/s with the task managers' and scheduler's /metrics served and scraped every %s, %s records/s with neither: %.1f%% (target >= 98%%); %d records per run, %d scrapes in all",
		countKeys, human(res.RecordsPerSec), scrapeEvery, human(res.NativeRecordsPerSec), 100*res.Ratio, records, scrapes)
	return res, nil
}

// scrapeUntil GETs every url each scrapeEvery until stop is closed, reads
// each answer whole and returns how many scrapes it made.
func scrapeUntil(stop <-chan struct{}, urls ...string) (int, error) {
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	tick := time.NewTicker(scrapeEvery)
	defer tick.Stop()
	n := 0
	for {
		select {
		case <-stop:
			return n, nil
		case <-tick.C:
		}
		for _, u := range urls {
			if err := scrape(client, u); err != nil {
				return n, err
			}
			n++
		}
	}
}

func scrape(client *http.Client, url string) error {
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

// startClusterWith is startCluster, serving the task managers' metrics on
// a free port when metrics is set.
func (e *env) startClusterWith(slots int, metrics bool) (*cluster, error) {
	dir, err := os.MkdirTemp(e.dir, "cluster-")
	if err != nil {
		return nil, err
	}
	cfg := minicluster.Config{DataDir: dir, TaskManagers: 1, Slots: slots,
		Engine: e.engine, Stdout: stdout.NewWriter(io.Discard), RESTAddr: "127.0.0.1:0", Runtime: e.cfg.Runtime}
	if metrics {
		cfg.MetricsAddr = "127.0.0.1:0"
	}
	c, err := minicluster.Start(e.ctx, cfg)
	if err != nil {
		return nil, errors.Join(err, os.RemoveAll(dir))
	}
	return &cluster{Cluster: c, dir: dir}, nil
}
