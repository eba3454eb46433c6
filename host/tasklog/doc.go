// Package tasklog keeps the recent log lines of the guests of the subtasks
// a task manager runs, so that a user can read them through the scheduler
// (GET /v1/jobs/{id}/logs) without access to the task manager's output.
//
// A Store holds one Ring per subtask (job, stage, subtask, whatever the
// attempt: the lines before a failure are the interesting ones, and the
// next attempt on the same task manager goes on in the same ring). A ring
// keeps the last Config.Lines lines and at most Config.Bytes bytes of
// messages, each cut to Config.LineBytes; the store keeps at most
// Config.Subtasks rings and drops the one written least recently to make
// room. Nothing else grows.
//
// Every line gets a seq: the store's clock in Unix nanoseconds, moved on
// by one when the clock did not advance, so a store's seqs are strictly
// increasing and a reader that passes the last seq it saw to Fetch gets
// only newer lines. Seqs of different task managers come from different
// clocks: they order lines across task managers only as well as those
// clocks agree.
//
// Handler tees a logger into the store: the task runtime hands the
// guests of a subtask a logger whose handler records every line (of any
// level) in the subtask's ring and passes it on to the task manager's own
// log. The task manager redacts the job's secret parameters before the
// tee, so the ring holds no secret either.
package tasklog
