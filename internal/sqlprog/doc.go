// Package sqlprog holds what the SQL compiler (internal/sqlc) puts into a
// job spec for the task managers to run, and runs it over typed rows:
//
//   - a Program, the work of a `sql` operator: decode each record (a CSV or
//     JSON line of a table's schema, or an encoded row from the SQL operator
//     before), keep it if WHERE holds, compute the SELECT list and encode
//     the result (an encoded row for the next SQL operator, or a CSV or
//     JSON line for a sink);
//   - an Aggregation, the built-in aggregate function of a SQL window
//     operator or of a sqlGroup (GROUP BY without a window): COUNT,
//     COUNT(DISTINCT), SUM, MIN, MAX and AVG over the columns of encoded
//     rows whose first Keys values are the GROUP BY key;
//   - a JoinRows, how a SQL join's combiner makes one row of a joined pair;
//   - a TopN, the ranking of a sqlTopN operator (Top-N, deduplication);
//   - an Over, the aggregates over ROWS frames of a sqlOver operator.
//
// A Program may also skip the records that lack a Prefix (the bids of a
// Nexmark stream) and write a changelog (Changelog: upsert when WHERE, that
// is HAVING, holds, delete when it does not) for an updating result.
//
// All travel in the spec as JSON (a spec is text that a scheduler stores
// and every task manager parses again), and Check refuses one that does not
// hold together, so a hand-edited spec fails at parse time with the field
// at fault rather than inside a task. The package is pure.
package sqlprog
