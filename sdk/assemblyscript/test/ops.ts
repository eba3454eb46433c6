// Operators that exercise the SDK's API beyond the conformance suite; the
// fake host in run.mjs drives them.

import * as floe from "../assembly";
import {
  Builder,
  Bytes,
  Context,
  ListState,
  MapState,
  NO_TIMESTAMP,
  OperatorListState,
  Output,
  Params,
  Redistribution,
  ValueState,
  ValueType,
} from "../assembly";
import { parseDigits, writeDecimal, findByte } from "../assembly/bytes";
export * from "../assembly/exports";

const b = new Builder(4);

// helpers: each record is a command; the output is its result.
floe.flatMap("helpers", (v: Bytes, out: Output): void => {
  const sp = v.indexOf(0x20);
  const cmd = (sp < 0 ? v : v.slice(0, sp)).toString();
  const arg = sp < 0 ? new Bytes() : v.slice(sp + 1);
  if (cmd == "digits") {
    out.emit(b.reset().int(arg.parseDigits()));
  } else if (cmd == "i64") {
    out.emit(b.reset().int(arg.parseI64(-7)));
  } else if (cmd == "index") {
    // index C TEXT: the index of byte C in TEXT, from every start.
    const c = arg.at(0);
    const text = arg.slice(2);
    b.reset();
    for (let i = 0; i <= text.length; i++) b.int(text.indexOf(c, i)).byte(0x20);
    out.emit(b);
  } else if (cmd == "starts") {
    out.emit(arg.startsWith("héllo") ? "yes" : "no");
  } else if (cmd == "equals") {
    out.emit(arg.equalsString("héllo") ? "yes" : "no");
  } else if (cmd == "string") {
    out.emit(b.reset().string("né ").bytes(arg).string(" 😀").view());
  } else if (cmd == "roundtrip") {
    out.emit(arg.toString());
  } else if (cmd == "at") {
    floe.setOutputTimestamp(42);
    out.emit(arg);
    out.emitAt(arg, NO_TIMESTAMP);
  } else if (cmd == "swap") {
    b.reset().bytes(arg);
    const first = b[0];
    b[0] = b[b.length - 1];
    b[b.length - 1] = first;
    out.emit(b);
  } else if (cmd == "copy") {
    out.emit(arg.copy().toUint8Array());
  } else if (cmd == "throw") {
    throw new Error("thrown " + arg.toString());
  } else {
    floe.fail("unknown command " + cmd);
  }
});

// decimal prints edge cases of writeDecimal, parseDigits at the end of memory
// and findByte on its longest and shortest inputs.
floe.map("decimal", (v: Bytes): Bytes => {
  b.reset();
  const cases: i64[] = [0, 9, 10, 99, 100, 12345678, 123456789, -1, i64.MAX_VALUE, i64.MIN_VALUE];
  for (let i = 0; i < cases.length; i++) b.int(cases[i]).byte(0x20);
  const end = (<usize>memory.size() << 16) - 3;
  store<u8>(end, 0x31);
  store<u8>(end + 1, 0x32);
  store<u8>(end + 2, 0x33);
  b.int(parseDigits(end, 3)).byte(0x20).int(findByte(end, 0, 3, 0x33)).byte(0x20);
  const tmp = new Uint8Array(40);
  tmp[39] = 0x2c;
  b.int(findByte(tmp.dataStart, 0, 40, 0x2c)).byte(0x20).int(findByte(tmp.dataStart, 0, 39, 0x2c));
  b.byte(0x20).int(writeDecimal(tmp.dataStart, -42));
  return b.view();
});

floe.map("upper-key", (v: Bytes): Bytes => b.reset().bytes(v).string("!").view());
floe.keySelector("first", (v: Bytes): Bytes => {
  const i = v.indexOf(0x2c);
  return i < 0 ? v : v.slice(0, i);
});
floe.filter("short", (v: Bytes): bool => {
  if (v.equalsString("bad")) floe.fail("bad record");
  return v.length < 4;
});

// typed state of every kind and value type.
const names = new ValueState<string>("names").queryable();
const blobs = new ValueState<Bytes>("blobs").renderAs(ValueType.JSON);
const arrays = new ValueState<Uint8Array>("arrays");
const events = new ListState<string>("events");
const tags = new MapState<string, string>("tags");
const opl = new OperatorListState<string>("opl", Redistribution.Union);

floe.process("state", (ctx: Context, v: Bytes, out: Output): void => {
  const s = v.toString();
  names.put(ctx, s + "é");
  blobs.put(ctx, v);
  arrays.put(ctx, v.toUint8Array());
  events.add(ctx, s);
  tags.put(ctx, s, s + "!");
  const got = names.get(ctx, "?") + "|" + blobs.get(ctx, new Bytes()).toString() + "|" +
    String.UTF8.decode(arrays.get(ctx, new Uint8Array(0)).buffer) + "|" + events.get(ctx).join("+") + "|" +
    tags.get(ctx, s, "?") + "|" + tags.has(ctx, "nope").toString() + "|" + names.has(ctx).toString();
  const it = tags.entries(ctx);
  let all = "";
  while (it.next()) all += it.key + "=" + it.value + ";";
  out.emit(ctx.key.toString() + ":" + got + "|" + all);
  if (s == "clear") {
    names.delete(ctx);
    events.clear(ctx);
    tags.delete(ctx, "clear");
    tags.clear(ctx);
    opl.add(ctx.key.toString());
    out.emit("cleared " + names.has(ctx).toString() + " " + events.get(ctx).length.toString() + " " + opl.size().toString());
  }
});

// absent: get says "absent" without a has call, through found (any type)
// and getOrNull (reference types).
const n64 = new ValueState<i64>("n64");
const strs = new ValueState<string>("strs");
const counted = new MapState<string, i64>("counted");
const labels = new MapState<string, string>("labels");

floe.process("absent", (ctx: Context, v: Bytes, out: Output): void => {
  const s = v.toString();
  if (s == "get") {
    const n = n64.get(ctx, -1);
    out.emit(n.toString() + " " + n64.found.toString());
  } else if (s.startsWith("put ")) {
    n64.put(ctx, I64.parseInt(s.slice(4)));
  } else if (s == "str") {
    const got = strs.getOrNull(ctx);
    out.emit(got === null ? "null " + strs.found.toString() : "[" + got + "] " + strs.found.toString());
  } else if (s.startsWith("str ")) {
    strs.put(ctx, s.slice(4));
  } else if (s.startsWith("map ")) {
    const k = s.slice(4);
    const n = counted.get(ctx, k, 0);
    const found = counted.found;
    const label = labels.getOrNull(ctx, k);
    out.emit(k + "=" + n.toString() + " " + found.toString() + " " + (label === null ? "null" : label) + " " + labels.found.toString());
    counted.put(ctx, k, n);
    labels.put(ctx, k, "");
  }
});

// hooks and parameters.
let opened = "";
let paramN: i64 = 0;
floe.onOpen((p: Params): void => {
  opened = p.get("floe.function");
});
floe.map("params", (v: Bytes): Bytes => b.reset().string(opened).byte(0x2f).int(paramN).view()).onOpen((p: Params): void => {
  paramN = p.int("n", 5);
  if (p.has("log")) floe.log(floe.LogLevel.Warn, "opened with " + p.get("log"));
}).onClose((): void => {
  if (paramN == 13) floe.fail("unlucky close");
});

// sqlnext: a SQL function whose result is its last argument's successor:
// NULL stays NULL, a BOOLEAN is negated, a BIGINT gets 1 added, a DOUBLE is
// doubled, a VARCHAR gets "!" appended.
const sqlOut = new Builder();
floe.sqlFunction("sqlnext", (a: floe.SQLValue[]): floe.SQLValue => {
  if (a.length == 0) {
    floe.fail("no arguments");
    return floe.SQLValue.null();
  }
  const v = a[a.length - 1];
  switch (v.type) {
    case floe.SQLType.Boolean:
      return floe.SQLValue.boolean(!v.bool);
    case floe.SQLType.BigInt:
      return floe.SQLValue.bigint(v.int + 1);
    case floe.SQLType.Double:
      return floe.SQLValue.double(v.float * 2);
    case floe.SQLType.Varchar:
      return floe.SQLValue.varcharBytes(sqlOut.reset().bytes(v.str).string("!").view());
  }
  return floe.SQLValue.null();
});

// pair decodes a join function's pair frame: "left|right", or "left|-N" for
// an unmatched left row, N being its right view's length (0); a malformed
// frame fails the record.
floe.flatMap("pair", (v: Bytes, out: Output): void => {
  const p = floe.splitPair(v);
  if (p.error !== null) {
    floe.fail(p.error!);
    return;
  }
  b.reset().bytes(p.left).byte(0x7c);
  if (p.hasRight) b.bytes(p.right);
  else b.byte(0x2d).int(p.right.length);
  out.emit(b);
});
