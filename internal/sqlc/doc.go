// Package sqlc compiles Floe's stream SQL into a job spec: the same YAML a
// person writes (docs/jobs.md), so that a SQL job is planned, checkpointed,
// restored, rescaled and measured exactly as any other job. docs/sql.md is
// the user's reference of the dialect.
//
// The text is parsed by PostgreSQL's own grammar through pg_query_go
// (RATIONALE.md says why that parser); this package walks the tree it
// returns and never parses SQL itself. Flink's clauses that PostgreSQL
// lacks (WATERMARK FOR, p AS PROCTIME(), window TVFs) are blanked first at
// the level of pg_query's tokens, every other byte kept where it was
// (rewrite.go), and applied from the side (flink.go). A script is a list
// of statements:
//
//   - SET key = value sets a property of the job (name, parallelism, ...);
//   - CREATE TABLE t (col TYPE, ...) WITH (connector = '...', ...) declares a
//     table: a source when a query reads it, a sink when one inserts into
//     it. Every option but connector, format and watermark goes to the
//     connector's section of the spec as it stands;
//   - INSERT INTO sink SELECT ... FROM t [WHERE ...] [GROUP BY ...] is one
//     query of the job; several share the tables they read. FROM may also
//     be a JOIN of two tables, or a Top-N's subquery;
//   - CREATE FUNCTION declares a Wasm function (function.go): scalar, or a
//     table function with RETURNS TABLE or SETOF (tablefunc.go), read in
//     FROM t, LATERAL f(...); CREATE AGGREGATE a Wasm aggregate
//     (aggfunc.go), one more aggregate of a grouped query;
//   - EXPLAIN before an INSERT asks for the job's graph instead of a run.
//
// A query becomes a chain of host-side operators (host/sqlop): a sql
// operator that decodes the table's records, filters and projects them;
// for a windowed GROUP BY, a keyBy on the grouping columns (key row:N), a
// window with the built-in aggregate function and a second sql operator
// for the SELECT list and HAVING over the aggregates; for a GROUP BY
// without a window, a sqlGroup operator in the window's place and a last
// sql operator that writes a changelog. A join (join.go) gives each table
// a sql operator and a keyBy on the join keys, feeding an intervalJoin or a
// windowJoin whose SQL combiner concatenates the two rows; a Top-N
// (topn.go) ranks in a sqlTopN operator between a keyBy on the partition
// and a last sql operator that writes a changelog; a window Top-N
// (windowtopn.go) ranks in a window whose function is the ranking, after
// the operators of the windowed GROUP BY it may read. A GROUP BY over a
// join, or over another GROUP BY's updating result, puts the join's or the
// inner GROUP BY's operators first (groupupdating.go); the inner one
// retracts its old rows for the outer one's COUNT, SUM and AVG. OVER
// aggregates (over.go) run in a sqlOver after a keyBy on the partition; they
// may read a GROUP BY over a join that is final at the join's bound
// (final.go), Nexmark q6. Expressions compile to
// internal/sqlexpr trees, typed as they are built, so a type error is found
// here, with the line and column of the offending text, not in a task.
// What only the spec's parser can find (a connector's option) is pointed
// back at the script by Job.Locate.
package sqlc
