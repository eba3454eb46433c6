// The operator: one per module instance (the host instantiates a module once
// per operator subtask, so one set of globals is one operator). It selects
// the registered function at floe_open, runs it over input batches, buffers
// output and hands it to the host once per batch or when the buffer fills.

import * as abi from "./abi";
import { Bytes } from "./bytes";
import { Params } from "./params";

/** The timestamp of a record without event time (ABI `i64::MIN`). */
export const NO_TIMESTAMP: i64 = i64.MIN_VALUE;

/** The clock a timer belongs to (ABI timer domains). */
export enum TimeDomain {
  EventTime = 0,
  ProcessingTime = 1,
}

/** Log levels of `log`. */
export enum LogLevel {
  Debug = 0,
  Info = 1,
  Warn = 2,
  Error = 3,
}

// ---------------------------------------------------------------------------
// Errors and logs

// The message of the current call's failure, set by fail().
let failure: string | null = null;
// The index of the input record in scope, -1 outside a record.
let curRec: i32 = -1;

/**
 * Fails the current call with message: the SDK stops the batch once the
 * function returns (return right after calling it), flushes what was
 * emitted before, and the task fails with the message and the record. In an
 * open or close hook, it fails floe_open or floe_close. The first message of
 * a call wins.
 */
export function fail(message: string): void {
  if (failure === null) failure = message;
}

/** Whether fail was called during the current call. */
export function failed(): bool {
  return failure !== null;
}

/** Hands the host a log line at level. */
export function log(level: LogLevel, message: string): void {
  const b = String.UTF8.encode(message);
  abi.log(<i32>level, changetype<usize>(b), b.byteLength);
}

/** Reports the pending failure (or message) to the host and returns the
 * export's failure status. */
function report(rec: i32, message: string): i32 {
  const b = String.UTF8.encode(message);
  abi.fail(rec, changetype<usize>(b), b.byteLength);
  failure = null;
  return 1;
}

/**
 * The module's abort (`--use abort=…`): `throw`, a failed assert or an
 * out-of-range access. The instance cannot go on, so it records the message
 * with the ABI's fail, writes it to stderr (which the host quotes in the
 * task's error) and traps.
 */
export function floeAbort(message: string | null, fileName: string | null, line: u32, column: u32): void {
  let msg = message !== null ? message : "abort";
  if (fileName !== null) msg += " at " + fileName + ":" + line.toString() + ":" + column.toString();
  panic(msg);
}

// Set while panic runs, so that a failure in it cannot recurse.
let panicking = false;

/**
 * Fails the instance at once with message: for broken invariants (a state
 * value that does not decode), where returning is not possible. Prefer `fail`.
 */
export function panic(msg: string): void {
  if (panicking) unreachable();
  panicking = true;
  const m = String.UTF8.encode(msg);
  abi.fail(curRec, changetype<usize>(m), m.byteLength);
  const b = String.UTF8.encode("floe: " + msg + "\n");
  const iov = memory.data(16);
  store<u32>(iov, changetype<usize>(b));
  store<u32>(iov, b.byteLength, 4);
  abi.fd_write(2, iov, 1, iov + 8);
  unreachable();
}

// ---------------------------------------------------------------------------
// Output

const OUT_HEADER: i32 = 16;
// How much output the SDK buffers before handing it to the host mid-batch.
const OUT_FLUSH: i32 = 256 << 10;

let outBuf: usize = 0;
let outCap: i32 = 0;
let outLen: i32 = 0;
// The timestamp records emitted now get unless the operator sets one.
let outTs: i64 = NO_TIMESTAMP;
// Bytes the SDK encodes strings into when they are emitted.
let strBuf: ArrayBuffer = new ArrayBuffer(0);

/** Hands the buffered output to the host. */
export function flush(): void {
  if (outLen > 0) {
    abi.emit(outBuf, outLen);
    outLen = 0;
  }
}

/** Appends one output record to the output buffer. */
export function emitRaw(port: i32, ptr: usize, len: i32, ts: i64): void {
  const need = OUT_HEADER + len;
  if (outLen + need > outCap) {
    flush();
    if (need > outCap) {
      if (outBuf != 0) heap.free(outBuf);
      outCap = max(need, OUT_FLUSH);
      outBuf = heap.alloc(<usize>outCap);
    }
  }
  const p = outBuf + <usize>outLen;
  store<u32>(p, <u32>port);
  store<u32>(p, <u32>len, 4);
  store<i64>(p, ts, 8);
  memory.copy(p + OUT_HEADER, ptr, <usize>len);
  outLen += need;
}

/** Appends v (Bytes, Builder, string, Uint8Array or ArrayBuffer) to the output. */
// @ts-ignore: decorator
@inline
export function emitValue<T>(port: i32, v: T, ts: i64): void {
  if (isString<T>()) {
    const s = changetype<string>(v);
    const max = s.length * 3;
    if (strBuf.byteLength < max) strBuf = new ArrayBuffer(max);
    const n = String.UTF8.encodeUnsafe(changetype<usize>(s), s.length, changetype<usize>(strBuf));
    emitRaw(port, changetype<usize>(strBuf), <i32>n, ts);
  } else if (v instanceof Bytes) {
    emitRaw(port, v.dataStart, v.length, ts);
  } else if (v instanceof Uint8Array) {
    emitRaw(port, v.dataStart, v.byteLength, ts);
  } else if (v instanceof ArrayBuffer) {
    emitRaw(port, changetype<usize>(v), v.byteLength, ts);
  } else if (isReference<T>() && isDefined(v.view)) {
    // A Builder.
    const b = v.view();
    emitRaw(port, b.dataStart, b.length, ts);
  } else {
    ERROR("emit takes Bytes, Builder, string, Uint8Array or ArrayBuffer");
  }
}

/**
 * Where a function's output records go. Records get the timestamp of the
 * input record being processed (in a timer: the timer's for event time,
 * none for processing time) unless emitted with `emitAt`.
 */
@final
export class Output {
  /** Emits value to the main output. */
  emit<T>(value: T): void {
    emitValue<T>(0, value, outTs);
  }

  /** Emits value to the main output with timestamp ts (NO_TIMESTAMP: none). */
  emitAt<T>(value: T, ts: i64): void {
    emitValue<T>(0, value, ts);
  }

  /** Emits value to the side output port (from `declareOutput`). */
  emitTo<T>(port: i32, value: T): void {
    emitValue<T>(port, value, outTs);
  }

  /** Emits value to the side output port with timestamp ts. */
  emitToAt<T>(port: i32, value: T, ts: i64): void {
    emitValue<T>(port, value, ts);
  }
}

/**
 * Sets the timestamp of the records emitted during the rest of the current
 * call (a map's result included); NO_TIMESTAMP means none.
 */
export function setOutputTimestamp(ts: i64): void {
  outTs = ts;
}

/** The output of the running function. */
export const output = new Output();

/**
 * Declares the side output name and returns its port, for `Output.emitTo`.
 * Call it when the operator opens (an open hook); declaring a name twice
 * returns the same port.
 */
export function declareOutput(name: string): i32 {
  const b = String.UTF8.encode(name);
  return abi.output_declare(changetype<usize>(b), b.byteLength);
}

// ---------------------------------------------------------------------------
// Context and time

/** The timer that fired, in a timer callback. */
@final
export class Timer {
  /** The timer's clock. */
  domain: TimeDomain = TimeDomain.EventTime;
  /** The time it was registered for, ms since the epoch. */
  timestamp: i64 = 0;
}

/**
 * The scope of one record (or fired timer) in a keyed process function: its
 * key, timestamp, the parameters, timers. State handles take it to know
 * whose state to use.
 */
@final
export class Context {
  /** @internal The index of the record in the batch (0 in a timer). */
  rec: i32 = 0;
  /** The key of the record (valid during the call). */
  readonly key: Bytes = new Bytes();
  /** @internal */
  ts: i64 = NO_TIMESTAMP;
  /** The operator's parameters. */
  params: Params = new Params();

  /**
   * The record's event time, ms since the epoch, or NO_TIMESTAMP. In a
   * timer: the timer's timestamp for event time, NO_TIMESTAMP for processing
   * time (what records emitted there get).
   */
  get timestamp(): i64 {
    return this.ts;
  }

  /** Registers an event-time timer for this key at ts: it fires once the watermark reaches ts. */
  registerEventTimer(ts: i64): void {
    abi.timer_register(this.rec, TimeDomain.EventTime, ts);
  }

  /** Registers a processing-time timer for this key at ts (ms since the epoch). */
  registerProcessingTimer(ts: i64): void {
    abi.timer_register(this.rec, TimeDomain.ProcessingTime, ts);
  }

  /** Deletes this key's event-time timer at ts, if any. */
  deleteEventTimer(ts: i64): void {
    abi.timer_delete(this.rec, TimeDomain.EventTime, ts);
  }

  /** Deletes this key's processing-time timer at ts, if any. */
  deleteProcessingTimer(ts: i64): void {
    abi.timer_delete(this.rec, TimeDomain.ProcessingTime, ts);
  }

  /** The operator's event-time watermark, NO_TIMESTAMP before the first. */
  currentWatermark(): i64 {
    return abi.current_watermark();
  }

  /** The host's processing time, ms since the epoch. */
  processingTime(): i64 {
    return abi.processing_time();
  }
}

/** The operator's event-time watermark, NO_TIMESTAMP before the first. */
export function currentWatermark(): i64 {
  return abi.current_watermark();
}

/** The host's processing time, ms since the epoch. */
export function processingTime(): i64 {
  return abi.processing_time();
}

const ctx = new Context();
const val = new Bytes();
const timer = new Timer();

// ---------------------------------------------------------------------------
// Registered functions

/** One record in, one record out. */
export type MapFn = (value: Bytes) => Bytes;
/** Keeps the records it returns true for. */
export type FilterFn = (value: Bytes) => bool;
/** One record in, any number out. */
export type FlatMapFn = (value: Bytes, out: Output) => void;
/** A keyed process function: runs after a keyBy with the record's key in ctx. */
export type ProcessFn = (ctx: Context, value: Bytes, out: Output) => void;
/** A fired timer of a keyed process function. */
export type TimerFn = (ctx: Context, timer: Timer, out: Output) => void;
/** Runs when an operator opens, with its parameters. */
export type OpenFn = (params: Params) => void;
/** Runs when an operator closes. */
export type CloseFn = () => void;

enum Kind {
  Map,
  Filter,
  FlatMap,
  Process,
  KeySelector,
  Aggregate,
}

/**
 * A registered function. Its hooks run only when the operator runs this
 * function: `map("f", f).onOpen(openF)`.
 */
@final
export class Registration {
  /** @internal */ kind: Kind;
  /** @internal */ mapFn: MapFn | null = null;
  /** @internal */ filterFn: FilterFn | null = null;
  /** @internal */ flatMapFn: FlatMapFn | null = null;
  /** @internal */ processFn: ProcessFn | null = null;
  /** @internal */ timerFn: TimerFn | null = null;
  /** @internal */ openFn: OpenFn | null = null;
  /** @internal */ closeFn: CloseFn | null = null;

  constructor(readonly name: string, kind: Kind) {
    this.kind = kind;
  }

  /** Runs fn when an operator running this function opens (after the module's onOpen hooks). */
  onOpen(fn: OpenFn): Registration {
    this.openFn = fn;
    return this;
  }

  /** Runs fn when an operator running this function closes (before the module's onClose hooks). */
  onClose(fn: CloseFn): Registration {
    this.closeFn = fn;
    return this;
  }

  /** Calls fn for this keyed process function's timers when they fire. */
  onTimer(fn: TimerFn): Registration {
    this.timerFn = fn;
    return this;
  }
}

const registry = new Map<string, Registration>();
const registered: string[] = [];

function register(f: Registration): Registration {
  if (registry.has(f.name)) throw new Error("floe: function \"" + f.name + "\" registered twice");
  registry.set(f.name, f);
  registered.push(f.name);
  return f;
}

/** Registers a function that turns each record into exactly one record. */
export function map(name: string, fn: MapFn): Registration {
  const f = new Registration(name, Kind.Map);
  f.mapFn = fn;
  return register(f);
}

/** Registers a function that keeps the records for which it returns true. */
export function filter(name: string, fn: FilterFn): Registration {
  const f = new Registration(name, Kind.Filter);
  f.filterFn = fn;
  return register(f);
}

/** Registers a function that emits zero or more records per record. */
export function flatMap(name: string, fn: FlatMapFn): Registration {
  const f = new Registration(name, Kind.FlatMap);
  f.flatMapFn = fn;
  return register(f);
}

/**
 * Registers a keyed process function: it runs after a keyBy, and the state
 * and timers it uses are scoped to the key of the record in ctx.
 */
export function process(name: string, fn: ProcessFn): Registration {
  const f = new Registration(name, Kind.Process);
  f.processFn = fn;
  return register(f);
}

/** Registers a function that returns a record's key, for a keyBy with `key: function`. */
export function keySelector(name: string, fn: MapFn): Registration {
  const f = new Registration(name, Kind.KeySelector);
  f.mapFn = fn;
  return register(f);
}

/**
 * @internal Registers an aggregate function, run through floe_window by
 * the wrapper that registers it (sqlAggregate).
 */
export function aggregateFunction(name: string): Registration {
  return register(new Registration(name, Kind.Aggregate));
}

/** @internal The input buffer (floe_alloc's). */
export function inputBuffer(): usize {
  return inBuf;
}

/**
 * @internal Ends a floe_window call: flushes the output and reports a
 * failure (fail's message, or message when ok is false without one).
 */
export function finishWindow(ok: bool, message: string): i32 {
  flush();
  outTs = NO_TIMESTAMP;
  if (failure !== null) return report(-1, failure!);
  if (!ok) return report(-1, message);
  return 0;
}

/** @internal Sets the timestamp records emitted now get. */
export function setWindowTimestamp(ts: i64): void {
  outTs = ts;
}

/** The kinds as the function table names them (sdk/ABI.md, "Function table"). */
function kindName(k: Kind): string {
  switch (k) {
    case Kind.Aggregate: return "aggregate";
    case Kind.Map: return "map";
    case Kind.Filter: return "filter";
    case Kind.FlatMap: return "flatMap";
    case Kind.Process: return "process";
    default: return "keySelector";
  }
}

/** The function table floe_functions hands the host. */
let table = new ArrayBuffer(0);

/**
 * Lays out the registered functions and their kinds, sorted by name (u32
 * count, then count × {u32 name_len, name, u32 kind_len, kind}), and returns
 * its address << 32 | its length.
 * @internal
 */
export function functions(): i64 {
  const names = registered.slice(0);
  names.sort((a: string, b: string): i32 => (a < b ? -1 : a > b ? 1 : 0));
  const parts: ArrayBuffer[] = [];
  let size = 4;
  for (let i = 0; i < names.length; i++) {
    const name = String.UTF8.encode(names[i]);
    const kind = String.UTF8.encode(kindName(registry.get(names[i]).kind));
    parts.push(name);
    parts.push(kind);
    size += 8 + name.byteLength + kind.byteLength;
  }
  table = new ArrayBuffer(size);
  const p = changetype<usize>(table);
  store<u32>(p, <u32>names.length);
  let at: usize = 4;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    store<u32>(p + at, <u32>part.byteLength);
    memory.copy(p + at + 4, changetype<usize>(part), <usize>part.byteLength);
    at += 4 + <usize>part.byteLength;
  }
  return (<i64>(<u32>p) << 32) | <i64>size;
}

const openHooks: OpenFn[] = [];
const closeHooks: CloseFn[] = [];

/** Runs fn when an operator of this module opens, whichever function it runs. */
export function onOpen(fn: OpenFn): void {
  openHooks.push(fn);
}

/** Runs fn when an operator of this module closes, whichever function it runs. */
export function onClose(fn: CloseFn): void {
  closeHooks.push(fn);
}

// ---------------------------------------------------------------------------
// State declarations (state.ts makes the handles)

/** @internal A state the module declares to the host when it opens. */
export class StateDecl {
  id: i32 = -1;
  constructor(readonly kind: i32, readonly name: string, public flags: i32) {}
}

/** @internal Every state handle of the module, in creation order. */
export const stateDecls: StateDecl[] = [];

function declareStates(): void {
  for (let i = 0; i < stateDecls.length; i++) {
    const d = stateDecls[i];
    const b = String.UTF8.encode(d.name);
    d.id = abi.state_declare(d.kind, changetype<usize>(b), b.byteLength, d.flags);
  }
}

// ---------------------------------------------------------------------------
// The exports' bodies (exports.ts)

let inBuf: usize = 0;
let inCap: i32 = 0;
let fn: Registration | null = null;

/** @internal The function the operator runs, for wrappers such as sqlFunction. */
export function currentRegistration(): Registration | null {
  return fn;
}
/** A two-input operator's second function (floe.function2), or null. */
let fn2: Registration | null = null;

/** floe_alloc: the input buffer, at least size bytes. */
export function alloc(size: i32): usize {
  if (size > inCap) {
    if (inBuf != 0) heap.free(inBuf);
    inBuf = heap.alloc(<usize>size);
    inCap = size;
  }
  return inBuf;
}

/** floe_open: decode the parameters, select the function, declare state, run the hooks. */
export function open(n: i32): i32 {
  curRec = -1;
  const p = ctx.params;
  if (!decodeParams(p, inBuf, n)) return report(-1, "floe: malformed parameter block");
  const name = p.get("floe.function");
  if (!registry.has(name)) {
    return report(-1, "no function \"" + name + "\" in this module (registered: " + registered.join(", ") + ")");
  }
  const f = registry.get(name);
  fn = f;
  fn2 = null;
  const name2 = p.has("floe.function2") ? p.get("floe.function2") : "";
  if (name2.length > 0) {
    if (!registry.has(name2)) {
      return report(-1, "no function \"" + name2 + "\" in this module (registered: " + registered.join(", ") + ")");
    }
    fn2 = registry.get(name2);
  }
  declareStates();
  for (let i = 0; i < openHooks.length; i++) {
    openHooks[i](p);
    if (failure !== null) return report(-1, failure!);
  }
  const h = f.openFn;
  if (h) {
    h(p);
    if (failure !== null) return report(-1, failure!);
  }
  const g = fn2;
  if (g !== null && g !== f) {
    const h2 = g.openFn;
    if (h2) {
      h2(p);
      if (failure !== null) return report(-1, failure!);
    }
  }
  return 0;
}

function decodeParams(p: Params, buf: usize, n: i32): bool {
  if (n < 4) return false;
  const end = buf + <usize>n;
  const count = load<u32>(buf);
  let off = buf + 4;
  for (let i: u32 = 0; i < count; i++) {
    if (end - off < 4) return false;
    const kl = load<u32>(off);
    off += 4;
    if (<usize>kl > end - off) return false;
    const k = String.UTF8.decodeUnsafe(off, kl);
    off += kl;
    if (end - off < 4) return false;
    const vl = load<u32>(off);
    off += 4;
    if (<usize>vl > end - off) return false;
    p.set(k, String.UTF8.decodeUnsafe(off, vl));
    off += vl;
  }
  return true;
}

/** floe_process: run the function over count records in the buffer's first n bytes. */
export function processBatch(n: i32, count: i32): i32 {
  const f = fn;
  if (f === null) return report(-1, "floe: floe_process before a successful floe_open");
  return processWith(f, n, count);
}

/** floe_process2: run a two-input operator's second function over a batch. */
export function processBatch2(n: i32, count: i32): i32 {
  const f = fn2;
  if (f === null) return report(-1, "floe_process2 called, but the operator has no floe.function2");
  return processWith(f, n, count);
}

function processWith(f: Registration, n: i32, count: i32): i32 {
  let ok: bool;
  switch (f.kind) {
    case Kind.Map:
    case Kind.KeySelector:
      ok = runMap(f.mapFn!, n, count);
      break;
    case Kind.Filter:
      ok = runFilter(f.filterFn!, n, count);
      break;
    case Kind.FlatMap:
      ok = runFlatMap(f.flatMapFn!, n, count);
      break;
    case Kind.Aggregate:
      fail("function " + f.name + " is an aggregate function: it runs in a window (floe_window), not on records");
      ok = false;
      break;
    default:
      ok = runProcess(f.processFn!, n, count);
  }
  flush();
  const rec = curRec;
  curRec = -1;
  outTs = NO_TIMESTAMP;
  if (!ok) {
    if (failure === null) return report(rec, "floe: truncated input batch");
    return report(rec, failure!);
  }
  return 0;
}

// next decodes the record at off into ctx and val and returns the offset of
// the next record, or 0 when it overruns end.
// @ts-ignore: decorator
@inline
function next(off: usize, end: usize): usize {
  if (end - off < 16) return 0;
  const kl = load<u32>(off);
  const vl = load<u32>(off, 4);
  const ts = load<i64>(off, 8);
  const k = off + 16;
  const v = k + <usize>kl;
  const e = v + <usize>vl;
  if (e > end || e < k) return 0;
  ctx.key.reset(k, kl);
  val.reset(v, vl);
  ctx.ts = ts;
  outTs = ts;
  return e;
}

function runMap(f: MapFn, n: i32, count: i32): bool {
  let off = inBuf;
  const end = inBuf + <usize>n;
  for (let i = 0; i < count; i++) {
    curRec = i;
    off = next(off, end);
    if (off == 0) return false;
    const r = f(val);
    if (failure !== null) return false;
    emitRaw(0, r.dataStart, r.length, outTs);
  }
  return true;
}

function runFilter(f: FilterFn, n: i32, count: i32): bool {
  let off = inBuf;
  const end = inBuf + <usize>n;
  for (let i = 0; i < count; i++) {
    curRec = i;
    off = next(off, end);
    if (off == 0) return false;
    const keep = f(val);
    if (failure !== null) return false;
    if (keep) emitRaw(0, val.dataStart, val.length, outTs);
  }
  return true;
}

function runFlatMap(f: FlatMapFn, n: i32, count: i32): bool {
  let off = inBuf;
  const end = inBuf + <usize>n;
  for (let i = 0; i < count; i++) {
    curRec = i;
    off = next(off, end);
    if (off == 0) return false;
    f(val, output);
    if (failure !== null) return false;
  }
  return true;
}

function runProcess(f: ProcessFn, n: i32, count: i32): bool {
  let off = inBuf;
  const end = inBuf + <usize>n;
  for (let i = 0; i < count; i++) {
    curRec = i;
    ctx.rec = i;
    off = next(off, end);
    if (off == 0) return false;
    f(ctx, val, output);
    if (failure !== null) return false;
  }
  return true;
}

/** floe_on_timer: a timer fired for the key in the buffer's first keyLen bytes. */
export function onTimer(domain: i32, ts: i64, keyLen: i32): i32 {
  const f = fn;
  if (f === null) return report(-1, "floe: floe_on_timer before a successful floe_open");
  // A two-input operator's timers go to its first function's handler, or
  // to its second's when the first has none.
  let h = f.timerFn;
  const g = fn2;
  if (!h && g !== null) h = g.timerFn;
  if (!h) return report(-1, "a timer fired but function " + f.name + " has no onTimer handler");
  curRec = 0;
  ctx.rec = 0;
  ctx.key.reset(inBuf, keyLen);
  outTs = domain == TimeDomain.EventTime ? ts : NO_TIMESTAMP;
  ctx.ts = outTs;
  timer.domain = <TimeDomain>domain;
  timer.timestamp = ts;
  h(ctx, timer, output);
  flush();
  curRec = -1;
  outTs = NO_TIMESTAMP;
  if (failure !== null) return report(-1, failure!);
  return 0;
}

/** floe_close: run the close hooks. */
export function close(): i32 {
  curRec = -1;
  const f = fn;
  if (f !== null) {
    const h = f.closeFn;
    if (h) h();
  }
  const g = fn2;
  if (g !== null && g !== f) {
    const h2 = g.closeFn;
    if (h2) h2();
  }
  for (let i = 0; i < closeHooks.length; i++) closeHooks[i]();
  if (failure !== null) return report(-1, failure!);
  return 0;
}
