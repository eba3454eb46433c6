package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
)

const (
	// queryClients call the REST API's batchGet concurrently, each
	// queryBatch keys per call, together queryRate lookups a second (the
	// issue's target): a client that falls behind calls back to back.
	queryClients = 8
	queryBatch   = 64
	queryRate    = 20_000
	// queryFor is about how long a job without queries runs; queries run
	// for as long as the job with them does.
	queryFor = 5 * time.Second
	// queryState is the queryable value state of udfs/wordcount's count.
	queryState = "counts"
)

// benchQueryLatency runs the keyed count while queryClients clients look
// up random keys of its queryable state through the scheduler's REST API
// (POST .../state/counts:batchGet over loopback HTTP, with the Go client;
// the scheduler reaches the task manager over loopback gRPC), from RUNNING
// until the job ends. It reports the latency of a call, lookups/s, and the
// ingest rate against the same job without queries.
func benchQueryLatency(e *env) (Result, error) {
	records, err := e.calibrate("query-latency", queryFor)
	if err != nil {
		return Result{}, err
	}
	var with, without []float64
	var all queryStats
	for i := range e.cfg.Runs {
		sub, err := e.submission(countJob("query-latency", records), 0)
		if err != nil {
			return Result{}, err
		}
		_, rate, err := e.runInProcess(sub, 2, records, nil)
		if err != nil {
			return Result{}, fmt.Errorf("no queries, run %d: %w", i+1, err)
		}
		fmt.Fprintf(e.cfg.Log, "query-latency no queries   run %d: %s records/s\n", i+1, human(rate))
		without = append(without, rate)
		var qs queryStats
		_, rate, err = e.runInProcess(sub, 2, records, func(c *cluster, id string, stop <-chan struct{}) error {
			rest := client.New("http://"+c.Scheduler.RESTAddr(), nil)
			qs = query(rest, id, queryClients, stop, uint64(i))
			return nil
		})
		if err != nil {
			return Result{}, fmt.Errorf("queries, run %d: %w", i+1, err)
		}
		if qs.calls() == 0 {
			return Result{}, fmt.Errorf("queries, run %d: no call succeeded (%d errors, last: %v)", i+1, qs.errors, qs.lastErr)
		}
		fmt.Fprintf(e.cfg.Log, "query-latency %d clients run %d: %s records/s; %s\n", queryClients, i+1, human(rate), qs.line())
		with = append(with, rate)
		all.merge(&qs)
	}
	res := Result{Name: "query-latency", RecordsPerSec: median(with), NativeRecordsPerSec: median(without), Baseline: "no queries"}
	res.Ratio = res.RecordsPerSec / res.NativeRecordsPerSec
	slices.Sort(all.latencies)
	res.Extra = map[string]any{
		"runs_records_per_sec": with, "baseline_runs_records_per_sec": without,
		"via": "REST batchGet (scheduler/client)", "clients": queryClients, "keys_per_call": queryBatch, "paced_lookups_per_sec": queryRate,
		"calls": all.calls(), "p50_ms": msf(percentile(all.latencies, 50)), "p99_ms": msf(percentile(all.latencies, 99)),
		"max_ms": msf(percentile(all.latencies, 100)), "lookups_per_sec": all.lookupsPerSec(), "found_share": all.foundShare(),
		"errors": all.errors, "records": records, "keys": countKeys,
		"target_p99_ms": 5, "target_lookups_per_sec": 20_000, "target_ratio": 0.8,
	}
	res.Summary = fmt.Sprintf("%d clients x %d keys per REST batchGet call, paced at %s lookups/s: %s; ingest %s records/s with queries, %s without: %.0f%% (targets p99 < 5ms, >= 20K lookups/s, >= 80%%)",
		queryClients, queryBatch, human(queryRate), all.line(), human(res.RecordsPerSec), human(res.NativeRecordsPerSec), 100*res.Ratio)
	return res, nil
}

// queryStats is what query clients measured.
type queryStats struct {
	latencies   []time.Duration // one per successful call
	found, keys int
	errors      int
	lastErr     error
	elapsed     time.Duration // summed over runs
}

func (q *queryStats) calls() int { return len(q.latencies) }

func (q *queryStats) lookupsPerSec() float64 {
	return float64(q.keys) / q.elapsed.Seconds()
}

func (q *queryStats) foundShare() float64 { return float64(q.found) / float64(max(q.keys, 1)) }

func (q *queryStats) merge(o *queryStats) {
	q.latencies = append(q.latencies, o.latencies...)
	q.found += o.found
	q.keys += o.keys
	q.errors += o.errors
	q.elapsed += o.elapsed
	if o.lastErr != nil {
		q.lastErr = o.lastErr
	}
}

// line sums the stats up for people.
func (q *queryStats) line() string {
	s := slices.Clone(q.latencies)
	slices.Sort(s)
	return fmt.Sprintf("%d calls, p50 %.2fms, p99 %.2fms, max %.1fms, %s lookups/s, %.0f%% found, %d errors",
		len(s), msf(percentile(s, 50)), msf(percentile(s, 99)), msf(percentile(s, 100)), human(q.lookupsPerSec()), 100*q.foundShare(), q.errors)
}

// stateQuerier is the part of api.Service that query clients call.
type stateQuerier interface {
	QueryState(ctx context.Context, id, state string, keys [][]byte) ([]api.StateValue, error)
}

// query runs clients clients against job id until stop closes.
func query(svc stateQuerier, id string, clients int, stop <-chan struct{}, seed uint64) queryStats {
	var wg sync.WaitGroup
	stats := make([]queryStats, clients)
	start := time.Now()
	for i := range stats {
		wg.Go(func() { stats[i] = queryClient(svc, id, stop, rand.New(rand.NewPCG(seed, uint64(i)))) })
	}
	wg.Wait()
	var all queryStats
	for i := range stats {
		all.merge(&stats[i])
	}
	all.elapsed = time.Since(start)
	return all
}

// queryClient calls QueryState, at its share of queryRate, with queryBatch random keys of the
// generator's key space until stop closes. A call that fails with
// ErrUnavailable (the state is not declared yet, or moving) is counted as
// an error and retried after a millisecond.
func queryClient(svc stateQuerier, id string, stop <-chan struct{}, r *rand.Rand) queryStats {
	var s queryStats
	keys := make([][]byte, queryBatch)
	// Each client's share of queryRate, as a period between calls.
	period := time.Duration(float64(time.Second) * queryClients * queryBatch / queryRate)
	next := time.Now()
	for {
		select {
		case <-stop:
			return s
		default:
		}
		for j := range keys {
			keys[j] = fmt.Appendf(keys[j][:0], "key-%06d", r.IntN(countKeys))
		}
		if wait := time.Until(next); wait > 0 {
			select {
			case <-stop:
				return s
			case <-time.After(wait):
			}
		}
		next = next.Add(period)
		if now := time.Now(); next.Before(now) {
			next = now // behind: call back to back, without a burst after
		}
		start := time.Now()
		vals, err := svc.QueryState(context.Background(), id, queryState, keys)
		d := time.Since(start)
		if err != nil {
			s.errors++
			s.lastErr = err
			if errors.Is(err, api.ErrUnavailable) {
				time.Sleep(time.Millisecond)
			}
			continue
		}
		s.latencies = append(s.latencies, d)
		s.keys += len(keys)
		for _, v := range vals {
			if v.Found {
				s.found++
			}
		}
	}
}

// percentile returns the p-th percentile (0 < p <= 100) of sorted by the
// nearest-rank method: the smallest value that at least p% of the values
// are at most. It returns 0 for no values.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}
