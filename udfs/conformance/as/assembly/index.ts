// The SDK conformance operators (udfs/conformance/README.md) written with the
// AssemblyScript SDK (sdk/assemblyscript), all in one module: the host picks
// one by the floe.function parameter.

import * as floe from "../../../../sdk/assemblyscript/assembly";
import {
  BroadcastState,
  Builder,
  Bytes,
  Context,
  MapState,
  NO_TIMESTAMP,
  OperatorListState,
  Output,
  Params,
  Redistribution,
  TimeDomain,
  Timer,
  ValueState,
} from "../../../../sdk/assemblyscript/assembly";
export * from "../../../../sdk/assemblyscript/assembly/exports";

// line holds the output record being built; every function reuses it.
const line = new Builder(256);

// ---------------------------------------------------------------------------
// upper: map

floe.map("upper", upper);

function upper(v: Bytes): Bytes {
  if (v.equalsString("poison")) {
    floe.fail("poison record");
    return v;
  }
  line.reset().bytes(v);
  const out = line.view();
  const p = out.dataStart;
  for (let i = 0, n = out.length; i < n; i++) {
    const c = load<u8>(p + <usize>i);
    if (c >= 0x61 && c <= 0x7a) store<u8>(p + <usize>i, c - 0x20);
  }
  return out;
}

// ---------------------------------------------------------------------------
// evens: filter

floe.filter("evens", (v: Bytes): bool => (v.length & 1) == 0);

// ---------------------------------------------------------------------------
// split: flatMap with side outputs

let comments: i32 = 0;
let numbers: i32 = 0;
const field = new Bytes();

floe.flatMap("split", split).onOpen((_: Params): void => {
  comments = floe.declareOutput("comments");
  numbers = floe.declareOutput("numbers");
});

function split(v: Bytes, out: Output): void {
  const n = v.length;
  let start = 0;
  while (start <= n) {
    let end = v.indexOf(0x2c, start);
    if (end < 0) end = n;
    if (end > start) emitField(v.dataStart + <usize>start, end - start, out);
    start = end + 1;
  }
}

function emitField(p: usize, n: i32, out: Output): void {
  if (load<u8>(p) == 0x23) {
    field.reset(p + 1, n - 1);
    out.emitTo(comments, field);
    return;
  }
  field.reset(p, n);
  for (let i = 0; i < n; i++) {
    const c = load<u8>(p + <usize>i);
    if (c < 0x30 || c > 0x39) {
      out.emit(field);
      return;
    }
  }
  out.emitTo(numbers, field);
}

// ---------------------------------------------------------------------------
// tag: map with parameters

const prefix = new Builder();

floe.map("tag", (v: Bytes): Bytes => line.reset().bytes(prefix.view()).bytes(v).view()).onOpen((p: Params): void => {
  prefix.reset().string(p.get("greeting", "hello")).byte(0x2f);
  prefix.string(p.get("floe.subtask")).byte(0x2f).string(p.get("floe.parallelism")).byte(0x2f);
});

// ---------------------------------------------------------------------------
// count: keyed process with value state

const counts = new ValueState<i64>("counts").queryable();

floe.process("count", (ctx: Context, _: Bytes, out: Output): void => {
  const n = counts.get(ctx, 0) + 1;
  counts.put(ctx, n);
  out.emit(line.reset().bytes(ctx.key).byte(0x2c).int(n));
});

// ---------------------------------------------------------------------------
// hold: keyed process reading two states, the first used after the second

const held = new ValueState<Bytes>("held");
const prior = new MapState<Bytes, Bytes>("prior");
const dash = Bytes.fromString("-");

floe.process("hold", hold);

function hold(ctx: Context, v: Bytes, out: Output): void {
  const held_ = held.getOrNull(ctx);
  const p = held_ === null ? dash : held_;
  line.reset().bytes(ctx.key).byte(0x3a).bytes(p).byte(0x3a);
  const it = prior.entries(ctx);
  let first = true;
  while (it.next()) {
    if (!first) line.byte(0x3b);
    first = false;
    line.bytes(it.rawKey).byte(0x3d).bytes(it.rawValue);
  }
  out.emit(line);
  held.put(ctx, v);
  prior.put(ctx, v, p);
}

// cell: one state, "cell", seen as bytes and as int64, telling an absent
// int64 value from a malformed one

const cellRaw = new ValueState<Bytes>("cell");
const cellInt = new ValueState<i64>("cell");

floe.process("cell", cell);

function cell(ctx: Context, v: Bytes, out: Output): void {
  if (v.startsWith("set ")) {
    cellRaw.put(ctx, v.slice(4, v.length));
  } else if (v.startsWith("put ")) {
    cellInt.put(ctx, v.slice(4, v.length).parseI64(0));
  } else if (v.equalsString("get")) {
    const n = cellInt.get(ctx, 0);
    line.reset().bytes(ctx.key).byte(0x3a);
    if (cellInt.found) line.int(n);
    else line.string("absent");
    out.emit(line);
  }
}

// distinct: keyed process with map state

const seen = new MapState<Bytes, i64>("seen");

floe.process("distinct", distinct);

function distinct(ctx: Context, v: Bytes, out: Output): void {
  if (v.equalsString("?")) {
    line.reset().bytes(ctx.key).byte(0x3a);
    const it = seen.entries(ctx);
    let first = true;
    while (it.next()) {
      if (!first) line.byte(0x3b);
      first = false;
      line.bytes(it.rawKey).byte(0x3d).int(it.value);
    }
    out.emit(line);
    return;
  }
  if (v.equalsString("!")) {
    seen.clear(ctx);
    out.emit(line.reset().bytes(ctx.key).byte(0x21));
    return;
  }
  const c = seen.get(ctx, v, 0);
  seen.put(ctx, v, c + 1);
  if (c == 0) out.emit(line.reset().bytes(ctx.key).byte(0x2b).bytes(v));
}

// ---------------------------------------------------------------------------
// left and right: the two functions of one two-input operator, sharing the
// key's pending record ("L" or "R" and its value) and one timer handler

const pending = new ValueState<Bytes>("pending");
const pendingLine = new Builder(64);

floe.process("left", (ctx: Context, v: Bytes, out: Output): void => {
  match(ctx, 0x4c, 0x52, v, out);
}).onTimer(unmatched);
floe.process("right", (ctx: Context, v: Bytes, out: Output): void => {
  match(ctx, 0x52, 0x4c, v, out);
});

function match(ctx: Context, mine: u8, other: u8, v: Bytes, out: Output): void {
  const p = pending.getOrNull(ctx);
  if (p !== null && p.length > 0 && p[0] == other) {
    const rest = p.slice(1, p.length);
    line.reset().bytes(ctx.key).byte(0x2c);
    if (mine == 0x4c) line.bytes(v).byte(0x2c).bytes(rest);
    else line.bytes(rest).byte(0x2c).bytes(v);
    out.emit(line);
    pending.delete(ctx);
    return;
  }
  pending.put(ctx, pendingLine.reset().byte(mine).bytes(v).view());
  ctx.registerEventTimer(100);
}

function unmatched(ctx: Context, _: Timer, out: Output): void {
  const p = pending.getOrNull(ctx);
  if (p === null) return;
  out.emit(line.reset().bytes(ctx.key).string(",unmatched,").bytes(p));
  pending.delete(ctx);
}

// ---------------------------------------------------------------------------
// watch and rule: the keyed and the broadcast function of an operator with a
// broadcast input, sharing the broadcast state rules (name to pattern);
// watch counts its key's records in hits

const rules = new BroadcastState<Bytes, Bytes>("rules");
const hits = new ValueState<i64>("hits");
const ruleLine = new Builder(64);

floe.process("watch", (ctx: Context, v: Bytes, out: Output): void => {
  if (v.equalsString("write")) {
    rules.put(Bytes.fromString("x"), Bytes.fromString("y"));
    return;
  }
  const n = hits.get(ctx, 0) + 1;
  hits.put(ctx, n);
  line.reset().bytes(ctx.key).byte(0x23).int(n).byte(0x3a).bytes(v).byte(0x3a);
  const it = rules.entries();
  let first = true;
  while (it.next()) {
    if (!contains(v, it.rawValue)) continue;
    if (!first) line.byte(0x2b);
    line.bytes(it.rawKey);
    first = false;
  }
  out.emit(line);
});

floe.process("rule", (ctx: Context, v: Bytes, out: Output): void => {
  if (v.equalsString("count")) {
    hits.get(ctx, 0);
    return;
  }
  if (v.equalsString("?")) {
    line.reset().string("rules:");
    const it = rules.entries();
    let first = true;
    while (it.next()) {
      if (!first) line.byte(0x3b);
      line.bytes(it.rawKey).byte(0x3d).bytes(it.rawValue);
      first = false;
    }
    out.emit(line);
    return;
  }
  if (v.equalsString("!")) {
    rules.clear();
    out.emit(line.reset().byte(0x21));
    return;
  }
  if (v.length > 0 && v[0] == 0x2d) {
    rules.delete(v.slice(1, v.length));
    out.emit(line.reset().bytes(v));
    return;
  }
  let eq = v.indexOf(0x3d);
  const name = eq < 0 ? v : v.slice(0, eq);
  const pattern = eq < 0 ? v.slice(v.length, v.length) : v.slice(eq + 1, v.length);
  const old = rules.getOrNull(name);
  if (old !== null) out.emit(ruleLine.reset().byte(0x7e).bytes(name).byte(0x3d).bytes(old));
  rules.put(name, pattern);
  out.emit(line.reset().byte(0x2b).bytes(name));
});

// contains reports whether pattern occurs in v (an empty one always does).
function contains(v: Bytes, pattern: Bytes): bool {
  const n = v.length, m = pattern.length;
  for (let i = 0; i + m <= n; i++) {
    let j = 0;
    while (j < m && v[i + j] == pattern[j]) j++;
    if (j == m) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------
// session: keyed process with event-time and processing-time timers

let gap: i64 = 10;
let idle: i64 = 1000;
const last = new ValueState<i64>("last");
const sessionCount = new ValueState<i64>("n");

floe.process("session", session)
  .onOpen((p: Params): void => {
    gap = p.int("gap", 10);
    idle = p.int("idle", 1000);
  })
  .onTimer(sessionTimer);

function session(ctx: Context, v: Bytes, out: Output): void {
  if (v.equalsString("wm?")) {
    out.emit(line.reset().bytes(ctx.key).string(",wm,").int(ctx.currentWatermark()));
    return;
  }
  const ts = ctx.timestamp;
  if (ts == NO_TIMESTAMP) {
    floe.fail("record without timestamp");
    return;
  }
  let l = last.get(ctx, NO_TIMESTAMP);
  if (l != NO_TIMESTAMP) {
    ctx.deleteEventTimer(l + gap);
    if (ts > l) l = ts;
  } else {
    l = ts;
  }
  const n = sessionCount.get(ctx, 0) + 1;
  last.put(ctx, l);
  sessionCount.put(ctx, n);
  ctx.registerEventTimer(l + gap);
  if (n == 1) ctx.registerProcessingTimer(ctx.processingTime() + idle);
}

function sessionTimer(ctx: Context, t: Timer, out: Output): void {
  if (t.domain == TimeDomain.EventTime) {
    const n = sessionCount.get(ctx, 0);
    const l = last.get(ctx, 0);
    out.emit(line.reset().bytes(ctx.key).string(",session,").int(n).byte(0x2c).int(l));
    last.delete(ctx);
    sessionCount.delete(ctx);
    return;
  }
  if (!sessionCount.has(ctx)) return;
  const n = sessionCount.get(ctx, 0);
  out.emit(line.reset().bytes(ctx.key).string(",idle,").int(n).byte(0x2c).int(t.timestamp));
}

// ---------------------------------------------------------------------------
// buffer: operator list state

let bufferSize: i64 = 3;
const buffer = new OperatorListState<Bytes>("buffer", Redistribution.EvenSplit);
const members = new OperatorListState<string>("members", Redistribution.Union);

floe.flatMap("buffer", bufferRecord).onOpen((p: Params): void => {
  bufferSize = p.int("size", 3);
  const me = "subtask-" + p.get("floe.subtask");
  if (!members.get().includes(me)) members.add(me);
});

function bufferRecord(v: Bytes, out: Output): void {
  if (v.equalsString("?")) {
    line.reset().string("buffer=");
    join(line, buffer.get());
    out.emit(line.string(";members=").string(members.get().join("+")));
    return;
  }
  buffer.add(v);
  const all = buffer.get();
  if (all.length >= bufferSize) {
    join(line.reset(), all);
    out.emit(line);
    buffer.clear();
  }
}

// join appends elems to b, separated by '+'.
function join(b: Builder, elems: Bytes[]): void {
  for (let i = 0; i < elems.length; i++) {
    if (i > 0) b.byte(0x2b);
    b.bytes(elems[i]);
  }
}

// ---------------------------------------------------------------------------
// q1 and keyedcount: the benchmark operators (udfs/q1, udfs/keyedcount)

const ERR_FIELDS = "q1: a bid has 6 comma-separated fields";
const ERR_PRICE = "q1: the price is not an integer of 1 to 18 digits";

floe.map("q1", q1);

// q1 re-encodes a bid "auction,bidder,price,channel,url,dateTime" with its
// price in euros: price/1000*908 + price%1000*908/1000, in integers. The
// comma search is unrolled: loops are dear on a host that checks for
// interruption on every iteration.
function q1(bid: Bytes): Bytes {
  const c0 = bid.indexOf(0x2c);
  if (c0 < 0) return q1Fail(ERR_FIELDS, bid);
  const c1 = bid.indexOf(0x2c, c0 + 1);
  if (c1 < 0) return q1Fail(ERR_FIELDS, bid);
  const c2 = bid.indexOf(0x2c, c1 + 1);
  if (c2 < 0) return q1Fail(ERR_FIELDS, bid);
  const c3 = bid.indexOf(0x2c, c2 + 1);
  if (c3 < 0) return q1Fail(ERR_FIELDS, bid);
  const c4 = bid.indexOf(0x2c, c3 + 1);
  if (c4 < 0 || bid.indexOf(0x2c, c4 + 1) >= 0) return q1Fail(ERR_FIELDS, bid);
  const price = bid.parseDigits(c1 + 1, c2);
  if (price < 0) return q1Fail(ERR_PRICE, bid);
  const euros = (price / 1000) * 908 + ((price % 1000) * 908) / 1000;
  return line
    .reset()
    .raw(bid.dataStart, c1 + 1)
    .int(euros)
    .raw(bid.dataStart + <usize>c2, bid.length - c2)
    .view();
}

function q1Fail(msg: string, bid: Bytes): Bytes {
  floe.fail(msg);
  return bid;
}

const keyedCounts = new ValueState<i64>("count");

floe.process("keyedcount", (ctx: Context, _: Bytes, out: Output): void => {
  const n = keyedCounts.get(ctx, 0) + 1;
  keyedCounts.put(ctx, n);
  out.emit(line.reset().bytes(ctx.key).byte(0x2c).int(n));
});

// price_band(price BIGINT) RETURNS VARCHAR: a SQL function.
const LOW = floe.SQLValue.varchar("low");
const MID = floe.SQLValue.varchar("mid");
const HIGH = floe.SQLValue.varchar("high");
const NULL = floe.SQLValue.null();

function priceBand(a: floe.SQLValue[]): floe.SQLValue {
  if (a[0].isNull) return NULL;
  return a[0].int < 100 ? LOW : a[0].int < 700 ? MID : HIGH;
}
floe.sqlFunction("price_band", priceBand);

// pick(c BOOLEAN, a T, b T) RETURNS T: a SQL function of any type T.
floe.sqlFunction("pick", (a: floe.SQLValue[]): floe.SQLValue => (a[0].isNull ? NULL : a[0].bool ? a[1] : a[2]));

// series(n BIGINT, s VARCHAR) RETURNS TABLE (i BIGINT, tag VARCHAR): the
// rows (i, s || '#' || i) for i = 1 ... n % 5, a SQL table function.
const tag = new Builder();
floe.sqlTableFunction("series", (a: floe.SQLValue[]): floe.SQLValue[][] => {
  const rows = new Array<floe.SQLValue[]>();
  if (a[0].isNull || a[0].int <= 0) return rows;
  for (let i: i64 = 1; i <= a[0].int % 5; i++) {
    let t = NULL;
    if (!a[1].isNull) t = floe.SQLValue.varcharBytes(tag.reset().bytes(a[1].str).byte(0x23).int(i).view().copy());
    rows.push([floe.SQLValue.bigint(i), t]);
  }
  return rows;
});

// spread(x BIGINT) RETURNS BIGINT: MAX(x) - MIN(x) of the non-NULL x, a SQL
// aggregate. Its accumulator is the count, min and max, 3 x 8 bytes.
class Spread extends floe.SQLAggregate {
  create(acc: Builder): void {
    acc.i64le(0).i64le(0).i64le(0);
  }

  add(acc: Builder, a: floe.SQLValue[]): void {
    if (a[0].isNull) return;
    spanInto(acc, 1, a[0].int, a[0].int);
  }

  merge(acc: Builder, other: Bytes): void {
    spanInto(acc, load<i64>(other.dataStart), load<i64>(other.dataStart, 8), load<i64>(other.dataStart, 16));
  }

  result(acc: Bytes): floe.SQLValue {
    const n = load<i64>(acc.dataStart);
    if (n == 0) return NULL;
    return floe.SQLValue.bigint(load<i64>(acc.dataStart, 16) - load<i64>(acc.dataStart, 8));
  }
}

// spanInto merges the span (n, lo, hi) into the accumulator acc.
function spanInto(acc: Builder, n: i64, lo: i64, hi: i64): void {
  if (n == 0) return;
  const v = acc.view();
  const an = load<i64>(v.dataStart);
  if (an > 0) {
    const alo = load<i64>(v.dataStart, 8);
    const ahi = load<i64>(v.dataStart, 16);
    n += an;
    if (alo < lo) lo = alo;
    if (ahi > hi) hi = ahi;
  }
  acc.reset().i64le(n).i64le(lo).i64le(hi);
}
floe.sqlAggregate("spread", new Spread());
