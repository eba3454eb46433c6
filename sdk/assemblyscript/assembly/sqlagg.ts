// SQL aggregate and table functions (sdk/ABI.md, "SQL aggregate functions"
// and "SQL table functions"). An aggregate that a script declares with
// CREATE AGGREGATE is a window aggregate function whose records are
// argument rows and whose result is one SQL value, run through floe_window;
// a table function (RETURNS TABLE or RETURNS SETOF) is a map function
// whose output holds zero or more result rows back to back.

import { Builder, Bytes } from "./bytes";
import { aggregateFunction, currentRegistration, fail, finishWindow, inputBuffer, map, NO_TIMESTAMP, Registration, emitRaw, setWindowTimestamp } from "./runtime";
import { appendSQLValue, decodeSQLRow, SQLValue } from "./sql";

/**
 * A SQL aggregate function: the host keeps one accumulator per group (and
 * window), the function's own bytes, adds each row's arguments to it,
 * merges two when session windows merge, and asks for the result when the
 * group's row is written. Each method may fail the call with fail().
 */
export abstract class SQLAggregate {
  /** Writes a new group's accumulator to acc, which is empty. */
  abstract create(acc: Builder): void;
  /** Folds one row's arguments (NULL ones as NULL values) into acc, which it may rewrite. */
  abstract add(acc: Builder, args: SQLValue[]): void;
  /** Folds the accumulator other into acc. */
  abstract merge(acc: Builder, other: Bytes): void;
  /** The aggregate's value over acc: of the declared RETURNS type, or NULL. */
  abstract result(acc: Bytes): SQLValue;
}

/** A SQL table function: the rows for one call's arguments, each the declared columns in order. */
export type SQLTableFn = (args: SQLValue[]) => SQLValue[][];

// NB: AssemblyScript has no closures, so the wrappers find the function by
// the running registration's name.
const aggs = new Map<string, SQLAggregate>();
const tableFns = new Map<string, SQLTableFn>();
const args = new Array<SQLValue>();
const acc = new Builder();
const out = new Builder();
const none = new Bytes();

/** Registers agg as the SQL aggregate function name (of kind aggregate). */
export function sqlAggregate(name: string, agg: SQLAggregate): Registration {
  aggs.set(name, agg);
  return aggregateFunction(name);
}

/**
 * Registers fn as the SQL table function name (a map function): each
 * record's arguments are decoded and fn's rows encoded back to back.
 */
export function sqlTableFunction(name: string, fn: SQLTableFn): Registration {
  tableFns.set(name, fn);
  return map(name, sqlTableMap);
}

function sqlTableMap(row: Bytes): Bytes {
  const fn = tableFns.get(currentRegistration()!.name);
  const n = decodeSQLRow(row, args);
  if (n < 0) {
    fail("value " + (-n).toString() + ": not an encoded SQL value");
    return none;
  }
  args.length = n;
  const rows = fn(args);
  out.reset();
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    for (let j = 0; j < r.length; j++) appendSQLValue(out, r[j]);
  }
  return out.view();
}

// A floe_window payload's reader; a short read sets bad.
let rp: usize = 0;
let rend: usize = 0;
let bad = false;

function u32At(): u32 {
  if (rend - rp < 4) {
    bad = true;
    return 0;
  }
  const v = load<u32>(rp);
  rp += 4;
  return v;
}

function bytesAt(n: u32): Bytes {
  if (bad || <usize>n > rend - rp) {
    bad = true;
    return none;
  }
  const b = new Bytes(rp, <i32>n);
  rp += <usize>n;
  return b;
}

/** @internal floe_window for a SQL aggregate: add, merge or result per group. */
export function sqlWindow(op: i32, n: i32): i32 {
  const r = currentRegistration();
  if (r === null || !aggs.has(r.name)) {
    return finishWindow(false, "function " + (r === null ? "?" : r.name) + " is not an aggregate function (register it with sqlAggregate)");
  }
  if (op < 0 || op > 2) return finishWindow(false, "window operation " + op.toString() + ": a SQL aggregate does add, merge and result only");
  const agg = aggs.get(r.name);
  rp = inputBuffer();
  rend = rp + <usize>n;
  bad = false;
  const groups = u32At();
  for (let g: u32 = 0; g < groups && !bad; g++) {
    let ts = NO_TIMESTAMP;
    if (op == 0) {
      if (!addGroup(agg)) return finishWindow(false, "");
    } else if (op == 1) {
      mergeGroup(agg);
    } else {
      bytesAt(u32At()); // the key
      bytesAt(8);
      const end = bad ? 0 : load<i64>(rp);
      bytesAt(8);
      ts = end - 1;
      const a = bytesAt(u32At());
      if (bad) break;
      setWindowTimestamp(ts);
      const v = agg.result(a);
      out.reset();
      appendSQLValue(out, v);
    }
    if (bad) break;
    const res = op == 2 ? out.view() : acc.view();
    emitRaw(0, res.dataStart, res.length, ts);
  }
  return finishWindow(!bad, "floe: truncated buffer");
}

// addGroup folds a group's records into its accumulator (created when
// absent), left in acc.
function addGroup(agg: SQLAggregate): bool {
  const accLen = u32At();
  acc.reset();
  if (accLen == 0xFFFFFFFF) {
    agg.create(acc);
  } else {
    acc.bytes(bytesAt(accLen));
  }
  const count = u32At();
  for (let i: u32 = 0; i < count && !bad; i++) {
    const kl = u32At();
    const vl = u32At();
    bytesAt(8 + kl);
    const row = bytesAt(vl);
    if (bad) break;
    const k = decodeSQLRow(row, args);
    if (k < 0) {
      fail("value " + (-k).toString() + ": not an encoded SQL value");
      return false;
    }
    args.length = k;
    agg.add(acc, args);
  }
  return true;
}

// mergeGroup merges a group's accumulators into acc.
function mergeGroup(agg: SQLAggregate): void {
  const count = u32At();
  acc.reset();
  for (let i: u32 = 0; i < count && !bad; i++) {
    const a = bytesAt(u32At());
    if (i == 0) acc.bytes(a);
    else agg.merge(acc, a);
  }
  if (count == 0) agg.create(acc);
}
