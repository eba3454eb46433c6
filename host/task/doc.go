// Package task runs one subtask of a stage: it pulls batches from the
// stage's source or from its exchange inbox, passes them through the chained
// operators (Wasm instances), and pushes the result to the sink or to every
// output edge of the stage (outputs.go), keying it for a hash edge with the
// built-in keyer. The inbox holds the channels of all the stage's input
// edges, numbered as plan.Plan.Channel does, so a task that reads several
// upstream stages (a union's reader) aligns barriers and tracks watermarks
// over all of them as over the subtasks of one.
//
// A partial rescale suspends a task at its checkpoint and resumes it with
// new channels and the job's new plan, its operators and state kept
// (suspend.go).
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
