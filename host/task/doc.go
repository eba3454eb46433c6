// Package task runs one subtask of a stage: it pulls batches from the
// stage's source or from its exchange inbox, passes them through the chained
// operators (Wasm instances and the built-in keyer), and pushes the result
// to the sink or to the exchange router.
//
// A task knows nothing of where it runs: the local runner wires tasks with
// in-process inboxes, and a task manager wires the same tasks with network
// channels. Everything process-wide (the Wasm engine, compiled modules, where
// state lives) comes in through Env.
package task
