// SQL functions (sdk/ABI.md, "SQL functions"): a scalar function that a SQL
// script declares with CREATE FUNCTION is a map function whose input record
// holds the call's arguments as a row of SQL values and whose output is the
// result, one value: a tag byte (its SQLType) and a payload.

import { Builder, Bytes } from "./bytes";
import { currentRegistration, fail, map, Registration } from "./runtime";

/** The type of a SQL value; its number is the value's tag. */
export enum SQLType {
  Null = 0,
  Boolean = 1,
  BigInt = 2,
  Double = 3,
  Varchar = 4,
}

/** One SQL value: type says which other field holds it (none for NULL). */
@final
export class SQLValue {
  type: SQLType = SQLType.Null;
  bool: bool = false;
  int: i64 = 0;
  float: f64 = 0;
  /** A VARCHAR's UTF-8 bytes; a decoded one is a view of the row. */
  str: Bytes = new Bytes();

  get isNull(): bool {
    return this.type == SQLType.Null;
  }

  static null(): SQLValue {
    return new SQLValue();
  }

  static boolean(b: bool): SQLValue {
    const v = new SQLValue();
    v.type = SQLType.Boolean;
    v.bool = b;
    return v;
  }

  static bigint(i: i64): SQLValue {
    const v = new SQLValue();
    v.type = SQLType.BigInt;
    v.int = i;
    return v;
  }

  static double(f: f64): SQLValue {
    const v = new SQLValue();
    v.type = SQLType.Double;
    v.float = f;
    return v;
  }

  /** A VARCHAR of s's UTF-8 bytes. */
  static varchar(s: string): SQLValue {
    return SQLValue.varcharBytes(Bytes.fromString(s));
  }

  /** A VARCHAR of b's bytes (a view: b must outlive the value's use). */
  static varcharBytes(b: Bytes): SQLValue {
    const v = new SQLValue();
    v.type = SQLType.Varchar;
    v.str = b;
    return v;
  }
}

/**
 * Decodes the whole of row, value after value, into dst, reusing its values
 * and growing it as needed; it may hold more values than the row. Returns the number of
 * values, or -k when the k-th value (from 1) is malformed: truncated, of an
 * unknown tag, or a VARCHAR whose length runs past the row.
 */
export function decodeSQLRow(row: Bytes, dst: SQLValue[]): i32 {
  const p = row.dataStart;
  const end = row.length;
  let off = 0;
  let count = 0;
  while (off < end) {
    if (count == dst.length) dst.push(new SQLValue());
    const n = decodeValue(p + <usize>off, end - off, unchecked(dst[count]));
    if (n == 0) return -(count + 1);
    off += n;
    count++;
  }
  return count;
}

// decodeValue decodes the value at p, n bytes long, into v and returns its
// length, or 0 when it is malformed.
function decodeValue(p: usize, n: i32, v: SQLValue): i32 {
  const tag = <i32>load<u8>(p);
  v.type = SQLType.Null;
  switch (tag) {
    case SQLType.Null:
      return 1;
    case SQLType.Boolean:
      if (n < 2) return 0;
      v.type = SQLType.Boolean;
      v.bool = (load<u8>(p + 1) & 1) == 1;
      return 2;
    case SQLType.BigInt:
    case SQLType.Double:
      if (n < 9) return 0;
      v.type = <SQLType>tag;
      // NB: WebAssembly loads are little-endian, as the encoding is.
      if (tag == SQLType.BigInt) v.int = load<i64>(p + 1);
      else v.float = load<f64>(p + 1);
      return 9;
    case SQLType.Varchar: {
      let len: u64 = 0;
      let i = 1;
      for (let shift: u64 = 0; ; shift += 7, i++) {
        if (i >= n || shift > 63) return 0;
        const c = load<u8>(p + <usize>i);
        len |= (<u64>(c & 0x7f)) << shift;
        if (c < 0x80) break;
      }
      i++;
      if (len > <u64>(n - i)) return 0;
      v.type = SQLType.Varchar;
      v.str.reset(p + <usize>i, <i32>len);
      return i + <i32>len;
    }
  }
  return 0;
}

/** Appends the encoding of v to b. */
export function appendSQLValue(b: Builder, v: SQLValue): Builder {
  b.byte(<u8>v.type);
  switch (v.type) {
    case SQLType.Boolean:
      return b.byte(v.bool ? 1 : 0);
    case SQLType.BigInt:
      return b.i64le(v.int);
    case SQLType.Double:
      return b.i64le(reinterpret<i64>(v.float));
    case SQLType.Varchar: {
      let len = <u32>v.str.length;
      for (; len >= 0x80; len >>= 7) b.byte(<u8>(len | 0x80));
      return b.byte(<u8>len).bytes(v.str);
    }
  }
  return b;
}

/** A SQL function: the result from the call's arguments, NULL ones as NULL values. */
export type SQLFn = (args: SQLValue[]) => SQLValue;

// The registered SQL functions by name, and the state of the one running.
// NB: AssemblyScript has no closures, so the map function that wraps a SQL
// function finds it by the running function's name.
const sqlFns = new Map<string, SQLFn>();
const args = new Array<SQLValue>();
const out = new Builder();
const none = new Bytes();
let running: Registration | null = null;
let runningFn: SQLFn | null = null;

/**
 * Registers fn as the scalar SQL function name (a map function): each
 * record's arguments are decoded and fn's result encoded. A malformed row
 * fails the record with "value K: not an encoded SQL value"; fn fails the
 * record with fail().
 */
export function sqlFunction(name: string, fn: SQLFn): Registration {
  const r = map(name, sqlMap);
  sqlFns.set(name, fn);
  return r;
}

function sqlMap(row: Bytes): Bytes {
  const r = currentRegistration()!;
  if (r !== running) {
    running = r;
    runningFn = sqlFns.get(r.name);
  }
  const n = decodeSQLRow(row, args);
  if (n < 0) {
    fail("value " + (-n).toString() + ": not an encoded SQL value");
    return none;
  }
  args.length = n;
  return appendSQLValue(out.reset(), runningFn!(args)).view();
}
