// Package task runs one subtask of a stage: it pulls batches from the
// stage's source or from its exchange inbox, passes them through the chained
// operators (Wasm instances and the built-in keyer), and pushes the result
// to the sink or to the exchange router.
//
// A task knows nothing of where it runs: the local runner wires tasks with
// in-process inboxes, and a task manager wires the same tasks with network
// channels. Everything process-wide (the Wasm engine, compiled modules, where
// state lives, the clock) comes in through Env.
//
// The decisions of the task loop live in pure cores it drives: barrier
// alignment in internal/align, watermarks in host/eventtime (Pacer for a
// source, Tracker for the inputs of an inbox), timers in host/timer. Each
// has datadriven scripts in its testdata/; the task does the I/O.
package task
