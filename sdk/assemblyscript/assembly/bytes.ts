// Bytes is how records reach an operator, and Builder how it makes new ones,
// without allocating per record.

/**
 * A read-only view of bytes: a record's value or key, a state value. The
 * views the SDK hands to operator functions are valid only during the call;
 * copy what must outlive it (`toString`, `toUint8Array`, `copy`).
 */
@final
export class Bytes {
  /** The address of the first byte in linear memory. */
  dataStart: usize;
  /** The number of bytes. */
  length: i32;
  // Keeps the memory of a view the SDK does not own alive.
  private owner: Object | null = null;

  constructor(dataStart: usize = 0, length: i32 = 0) {
    this.dataStart = dataStart;
    this.length = length;
  }

  /** A view of a copy of s's UTF-8 bytes. */
  static fromString(s: string): Bytes {
    const buf = String.UTF8.encode(s);
    const b = new Bytes(changetype<usize>(buf), buf.byteLength);
    b.owner = buf;
    return b;
  }

  /** A view of a's bytes (no copy: it keeps a alive). */
  static fromUint8Array(a: Uint8Array): Bytes {
    const b = new Bytes(a.dataStart, a.byteLength);
    b.owner = a;
    return b;
  }

  /** Points the view at [dataStart, dataStart+length). For the SDK's reused views. */
  @inline
  reset(dataStart: usize, length: i32): void {
    this.dataStart = dataStart;
    this.length = length;
  }

  get isEmpty(): bool {
    return this.length == 0;
  }

  /** The byte at i; out of range aborts. */
  @operator("[]")
  at(i: i32): u8 {
    if (<u32>i >= <u32>this.length) throw new RangeError("Bytes index out of range");
    return load<u8>(this.dataStart + <usize>i);
  }

  /** The byte at i, unchecked (`unchecked(b[i])`). */
  @inline @operator("{}")
  atUnchecked(i: i32): u8 {
    return load<u8>(this.dataStart + <usize>i);
  }

  /** The index of the first c at or after from, or -1. */
  indexOf(c: u8, from: i32 = 0): i32 {
    const i = findByte(this.dataStart, max(from, 0), this.length, c);
    return i;
  }

  /** Whether b holds the same bytes. */
  equals(b: Bytes): bool {
    return this.length == b.length && memory.compare(this.dataStart, b.dataStart, this.length) == 0;
  }

  /** Whether these bytes are s's UTF-8 encoding. */
  equalsString(s: string): bool {
    const n = s.length;
    const p = this.dataStart;
    if (this.length < n) return false;
    let ascii = true;
    for (let i = 0; i < n; i++) {
      const c = <u32>s.charCodeAt(i);
      if (c >= 0x80) { ascii = false; break; }
      if (i >= this.length || <u32>load<u8>(p + <usize>i) != c) return false;
    }
    if (ascii) return this.length == n;
    return this.equals(Bytes.fromString(s));
  }

  /** Whether these bytes start with s's UTF-8 encoding. */
  startsWith(s: string): bool {
    const n = s.length;
    const p = this.dataStart;
    for (let i = 0; i < n; i++) {
      const c = <u32>s.charCodeAt(i);
      if (c >= 0x80) {
        const prefix = Bytes.fromString(s);
        return this.length >= prefix.length && memory.compare(p, prefix.dataStart, prefix.length) == 0;
      }
      if (i >= this.length || <u32>load<u8>(p + <usize>i) != c) return false;
    }
    return true;
  }

  /** A view of [start, end), clamped to these bytes (no copy). */
  slice(start: i32, end: i32 = i32.MAX_VALUE): Bytes {
    const n = this.length;
    start = start < 0 ? max(n + start, 0) : min(start, n);
    end = end < 0 ? max(n + end, 0) : min(end, n);
    const b = new Bytes(this.dataStart + <usize>start, max(end - start, 0));
    b.owner = this.owner;
    return b;
  }

  /** The bytes decoded as UTF-8 (a new string). */
  toString(): string {
    return String.UTF8.decodeUnsafe(this.dataStart, <usize>this.length);
  }

  /** A copy of the bytes. */
  toUint8Array(): Uint8Array {
    const a = new Uint8Array(this.length);
    memory.copy(a.dataStart, this.dataStart, this.length);
    return a;
  }

  /** A copy of the bytes that stays valid after the call: a view that owns its memory. */
  copy(): Bytes {
    return Bytes.fromUint8Array(this.toUint8Array());
  }

  /**
   * The bytes as a decimal integer: an optional '-' and 1 to 18 digits, else
   * `orElse`.
   */
  parseI64(orElse: i64 = 0): i64 {
    const neg = this.length > 0 && load<u8>(this.dataStart) == 0x2d;
    const v = parseDigits(this.dataStart + <usize>neg, this.length - <i32>neg);
    return v < 0 ? orElse : neg ? -v : v;
  }

  /**
   * The bytes [start, end) as a non-negative decimal integer of 1 to 18 ASCII
   * digits, or -1. It reads 8 digits at a time.
   */
  parseDigits(start: i32 = 0, end: i32 = i32.MAX_VALUE): i64 {
    end = min(end, this.length);
    if (start < 0 || start > end) return -1;
    return parseDigits(this.dataStart + <usize>start, end - start);
  }
}

const ONES: u64 = 0x0101010101010101;
const ZEROS: u64 = 0x3030303030303030;

// The k (1 to 8) digits at p, or -1 when one is not a digit. It loads 8
// bytes at p.
// @ts-ignore: decorator
@inline
function parse8(p: usize, k: i32): i64 {
  let x = load<u64>(p);
  if (k < 8) x = (x << (<u64>(8 - k) << 3)) | (ZEROS >> (<u64>k << 3));
  // Every byte in '0'..'9' (simdjson's is_made_of_eight_digits_fast).
  if (((x & 0xf0f0f0f0f0f0f0f0) | (((x + 0x0606060606060606) & 0xf0f0f0f0f0f0f0f0) >> 4)) != 0x3333333333333333) return -1;
  // Lemire's parse_eight_digits_unrolled: the first digit is the lowest byte.
  x -= ZEROS;
  x = x * 10 + (x >> 8);
  x = ((x & 0x000000ff000000ff) * (100 + (1000000 << 32)) + ((x >> 16) & 0x000000ff000000ff) * (1 + (10000 << 32))) >> 32;
  return <i64>x;
}

/** The n bytes at p as a decimal integer of 1 to 18 digits, or -1. */
export function parseDigits(p: usize, n: i32): i64 {
  if (n < 1 || n > 18) return -1;
  if (p + <usize>n + 8 > <usize>memory.size() << 16) {
    // Too close to the end of memory to read 8 bytes at a time.
    let v: i64 = 0;
    for (let i = 0; i < n; i++) {
      const d = <u32>load<u8>(p + <usize>i) - 0x30;
      if (d > 9) return -1;
      v = v * 10 + <i64>d;
    }
    return v;
  }
  const k = ((n - 1) & 7) + 1;
  let v = parse8(p, k);
  if (v < 0 || k == n) return v;
  p += <usize>k;
  const a = parse8(p, 8);
  if (a < 0) return -1;
  v = v * 100000000 + a;
  if (k + 8 == n) return v;
  const b = parse8(p + 8, 8);
  if (b < 0) return -1;
  return v * 100000000 + b;
}

/**
 * A growable byte buffer to build output records in. Reuse one per function
 * (a global) and `reset` it per record: building then allocates nothing once
 * the buffer is large enough.
 */
@final
export class Builder {
  private buf: ArrayBuffer;
  private len: i32 = 0;
  private v: Bytes = new Bytes();

  constructor(capacity: i32 = 64) {
    this.buf = new ArrayBuffer(max(capacity, 16));
  }

  /** The number of bytes built. */
  get length(): i32 {
    return this.len;
  }

  /** The byte at i; out of range aborts. */
  @operator("[]")
  at(i: i32): u8 {
    if (<u32>i >= <u32>this.len) throw new RangeError("Builder index out of range");
    return load<u8>(changetype<usize>(this.buf) + <usize>i);
  }

  /** Sets the byte at i; out of range aborts. */
  @operator("[]=")
  set(i: i32, c: u8): void {
    if (<u32>i >= <u32>this.len) throw new RangeError("Builder index out of range");
    store<u8>(changetype<usize>(this.buf) + <usize>i, c);
  }

  /** Empties the builder, keeping its memory. */
  reset(): Builder {
    this.len = 0;
    return this;
  }

  /** Drops the bytes after the first n. */
  truncate(n: i32): Builder {
    if (n < this.len) this.len = max(n, 0);
    return this;
  }

  /** Appends one byte. */
  byte(c: u8): Builder {
    this.reserve(1);
    store<u8>(changetype<usize>(this.buf) + <usize>this.len, c);
    this.len++;
    return this;
  }

  /** Appends b's bytes. */
  bytes(b: Bytes): Builder {
    return this.raw(b.dataStart, b.length);
  }

  /** Appends n bytes at ptr. */
  raw(ptr: usize, n: i32): Builder {
    this.reserve(n);
    memory.copy(changetype<usize>(this.buf) + <usize>this.len, ptr, n);
    this.len += n;
    return this;
  }

  /** Appends s's UTF-8 encoding. */
  string(s: string): Builder {
    const n = s.length;
    this.reserve(n);
    let p = changetype<usize>(this.buf) + <usize>this.len;
    const sp = changetype<usize>(s);
    for (let i = 0; i < n; i++) {
      const c = load<u16>(sp + (<usize>i << 1));
      if (c >= 0x80) {
        this.len += i;
        return this.utf8(s, i);
      }
      store<u8>(p + <usize>i, <u8>c);
    }
    this.len += n;
    return this;
  }

  private utf8(s: string, from: i32): Builder {
    const rest = s.length - from;
    this.reserve(rest * 3);
    const p = changetype<usize>(this.buf) + <usize>this.len;
    this.len += <i32>String.UTF8.encodeUnsafe(changetype<usize>(s) + (<usize>from << 1), rest, p);
    return this;
  }

  /** Appends v in decimal ASCII ('-' first when negative). */
  int(v: i64): Builder {
    this.reserve(20);
    this.len += writeDecimal(changetype<usize>(this.buf) + <usize>this.len, v);
    return this;
  }

  /** Appends v as 8 bytes, little-endian. */
  i64le(v: i64): Builder {
    this.reserve(8);
    store<i64>(changetype<usize>(this.buf) + <usize>this.len, v);
    this.len += 8;
    return this;
  }

  /** A view of the bytes built, valid until the builder changes. */
  view(): Bytes {
    this.v.reset(changetype<usize>(this.buf), this.len);
    return this.v;
  }

  /** The bytes built, decoded as UTF-8. */
  toString(): string {
    return String.UTF8.decodeUnsafe(changetype<usize>(this.buf), <usize>this.len);
  }

  /** Makes room for n more bytes. */
  @inline
  reserve(n: i32): void {
    if (this.len + n > this.buf.byteLength) this.grow(n);
  }

  private grow(n: i32): void {
    const size = max(this.buf.byteLength * 2, this.len + n);
    const nb = new ArrayBuffer(size);
    memory.copy(changetype<usize>(nb), changetype<usize>(this.buf), this.len);
    this.buf = nb;
  }
}

// The last address of linear memory that a 16-byte load may start at.
// @ts-ignore: decorator
@inline
function lastLoad(): usize {
  return (<usize>memory.size() << 16) - 16;
}

/**
 * The index of the first c in [p+from, p+n), or -1. It reads 16 bytes at a
 * time (8 without SIMD): a WebAssembly host that checks for interruption on
 * every loop iteration makes byte-at-a-time scans slow.
 */
export function findByte(p: usize, from: i32, n: i32, c: u8): i32 {
  let i = from;
  if (ASC_FEATURE_SIMD) {
    const needle = i8x16.splat(<i8>c);
    while (i + 16 <= n) {
      const m = i8x16.bitmask(i8x16.eq(v128.load(p + <usize>i), needle));
      if (m != 0) return i + <i32>ctz(m);
      i += 16;
    }
    if (i < n && p + <usize>i <= lastLoad()) {
      // The tail: one load past the end, masked to the bytes before it.
      const m = i8x16.bitmask(i8x16.eq(v128.load(p + <usize>i), needle)) & ((1 << (n - i)) - 1);
      return m != 0 ? i + <i32>ctz(m) : -1;
    }
  } else {
    const ones: u64 = 0x0101010101010101;
    const highs: u64 = 0x8080808080808080;
    const needle = ones * <u64>c;
    while (i + 8 <= n) {
      const x = load<u64>(p + <usize>i) ^ needle;
      const t = (x - ones) & ~x & highs;
      if (t != 0) return i + <i32>(ctz(t) >> 3);
      i += 8;
    }
  }
  for (; i < n; i++) {
    if (load<u8>(p + <usize>i) == c) return i;
  }
  return -1;
}

// DIGITS holds "00" to "99".
const DIGITS = memory.data<u8>([
  48,48,48,49,48,50,48,51,48,52,48,53,48,54,48,55,48,56,48,57,
  49,48,49,49,49,50,49,51,49,52,49,53,49,54,49,55,49,56,49,57,
  50,48,50,49,50,50,50,51,50,52,50,53,50,54,50,55,50,56,50,57,
  51,48,51,49,51,50,51,51,51,52,51,53,51,54,51,55,51,56,51,57,
  52,48,52,49,52,50,52,51,52,52,52,53,52,54,52,55,52,56,52,57,
  53,48,53,49,53,50,53,51,53,52,53,53,53,54,53,55,53,56,53,57,
  54,48,54,49,54,50,54,51,54,52,54,53,54,54,54,55,54,56,54,57,
  55,48,55,49,55,50,55,51,55,52,55,53,55,54,55,55,55,56,55,57,
  56,48,56,49,56,50,56,51,56,52,56,53,56,54,56,55,56,56,56,57,
  57,48,57,49,57,50,57,51,57,52,57,53,57,54,57,55,57,56,57,57,
]);

// The number of decimal digits of u.
function digitCount(u: u64): i32 {
  if (u < 100000000) {
    if (u < 10000) return u < 100 ? (u < 10 ? 1 : 2) : u < 1000 ? 3 : 4;
    return u < 1000000 ? (u < 100000 ? 5 : 6) : u < 10000000 ? 7 : 8;
  }
  let n = 8;
  for (let t = u / 100000000; t != 0; t /= 10) n++;
  return n;
}

// Writes the last two digits of u before e and returns e - 2.
// @ts-ignore: decorator
@inline
function pair(e: usize, u: u64): usize {
  store<u16>(e - 2, load<u16>(DIGITS + (<usize>(u % 100) << 1)));
  return e - 2;
}

/** Writes v in decimal at p and returns the number of bytes (at most 20). */
export function writeDecimal(p: usize, v: i64): i32 {
  let u: u64 = v < 0 ? 0 - <u64>v : <u64>v;
  let off = 0;
  if (v < 0) {
    store<u8>(p, 0x2d);
    off = 1;
  }
  const n = digitCount(u);
  let e = p + <usize>(off + n);
  // Two digits at a time; the first four pairs without a loop (a WebAssembly
  // host that checks for interruption on every loop iteration makes loops
  // dear).
  if (u >= 100) {
    e = pair(e, u);
    u /= 100;
    if (u >= 100) {
      e = pair(e, u);
      u /= 100;
      while (u >= 100) {
        e = pair(e, u);
        u /= 100;
      }
    }
  }
  if (u >= 10) {
    store<u16>(e - 2, load<u16>(DIGITS + (<usize>u << 1)));
  } else {
    store<u8>(e - 1, <u8>(0x30 + <u32>u));
  }
  return off + n;
}
