// Package join is Floe's built-in two-input join operators, as Flink's
// DataStream API has them: the interval join and the window join. Both read
// two keyed inputs, left (input 0) and right (input 1), keyed into the same
// key groups, and keep the rows they still need in the subtask's keyed
// state, so that checkpoints carry them, a rescale moves them with their key
// groups and a restore brings them back.
//
// An Interval joins a right record r with a left record l of the same key
// when l.ts + Lower <= r.ts <= l.ts + Upper. Each record is matched, as it
// arrives, against the other side's buffered rows, then buffered itself
// until the watermark makes it useless: a left row once the watermark
// reaches l.ts + Upper, a right row once it reaches r.ts - Lower (an
// event-time timer per key and cleanup time). A record at or behind the
// watermark is late: it is dropped and counted, or sent to the late side
// output. An outer interval join (outer.go) also emits each row of its
// outer sides that matched nothing alone: once the watermark passes its
// interval, or at once, retracted by its first match (Retract).
//
// A Window assigns the records of both inputs to the windows of a
// window.Spec (tumbling, sliding or session, sessions merging across both
// inputs) and, when the watermark reaches a window's last instant, emits
// its pairs: every left row with every right row (Inner), and for
// LeftOuter also each left row of a window without right rows alone. With
// an allowed lateness a fired window is kept that much longer, and a late
// record within it fires the window again, whole, as Flink's window does.
// A record at ts opens the session [ts, ts+gap), which merges with the
// sessions it overlaps; sessions that only touch stay apart, so records
// gap or more apart are in different sessions. (Were touching sessions
// merged, as host/window merges them, a record at a session's end could
// arrive after the watermark fired and dropped that session, and whether
// it joined it would depend on the watermark's timing.)
//
// A joined pair becomes one record through a Combiner: the built-in
// Concat (left value, separator, right value) or a Wasm join function
// (package udf). The pair's record keeps the key; its timestamp is the
// later of the two for an interval join and the window's last instant for
// a window join.
//
// Both operators are pure state machines over udf.MapState and a
// timer.Queue: the task feeds them batches, watermarks and due timers.
package join
