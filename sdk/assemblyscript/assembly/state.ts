// Keyed state (value, list, map) and operator list state, typed by T: an
// integer type (stored as the ABI's int64, 8 bytes little-endian), string
// (UTF-8), or bytes (Bytes, Uint8Array, ArrayBuffer). Handles are created at
// the top level of a module; the SDK declares every one to the host when the
// operator opens, whichever function it runs.

import * as abi from "./abi";
import { Bytes } from "./bytes";
import { Context, StateDecl, stateDecls, panic } from "./runtime";

/** How queries render a queryable state's values (ABI state_declare flags, bits 8–15). */
export enum ValueType {
  Bytes = 0,
  Int64 = 1,
  String = 2,
  JSON = 3,
}

/** How operator list state is redistributed when a job is restored at another parallelism. */
export enum Redistribution {
  /** Each new subtask gets a contiguous share of all old subtasks' elements (ABI kind 4). */
  EvenSplit = 4,
  /** Each new subtask gets every old subtask's elements (ABI kind 5). */
  Union = 5,
}

const KIND_VALUE = 1;
const KIND_LIST = 2;
const KIND_MAP = 3;
const KIND_BROADCAST_MAP = 6;
const OPERATOR_REC = -1;

// ---------------------------------------------------------------------------
// Buffers and codecs

/** A growable buffer in linear memory outside the GC heap. */
class Buf {
  ptr: usize = 0; // the buffer, owned
  cap: i32 = 0;
  at: usize = 0; // an encoded value: in the buffer or the value's own bytes
  len: i32 = 0;

  ensure(n: i32): void {
    if (n <= this.cap) return;
    const size = max(n + (n >> 2), 64);
    if (this.ptr != 0) heap.free(this.ptr);
    this.ptr = heap.alloc(<usize>size);
    this.cap = size;
  }
}

// Where state values are read into; every read reuses it.
const scratch = new Buf();
// Where keys and values are encoded before they are handed to the host.
const encKey = new Buf();
const encVal = new Buf();

// The value type a state of T renders as.
// @ts-ignore: decorator
@inline
function valueTypeOf<T>(): i32 {
  if (isInteger<T>()) return ValueType.Int64;
  if (isString<T>()) return ValueType.String;
  return ValueType.Bytes;
}

// Points e at v's encoding: e.at and e.len (e.at may be v's own bytes).
// @ts-ignore: decorator
@inline
function encode<T>(v: T, e: Buf): void {
  if (isInteger<T>()) {
    e.ensure(8);
    store<i64>(e.ptr, <i64>v);
    e.at = e.ptr;
    e.len = 8;
  } else if (isString<T>()) {
    const s = changetype<string>(v);
    const n = s.length;
    e.ensure(n * 3);
    e.at = e.ptr;
    e.len = <i32>String.UTF8.encodeUnsafe(changetype<usize>(s), n, e.ptr);
  } else if (v instanceof Bytes) {
    e.at = v.dataStart;
    e.len = v.length;
  } else if (v instanceof Uint8Array) {
    e.at = v.dataStart;
    e.len = v.byteLength;
  } else if (v instanceof ArrayBuffer) {
    e.at = changetype<usize>(v);
    e.len = v.byteLength;
  } else {
    ERROR("state values are integers, string, Bytes, Uint8Array or ArrayBuffer");
  }
}

// Decodes n bytes at p as a T (a copy: it outlives the next state call).
// @ts-ignore: decorator
@inline
function decode<T>(name: string, p: usize, n: i32): T {
  if (isInteger<T>()) {
    if (n != 8) panic("state \"" + name + "\": int64 state value of " + n.toString() + " bytes, want 8");
    return <T>load<i64>(p);
  } else if (isString<T>()) {
    return changetype<T>(String.UTF8.decodeUnsafe(p, <usize>n));
  } else if (idof<T>() == idof<Bytes>()) {
    return changetype<T>(new Bytes(p, n).copy());
  } else if (idof<T>() == idof<Uint8Array>()) {
    return changetype<T>(new Bytes(p, n).toUint8Array());
  } else if (idof<T>() == idof<ArrayBuffer>()) {
    const b = new ArrayBuffer(n);
    memory.copy(changetype<usize>(b), p, n);
    return changetype<T>(b);
  } else {
    ERROR("state values are integers, string, Bytes, Uint8Array or ArrayBuffer");
    return changetype<T>(0);
  }
}

// The host calls that read into a buffer: the result is the length, -1 when
// absent, and the bytes are written only when they fit.
function readValue(id: i32, rec: i32, b: Buf): i32 {
  let n = abi.value_get(id, rec, b.ptr, b.cap);
  while (n > b.cap) {
    b.ensure(n);
    n = abi.value_get(id, rec, b.ptr, b.cap);
  }
  return n;
}

function readList(id: i32, rec: i32, b: Buf): i32 {
  let n = abi.list_get(id, rec, b.ptr, b.cap);
  while (n > b.cap) {
    b.ensure(n);
    n = abi.list_get(id, rec, b.ptr, b.cap);
  }
  return n;
}

function readMapValue(id: i32, rec: i32, k: Buf, b: Buf): i32 {
  let n = abi.map_get(id, rec, k.at, k.len, b.ptr, b.cap);
  while (n > b.cap) {
    b.ensure(n);
    n = abi.map_get(id, rec, k.at, k.len, b.ptr, b.cap);
  }
  return n;
}

function readEntries(id: i32, rec: i32, b: Buf): i32 {
  let n = abi.map_entries(id, rec, b.ptr, b.cap);
  while (n > b.cap) {
    b.ensure(n);
    n = abi.map_entries(id, rec, b.ptr, b.cap);
  }
  return n;
}

// Decodes a list_get result (u32 length, bytes; repeated) into T elements.
function decodeList<T>(name: string, p: usize, n: i32): T[] {
  const out = new Array<T>();
  const end = p + <usize>n;
  while (p < end) {
    if (end - p < 4) panic("state \"" + name + "\": truncated list");
    const l = load<u32>(p);
    p += 4;
    if (<usize>l > end - p) panic("state \"" + name + "\": truncated list");
    out.push(decode<T>(name, p, <i32>l));
    p += l;
  }
  return out;
}

function declare(kind: i32, name: string, vtype: i32): StateDecl {
  const d = new StateDecl(kind, name, vtype << 8);
  stateDecls.push(d);
  return d;
}

// ---------------------------------------------------------------------------
// Keyed state

/**
 * One value of T per key. Create it at the top level of the module:
 * `const counts = new ValueState<i64>("counts").queryable();`
 */
export class ValueState<T> {
  private d: StateDecl;
  /**
   * Whether the last `get` or `getOrNull` of this handle found a value: with
   * `get(ctx, orElse)` it tells a stored `orElse` from an absent value
   * without a second host call.
   */
  found: bool = false;

  constructor(name: string) {
    this.d = declare(KIND_VALUE, name, valueTypeOf<T>());
  }

  /** Makes the state readable from outside the job under its name. */
  queryable(): this {
    this.d.flags |= 1;
    return this;
  }

  /** Sets how queries render the values (JSON for a string holding JSON). */
  renderAs(t: ValueType): this {
    this.d.flags = (this.d.flags & 0xff) | (<i32>t << 8);
    return this;
  }

  /** The current key's value, or orElse when it is not set (see `found`). */
  get(ctx: Context, orElse: T): T {
    const n = readValue(this.d.id, ctx.rec, scratch);
    this.found = n >= 0;
    if (n < 0) return orElse;
    return decode<T>(this.d.name, scratch.ptr, n);
  }

  /**
   * The current key's value, or null when it is not set. For reference
   * types (string, Bytes, Uint8Array, ArrayBuffer); an integer cannot be
   * null in AssemblyScript, so integer states use `get` and `found`.
   */
  getOrNull(ctx: Context): T | null {
    if (isInteger<T>()) ERROR("getOrNull needs a reference type: use get(ctx, orElse) and found for integers");
    const n = readValue(this.d.id, ctx.rec, scratch);
    this.found = n >= 0;
    if (n < 0) return null;
    return decode<T>(this.d.name, scratch.ptr, n);
  }

  /** Whether the current key's value is set. */
  has(ctx: Context): bool {
    return abi.value_get(this.d.id, ctx.rec, 0, 0) >= 0;
  }

  /** Sets the current key's value. */
  put(ctx: Context, v: T): void {
    encode<T>(v, encVal);
    abi.value_put(this.d.id, ctx.rec, encVal.at, encVal.len);
  }

  /** Removes the current key's value. */
  delete(ctx: Context): void {
    abi.value_delete(this.d.id, ctx.rec);
  }
}

/** A list of T per key. */
export class ListState<T> {
  private d: StateDecl;

  constructor(name: string) {
    this.d = declare(KIND_LIST, name, valueTypeOf<T>());
  }

  /** Makes the state readable from outside the job under its name. */
  queryable(): this {
    this.d.flags |= 1;
    return this;
  }

  /** Sets how queries render the elements. */
  renderAs(t: ValueType): this {
    this.d.flags = (this.d.flags & 0xff) | (<i32>t << 8);
    return this;
  }

  /** Appends v to the current key's list. */
  add(ctx: Context, v: T): void {
    encode<T>(v, encVal);
    abi.list_append(this.d.id, ctx.rec, encVal.at, encVal.len);
  }

  /** The current key's list (empty when none). */
  get(ctx: Context): T[] {
    const n = readList(this.d.id, ctx.rec, scratch);
    if (n < 0) return new Array<T>();
    return decodeList<T>(this.d.name, scratch.ptr, n);
  }

  /** Removes the current key's list. */
  clear(ctx: Context): void {
    abi.list_clear(this.d.id, ctx.rec);
  }
}

/**
 * The entries of a map state, in ascending order of their encoded keys:
 * `const it = m.entries(ctx); while (it.next()) { it.key; it.value }`.
 * It holds its own copy of the entries.
 */
export class MapEntries<K, V> {
  private b: Buf = new Buf();
  private off: usize = 0;
  private end: usize = 0;
  private kp: usize = 0;
  private kl: i32 = 0;
  private vp: usize = 0;
  private vl: i32 = 0;

  constructor(private name: string) {}

  /** @internal */
  load(id: i32, rec: i32): MapEntries<K, V> {
    const n = readEntries(id, rec, this.b);
    this.off = this.b.ptr;
    this.end = this.b.ptr + <usize>max(n, 0);
    return this;
  }

  /** Moves to the next entry; false when there is none. */
  next(): bool {
    const end = this.end;
    let p = this.off;
    if (p >= end) return false;
    if (end - p < 4) panic("state \"" + this.name + "\": truncated map entries");
    const kl = load<u32>(p);
    p += 4;
    if (<usize>kl > end - p || end - p - kl < 4) panic("state \"" + this.name + "\": truncated map entries");
    this.kp = p;
    this.kl = <i32>kl;
    p += kl;
    const vl = load<u32>(p);
    p += 4;
    if (<usize>vl > end - p) panic("state \"" + this.name + "\": truncated map entries");
    this.vp = p;
    this.vl = <i32>vl;
    this.off = p + vl;
    return true;
  }

  /** The entry's key. */
  get key(): K {
    return decode<K>(this.name, this.kp, this.kl);
  }

  /** The entry's value. */
  get value(): V {
    return decode<V>(this.name, this.vp, this.vl);
  }

  /** The entry's key bytes (a view, valid until the next call of next). */
  get rawKey(): Bytes {
    return new Bytes(this.kp, this.kl);
  }

  /** The entry's value bytes (a view, valid until the next call of next). */
  get rawValue(): Bytes {
    return new Bytes(this.vp, this.vl);
  }
}

/** A map from K to V per key. Its value type is V's. */
export class MapState<K, V> {
  private d: StateDecl;
  private it: MapEntries<K, V>;
  /** Whether the last `get` or `getOrNull` of this handle found the map key. */
  found: bool = false;

  constructor(name: string) {
    this.d = declare(KIND_MAP, name, valueTypeOf<V>());
    this.it = new MapEntries<K, V>(name);
  }

  /** Makes the state readable from outside the job under its name. */
  queryable(): this {
    this.d.flags |= 1;
    return this;
  }

  /** Sets how queries render the values. */
  renderAs(t: ValueType): this {
    this.d.flags = (this.d.flags & 0xff) | (<i32>t << 8);
    return this;
  }

  /** The value under k in the current key's map, or orElse (see `found`). */
  get(ctx: Context, k: K, orElse: V): V {
    encode<K>(k, encKey);
    const n = readMapValue(this.d.id, ctx.rec, encKey, scratch);
    this.found = n >= 0;
    if (n < 0) return orElse;
    return decode<V>(this.d.name, scratch.ptr, n);
  }

  /** The value under k in the current key's map, or null: for reference-typed V, as ValueState.getOrNull. */
  getOrNull(ctx: Context, k: K): V | null {
    if (isInteger<V>()) ERROR("getOrNull needs a reference type: use get(ctx, k, orElse) and found for integers");
    encode<K>(k, encKey);
    const n = readMapValue(this.d.id, ctx.rec, encKey, scratch);
    this.found = n >= 0;
    if (n < 0) return null;
    return decode<V>(this.d.name, scratch.ptr, n);
  }

  /** Whether k is in the current key's map. */
  has(ctx: Context, k: K): bool {
    encode<K>(k, encKey);
    return abi.map_get(this.d.id, ctx.rec, encKey.at, encKey.len, 0, 0) >= 0;
  }

  /** Sets k to v in the current key's map. */
  put(ctx: Context, k: K, v: V): void {
    encode<K>(k, encKey);
    encode<V>(v, encVal);
    abi.map_put(this.d.id, ctx.rec, encKey.at, encKey.len, encVal.at, encVal.len);
  }

  /** Removes k from the current key's map. */
  delete(ctx: Context, k: K): void {
    encode<K>(k, encKey);
    abi.map_delete(this.d.id, ctx.rec, encKey.at, encKey.len);
  }

  /**
   * The current key's entries, in ascending order of their encoded keys. The
   * iterator is this state's own: a second call restarts it.
   */
  entries(ctx: Context): MapEntries<K, V> {
    return this.it.load(this.d.id, ctx.rec);
  }

  /** Removes every entry of the current key's map. */
  clear(ctx: Context): void {
    abi.map_clear(this.d.id, ctx.rec);
  }
}

// ---------------------------------------------------------------------------
// Operator state

/**
 * One list of T per operator subtask (not per key), usable by any operator
 * from its open hook on; a restored subtask finds its list already there.
 * `mode` says how lists are redistributed when the job is restored at
 * another parallelism.
 */
export class OperatorListState<T> {
  private d: StateDecl;

  constructor(name: string, mode: Redistribution = Redistribution.EvenSplit) {
    this.d = declare(<i32>mode, name, valueTypeOf<T>());
  }

  /** Appends v to the subtask's list. */
  add(v: T): void {
    encode<T>(v, encVal);
    abi.list_append(this.d.id, OPERATOR_REC, encVal.at, encVal.len);
  }

  /** The subtask's list (empty when none). */
  get(): T[] {
    const n = readList(this.d.id, OPERATOR_REC, scratch);
    if (n < 0) return new Array<T>();
    return decodeList<T>(this.d.name, scratch.ptr, n);
  }

  /** The number of elements in the subtask's list. */
  size(): i32 {
    const n = readList(this.d.id, OPERATOR_REC, scratch);
    let count = 0;
    for (let p = scratch.ptr, end = scratch.ptr + <usize>max(n, 0); p + 4 <= end; count++) p += 4 + <usize>load<u32>(p);
    return count;
  }

  /** Empties the subtask's list. */
  clear(): void {
    abi.list_clear(this.d.id, OPERATOR_REC);
  }
}

// ---------------------------------------------------------------------------
// Broadcast state

/**
 * Broadcast map state (Flink's broadcast state): one map from K to V per
 * subtask, not per key, for an operator with a broadcast input (a job spec's
 * coProcess with `broadcast:`). Every subtask gets every record of the
 * broadcast input; that input's function keeps what they say here, and the
 * keyed input's function reads it. Only the broadcast input's function may
 * write (put, delete, clear): a write anywhere else traps, since every
 * subtask's copy must see the same writes. Checkpointed; every subtask gets
 * the whole map back at a restore, at any parallelism.
 */
export class BroadcastState<K, V> {
  private d: StateDecl;
  private it: MapEntries<K, V>;
  /** Whether the last `get` or `getOrNull` found the key. */
  found: bool = false;

  constructor(name: string) {
    this.d = declare(KIND_BROADCAST_MAP, name, valueTypeOf<V>());
    this.it = new MapEntries<K, V>(name);
  }

  /** The value under k, or orElse (see `found`). */
  get(k: K, orElse: V): V {
    encode<K>(k, encKey);
    const n = readMapValue(this.d.id, OPERATOR_REC, encKey, scratch);
    this.found = n >= 0;
    if (n < 0) return orElse;
    return decode<V>(this.d.name, scratch.ptr, n);
  }

  /** The value under k, or null: for reference-typed V. */
  getOrNull(k: K): V | null {
    if (isInteger<V>()) ERROR("getOrNull needs a reference type: use get(k, orElse) and found for integers");
    encode<K>(k, encKey);
    const n = readMapValue(this.d.id, OPERATOR_REC, encKey, scratch);
    this.found = n >= 0;
    if (n < 0) return null;
    return decode<V>(this.d.name, scratch.ptr, n);
  }

  /** Sets k to v; only in the broadcast input's function. */
  put(k: K, v: V): void {
    encode<K>(k, encKey);
    encode<V>(v, encVal);
    abi.map_put(this.d.id, OPERATOR_REC, encKey.at, encKey.len, encVal.at, encVal.len);
  }

  /** Removes k; only in the broadcast input's function. */
  delete(k: K): void {
    encode<K>(k, encKey);
    abi.map_delete(this.d.id, OPERATOR_REC, encKey.at, encKey.len);
  }

  /** The entries in ascending order of their encoded keys; a second call restarts the iterator. */
  entries(): MapEntries<K, V> {
    return this.it.load(this.d.id, OPERATOR_REC);
  }

  /** Removes every entry; only in the broadcast input's function. */
  clear(): void {
    abi.map_clear(this.d.id, OPERATOR_REC);
  }
}
