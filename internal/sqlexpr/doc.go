// Package sqlexpr evaluates the scalar expressions of Floe's stream SQL over
// typed rows (internal/sqlrow): column references, literals, arithmetic,
// comparisons, AND/OR/NOT with SQL's three-valued logic, IS [NOT] NULL,
// CASE, CAST and a few string and math functions.
//
// An Expr is plain data, one struct for every kind of node, so that the SQL
// compiler (internal/sqlc) can put a compiled expression into a job spec as
// JSON and a task manager can evaluate it without a SQL parser. Each node
// carries its result type, fixed when the compiler built it; Check verifies a
// tree against a row's types (a spec may come from anywhere), and Eval never
// sees a type it does not expect after that.
//
// NULL propagates through every operator and function except AND, OR, IS
// [NOT] NULL, CASE and COALESCE, as in PostgreSQL. Integer arithmetic is on
// int64: +, - and * that overflow are an error, / truncates toward zero and
// dividing by zero is an error (PostgreSQL's rules; DuckDB's / is a DOUBLE
// division, its // the integer one).
package sqlexpr
