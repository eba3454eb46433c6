// Package metrics exports what a task manager knows about its tasks as
// Prometheus metrics, and serves them over HTTP for a scraper.
//
// The hot path pays nothing for it. A task keeps plain atomic counters
// (task.Metrics, udf.CallStats), updated once per batch, wait, watermark or
// checkpoint and never per record; the same counters feed the heartbeats
// to the scheduler. An Exporter holds the tasks a task manager runs and is
// a prometheus.Collector: only when Prometheus scrapes does it read every
// task's counters and turn them into const metrics with their labels. So
// there is no label lookup on the task's side and no per-task registration
// with client_golang: a task is added with AddTask when it starts and
// forgotten, after a retention, once it ends.
//
// Time is exported as counters of seconds, not as Flink's "ms per second"
// gauges: rate(floe_task_busy_seconds_total[1m]) * 1000 is Flink's
// busyTimeMsPerSecond, over whatever window the reader picks, and no
// sample is lost between scrapes.
//
// Labels are bounded: job (the id), job_name, vertex (the stage's name),
// subtask, operator (the uid in the job spec) and, for state lookups, an
// outcome from a fixed set. Never a key or a value.
//
// docs/metrics.md lists every metric. Only this package and the floe
// command import client_golang (internal/layers enforces it), so the task
// runtime builds without it.
package metrics
