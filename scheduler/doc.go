// Package scheduler is Floe's job manager. It accepts jobs (REST, or the
// api.Service interface in process), stores their Wasm modules by digest,
// keeps the registry of task managers and their slots, places each job's
// subtasks on slots, deploys them, follows their status, detects task
// managers that stop heartbeating, and restarts failed jobs under their
// restart strategy.
//
// A Server serves two listeners: gRPC for task managers (proto/floe/v1,
// service Scheduler) and, optionally, the REST API for users. It decides
// nothing about a job's life itself: it turns calls and the ticks of its
// loop into events for a lifecycle.Machine (scheduler/internal/lifecycle),
// timed by Config.Now, under one lock, and carries out the actions the
// machine returns. Calls to task managers and writes to checkpoint storage
// are made outside the lock by goroutines the server owns; their outcomes
// come back as events.
//
// Slots are shared as in Flink: slot i of a job runs subtask i of every
// stage, so a job needs as many slots as its largest parallelism. A job that
// needs more slots than are free waits, and its status says why.
package scheduler
