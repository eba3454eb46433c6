package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/scheduler/api"
)

const (
	// kafkaMaxRecords caps the bids of the kafka row: kfake keeps every
	// record in memory, the input once and each run's output until it is
	// deleted.
	kafkaMaxRecords = 1_000_000
	// kafkaPartitions is the partition count of the input and output
	// topics.
	kafkaPartitions = 2
)

// benchKafka is Kafka -> Wasm map (Nexmark q1) -> Kafka against kfake, in
// process: a job on a mini-cluster at parallelism 1, its source reading
// the bids topic from the start and its sink (at-least-once, the job takes
// no checkpoints) writing a fresh topic, timed from RUNNING until the
// output topic holds every record. The baseline is a plain franz-go
// consume-transform-produce loop running udfs/q1's function natively over
// the same topic, timed until its last record is acknowledged.
//
// The map is compiled from two SDKs: Rust (the conformance module's q1),
// the row's figure, and Go (udfs/q1), whose guest code costs several times
// more (docs/sdk-go.md). Without a Rust toolchain the row falls back to
// Go. The same job without the map measures the connectors alone, to tell
// their cost from the guest's.
func benchKafka(e *env) (Result, error) {
	n := min(e.cfg.Records, kafkaMaxRecords)
	k, err := startBenchKafka(e.ctx, n)
	if err != nil {
		return Result{}, err
	}
	defer k.close()
	goQ1, err := e.wasm("q1")
	if err != nil {
		return Result{}, err
	}
	// The same map in Rust (the conformance module's q1), whose guest
	// code is several times cheaper than Go's.
	var rustQ1 []byte
	if name, err := e.sdkModule("rust"); err != nil {
		fmt.Fprintf(e.cfg.Log, "kafka: no Rust q1, its row is skipped: %v\n", err)
	} else if rustQ1, err = os.ReadFile(filepath.Join(e.dir, name+".wasm")); err != nil {
		return Result{}, err
	}
	var ws, ns, cs, rs []float64
	for i := range e.cfg.Runs {
		for j, side := range []struct {
			name string
			run  func(out string) (float64, error)
			into *[]float64
		}{
			{"wasm job", func(out string) (float64, error) { return k.runJob(e, out, n, q1Operators, goQ1) }, &ws},
			{"plain loop", func(out string) (float64, error) { return k.runLoop(e.ctx, out, n) }, &ns},
			{"no-op job", func(out string) (float64, error) { return k.runJob(e, out, n, "[]", goQ1) }, &cs},
			{"rust job", func(out string) (float64, error) { return k.runJob(e, out, n, q1Operators, rustQ1) }, &rs},
		} {
			if side.name == "rust job" && rustQ1 == nil {
				continue
			}
			out := fmt.Sprintf("out-%d-%d", i, j)
			if err := k.create(e.ctx, out); err != nil {
				return Result{}, err
			}
			rate, err := side.run(out)
			if err == nil {
				err = k.drop(e.ctx, out)
			}
			if err != nil {
				return Result{}, fmt.Errorf("%s, run %d: %w", side.name, i+1, err)
			}
			fmt.Fprintf(e.cfg.Log, "kafka %-10s run %d: %s records/s\n", side.name, i+1, human(rate))
			*side.into = append(*side.into, rate)
		}
	}
	loop, conn, goMap, rust := median(ns), median(cs), median(ws), median(rs)
	res := Result{Name: "kafka", RecordsPerSec: rust, NativeRecordsPerSec: loop, Baseline: "plain franz-go loop"}
	mapSDK := "Rust"
	if rustQ1 == nil {
		res.RecordsPerSec, mapSDK = goMap, "Go"
	}
	res.Ratio = res.RecordsPerSec / loop
	res.Extra = map[string]any{
		"map_sdk": mapSDK, "rust_q1_records_per_sec": rust, "rust_q1_ratio": rust / loop,
		"go_q1_records_per_sec": goMap, "go_q1_ratio": goMap / loop,
		"go_runs_records_per_sec": ws, "rust_runs_records_per_sec": rs, "baseline_runs_records_per_sec": ns,
		"no_operator_records_per_sec": conn, "no_operator_ratio": conn / loop,
		"records": n, "partitions": kafkaPartitions, "parallelism": 1, "sink": "at-least-once", "target_ratio": 0.7,
	}
	res.Summary = fmt.Sprintf("Kafka -> q1 (Wasm) -> Kafka on kfake against a plain franz-go consume-transform-produce loop with q1 in Go at %s records/s: the map from the Rust SDK %s records/s, %.0f%% (target >= 70%%); from the Go SDK %s records/s, %.0f%%; the same job without the map (the connectors alone) %s records/s, %.0f%%; %d records over %d partitions, parallelism 1, sink at-least-once",
		human(loop), human(rust), 100*rust/loop, human(goMap), 100*goMap/loop, human(conn), 100*conn/loop, n, kafkaPartitions)
	return res, nil
}

// benchKafkaCluster is an in-process kfake cluster holding topic "bids".
type benchKafkaCluster struct {
	c   *kfake.Cluster
	cl  *kgo.Client
	adm *kadm.Client
}

// startBenchKafka starts kfake and fills topic "bids" with n bids, spread
// evenly over its partitions.
func startBenchKafka(ctx context.Context, n int) (*benchKafkaCluster, error) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(kafkaPartitions, "bids"))
	if err != nil {
		return nil, err
	}
	k := &benchKafkaCluster{c: c}
	if k.cl, err = kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("bids"),
		kgo.RecordPartitioner(kgo.RoundRobinPartitioner())); err != nil {
		c.Close()
		return nil, err
	}
	k.adm = kadm.NewClient(k.cl)
	var failed error
	for _, b := range bids(n, 7) {
		for i := range b.Records {
			r := &b.Records[i]
			k.cl.Produce(ctx, &kgo.Record{Value: r.Value, Timestamp: time.UnixMilli(r.Timestamp)}, func(_ *kgo.Record, err error) {
				if err != nil {
					failed = err
				}
			})
		}
	}
	if err := errors.Join(k.cl.Flush(ctx), failed); err != nil {
		k.close()
		return nil, fmt.Errorf("producing the bids: %w", err)
	}
	return k, nil
}

func (k *benchKafkaCluster) close() {
	k.cl.Close()
	k.c.Close()
}

func (k *benchKafkaCluster) brokers() string { return k.c.ListenAddrs()[0] }

// create makes an output topic; drop deletes it, so kfake frees its records.
func (k *benchKafkaCluster) create(ctx context.Context, topic string) error {
	_, err := k.adm.CreateTopic(ctx, kafkaPartitions, 1, nil, topic)
	return err
}

func (k *benchKafkaCluster) drop(ctx context.Context, topic string) error {
	_, err := k.adm.DeleteTopic(ctx, topic)
	return err
}

// written returns how many records topic holds.
func (k *benchKafkaCluster) written(ctx context.Context, topic string) (int64, error) {
	ends, err := k.adm.ListEndOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	var n int64
	ends.Each(func(o kadm.ListedOffset) { n += o.Offset })
	return n, err
}

// q1Operators is the operators of the job: udfs/q1's map.
const q1Operators = "\n  - {type: map, uid: q1, module: q1, function: q1}"

// runJob runs the job, with operators (a YAML list), into topic out and
// returns its records/s.
func (k *benchKafkaCluster) runJob(e *env, out string, n int, operators string, wasm []byte) (float64, error) {
	spec := fmt.Sprintf(`name: kafka-bench
parallelism: 1
modules: {q1: q1.wasm}
source: {type: kafka, uid: bids, brokers: "%s", topics: bids}
operators: %s
sink: {type: kafka, uid: out, brokers: "%s", topic: %s, semantic: at-least-once}
`, k.brokers(), operators, k.brokers(), out)
	c, err := e.startCluster(1)
	if err != nil {
		return 0, err
	}
	defer c.close()
	id, err := c.Scheduler.Submit(e.ctx, api.Submission{Spec: []byte(spec), Modules: map[string][]byte{"q1": wasm}})
	if err != nil {
		return 0, err
	}
	st, err := awaitJob(e.ctx, c.Scheduler, id, func(st api.JobStatus) bool { return st.State == api.JobRunning })
	if err != nil {
		return 0, err
	}
	if st.State != api.JobRunning {
		return 0, fmt.Errorf("job %s %s: %s", id, st.State, st.Message)
	}
	var running time.Time
	for _, ev := range st.History {
		if ev.State == api.JobRunning {
			running = ev.Time
		}
	}
	end, err := k.await(e.ctx, out, int64(n), func() error {
		st, err := c.Scheduler.Job(e.ctx, id)
		if err == nil && api.Terminal(st.State) {
			err = fmt.Errorf("job %s %s: %s", id, st.State, st.Message)
		}
		return err
	})
	if err != nil {
		return 0, err
	}
	if err := c.Scheduler.Cancel(e.ctx, id); err != nil {
		return 0, err
	}
	return float64(n) / end.Sub(running).Seconds(), nil
}

// await polls topic until it holds n records, checking alive in between,
// and returns when it saw them.
func (k *benchKafkaCluster) await(ctx context.Context, topic string, n int64, alive func() error) (time.Time, error) {
	deadline := time.Now().Add(3 * time.Minute)
	for i := 0; ; i++ {
		got, err := k.written(ctx, topic)
		now := time.Now()
		switch {
		case err != nil:
			return now, err
		case got >= n:
			return now, nil
		case now.After(deadline):
			return now, fmt.Errorf("%s holds %d records of %d after 3 minutes", topic, got, n)
		}
		if i%50 == 0 {
			if err := alive(); err != nil {
				return now, err
			}
		}
		time.Sleep(jobPoll)
	}
}

// runLoop is the baseline: one franz-go consumer of every partition of
// "bids" from the start and one producer into out, with q1 in Go between
// them, until n records are acknowledged.
func (k *benchKafkaCluster) runLoop(ctx context.Context, out string, n int) (float64, error) {
	start := time.Now()
	parts := map[int32]kgo.Offset{}
	for p := range int32(kafkaPartitions) {
		parts[p] = kgo.NewOffset().AtStart()
	}
	in, err := kgo.NewClient(kgo.SeedBrokers(k.brokers()), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{"bids": parts}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		return 0, err
	}
	defer in.Close()
	prod, err := kgo.NewClient(kgo.SeedBrokers(k.brokers()), kgo.DefaultProduceTopic(out))
	if err != nil {
		return 0, err
	}
	defer prod.Close()
	var q q1Native
	var failed error
	promise := func(_ *kgo.Record, err error) {
		if err != nil {
			failed = err
		}
	}
	var inb, outb record.Batch
	for read := 0; read < n; {
		fs := in.PollRecords(ctx, batchSize)
		if err := fs.Err0(); err != nil {
			return 0, err
		}
		inb.Reset()
		fs.EachRecord(func(r *kgo.Record) { inb.Append(nil, r.Value, r.Timestamp.UnixMilli()) })
		read += inb.Len()
		outb.Reset()
		if err := q.Process(ctx, &inb, &outb); err != nil {
			return 0, err
		}
		for i := range outb.Records {
			r := &outb.Records[i]
			prod.Produce(ctx, &kgo.Record{Value: append([]byte(nil), r.Value...), Timestamp: time.UnixMilli(r.Timestamp)}, promise)
		}
	}
	if err := errors.Join(prod.Flush(ctx), failed); err != nil {
		return 0, err
	}
	return float64(n) / time.Since(start).Seconds(), nil
}
