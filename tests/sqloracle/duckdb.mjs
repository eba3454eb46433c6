// duckdb.mjs runs SQL queries on DuckDB for Floe's stream SQL oracle
// (oracle_test.go). It reads one JSON object from standard input,
//
//   {"tables": [{"name": "bids", "path": "/tmp/bids.csv",
//                "columns": [["auction", "BIGINT"], ...]}],
//    "queries": [{"name": "q1", "sql": "SELECT ..."}]}
//
// loads each table from its CSV file (no header, empty field = NULL), runs
// each query and writes one JSON object to standard output: for each query
// name, its rows as arrays of strings (null for NULL), or {"error": "..."}.
import { DuckDBInstance } from '@duckdb/node-api';

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const input = JSON.parse(Buffer.concat(chunks).toString('utf8'));

const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const quote = (s) => "'" + String(s).replaceAll("'", "''") + "'";
for (const t of input.tables) {
  const cols = t.columns.map(([n, ty]) => `${quote(n)}: ${quote(ty)}`).join(', ');
  await conn.run(`CREATE TABLE "${t.name}" AS SELECT * FROM read_csv(${quote(t.path)}, ` +
    `header = false, auto_detect = false, delim = ',', quote = '"', nullstr = '', columns = {${cols}})`);
}
const out = {};
for (const q of input.queries) {
  try {
    const reader = await conn.runAndReadAll(q.sql);
    out[q.name] = reader.getRows().map((row) => row.map((v) => (v === null ? null : String(v))));
  } catch (e) {
    out[q.name] = { error: String(e.message ?? e) };
  }
}
process.stdout.write(JSON.stringify(out));
