// Package sqloracle tests Floe's stream SQL against an independent oracle:
// each query of testdata/corpus.sql runs as a Floe job (compiled by
// internal/sqlc, run at parallelism 2 on a mini-cluster) over a generated,
// bounded CSV table (joins also read a second one, asks_test.go), and on DuckDB (npm @duckdb/node-api, driven by
// duckdb.mjs) over the same file; the two results must hold the same rows.
//
// DuckDB is installed with `npm ci --prefix tests/sqloracle`; without its
// node_modules the test skips and says so.
package sqloracle
