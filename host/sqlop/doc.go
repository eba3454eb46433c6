// Package sqlop runs, inside a task, the operators that Floe's SQL compiler
// emits, host-side: Operator runs a sql operator's program
// (internal/sqlprog.Program) over a batch, and Call one that calls a Wasm
// scalar or table function, once per batch. Aggregate is the aggregate
// function of a SQL window, which host/window drives like any window
// function (its accumulators live in the window's keyed state, so
// checkpoints, restores and rescales treat them as they treat a Wasm
// window function's). Group keeps a GROUP BY's accumulators without a
// window, TopN each partition's ranked rows, and WindowTopN is the window
// function of a window Top-N, whose accumulator is the window's ranked
// rows; Over computes aggregates over ROWS frames in event-time order, and
// FinalGroup is a GROUP BY emitted once at its bound, both on event-time
// timers; JoinRows is the join.Combiner
// that makes a SQL join's pair one row. Aggregate and Group fold the
// built-in aggregates themselves and call the Wasm aggregates (CREATE
// AGGREGATE) through floe_window once per batch of groups (wasmagg.go).
// Rows travel between them in internal/sqlrow's encoding.
package sqlop
