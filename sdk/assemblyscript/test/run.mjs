// Unit tests of the SDK: builds test/ops.ts and runs its operators on a fake
// floe_v1 host written here (the real host's tests are the conformance suite,
// udfs/conformance). Run with `npm test`.

import asc from "assemblyscript/asc";
import assert from "node:assert/strict";

const enc = new TextEncoder();
const dec = new TextDecoder();
const MIN = -(2n ** 63n);

async function build() {
  const out = {};
  const { error, stderr } = await asc.main(
    ["test/ops.ts", "-o", "ops.wasm", "--runtime", "incremental", "-O3", "--noAssert", "--enable", "simd",
      "--use", "abort=assembly/runtime/floeAbort"],
    { writeFile: (name, contents) => { out[name] = contents; } },
  );
  if (error) throw new Error(`asc: ${error.message}\n${stderr.toString()}`);
  return out["ops.wasm"];
}

// Host is one operator instance on the fake host.
class Host {
  constructor(module, fn, params = {}, keyed = false) {
    this.states = [];
    this.values = new Map();
    this.lists = new Map();
    this.maps = new Map();
    this.outputs = [];
    this.logs = [];
    this.stderr = "";
    this.keyed = keyed;
    this.batch = null;
    const host = this;
    const mem = () => new Uint8Array(host.inst.exports.memory.buffer);
    const bytes = (p, n) => mem().slice(p, p + n);
    const give = (v, buf, cap) => {
      if (v.length <= cap) mem().set(v, buf);
      return v.length;
    };
    const state = (id, kinds) => {
      const s = host.states[id];
      assert.ok(s && kinds.includes(s.kind), `state ${id} used as kind ${kinds}`);
      return s;
    };
    const scope = (id, rec, kinds) => {
      const s = state(id, kinds);
      if (s.kind >= 4) return `${id}`;
      assert.ok(host.keyed && host.batch && rec >= 0 && rec < host.batch.length, `keyed state with rec ${rec}`);
      return `${id}/${dec.decode(host.batch[rec].key)}`;
    };
    const latin1 = (b) => String.fromCharCode(...b);
    const unlatin1 = (s) => Uint8Array.from(s, (c) => c.charCodeAt(0));
    const concat = (parts) => {
      const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let off = 0;
      for (const p of parts) { out.set(p, off); off += p.length; }
      return out;
    };
    const u32 = (n) => { const b = new Uint8Array(4); new DataView(b.buffer).setUint32(0, n, true); return b; };
    const imports = {
      floe_v1: {
        emit(p, n) {
          const dv = new DataView(host.inst.exports.memory.buffer, p, n);
          for (let off = 0; off < n;) {
            const port = dv.getUint32(off, true), len = dv.getUint32(off + 4, true), ts = dv.getBigInt64(off + 8, true);
            host.outputs.push({ port, value: dec.decode(bytes(p + off + 16, len)), raw: bytes(p + off + 16, len), ts: ts === MIN ? null : Number(ts) });
            off += 16 + len;
          }
        },
        output_declare(p, n) { return 1 + (host.ports ??= []).push(dec.decode(bytes(p, n))) - 1; },
        fail(rec, p, n) { host.failure = { rec, msg: dec.decode(bytes(p, n)) }; },
        log(level, p, n) { host.logs.push(`${level}:${dec.decode(bytes(p, n))}`); },
        state_declare(kind, p, n, flags) {
          host.states.push({ kind, name: dec.decode(bytes(p, n)), flags });
          return host.states.length - 1;
        },
        value_get(id, rec, buf, cap) {
          const v = host.values.get(scope(id, rec, [1]));
          return v === undefined ? -1 : give(v, buf, cap);
        },
        value_put(id, rec, p, n) { host.values.set(scope(id, rec, [1]), bytes(p, n)); },
        value_delete(id, rec) { host.values.delete(scope(id, rec, [1])); },
        list_append(id, rec, p, n) {
          const k = scope(id, rec, [2, 4, 5]);
          host.lists.set(k, [...(host.lists.get(k) ?? []), bytes(p, n)]);
        },
        list_get(id, rec, buf, cap) {
          const l = host.lists.get(scope(id, rec, [2, 4, 5])) ?? [];
          return l.length === 0 ? -1 : give(concat(l.flatMap((e) => [u32(e.length), e])), buf, cap);
        },
        list_clear(id, rec) { host.lists.delete(scope(id, rec, [2, 4, 5])); },
        map_get(id, rec, kp, kn, buf, cap) {
          const v = host.maps.get(scope(id, rec, [3]))?.get(latin1(bytes(kp, kn)));
          return v === undefined ? -1 : give(v, buf, cap);
        },
        map_put(id, rec, kp, kn, vp, vn) {
          const k = scope(id, rec, [3]);
          if (!host.maps.has(k)) host.maps.set(k, new Map());
          host.maps.get(k).set(latin1(bytes(kp, kn)), bytes(vp, vn));
        },
        map_delete(id, rec, kp, kn) { host.maps.get(scope(id, rec, [3]))?.delete(latin1(bytes(kp, kn))); },
        map_entries(id, rec, buf, cap) {
          const m = host.maps.get(scope(id, rec, [3]));
          if (!m || m.size === 0) return -1;
          const keys = [...m.keys()].sort();
          return give(concat(keys.flatMap((k) => [u32(k.length), unlatin1(k), u32(m.get(k).length), m.get(k)])), buf, cap);
        },
        map_clear(id, rec) { host.maps.delete(scope(id, rec, [3])); },
        timer_register() { throw new Error("timers are tested by the conformance suite"); },
        timer_delete() { throw new Error("timers are tested by the conformance suite"); },
        current_watermark() { return MIN; },
        processing_time() { return 0n; },
      },
      wasi_snapshot_preview1: {
        fd_write(fd, iovs, n, written) {
          const dv = new DataView(host.inst.exports.memory.buffer);
          for (let i = 0; i < n; i++) {
            host.stderr += dec.decode(bytes(dv.getUint32(iovs + 8 * i, true), dv.getUint32(iovs + 8 * i + 4, true)));
          }
          return 0;
        },
      },
    };
    this.inst = new WebAssembly.Instance(module, imports);
    const all = { "floe.function": fn, "floe.subtask": "0", "floe.parallelism": "1", ...params };
    const block = concat([u32(Object.keys(all).length),
      ...Object.entries(all).flatMap(([k, v]) => [u32(enc.encode(k).length), enc.encode(k), u32(enc.encode(v).length), enc.encode(v)])]);
    this.status = this.call(() => this.inst.exports.floe_open(this.write(block)));
  }

  write(b) {
    const p = this.inst.exports.floe_alloc(b.length);
    new Uint8Array(this.inst.exports.memory.buffer).set(b, p);
    return b.length;
  }

  call(f) {
    this.failure = null;
    try {
      return f();
    } catch (e) {
      return `trap: ${e.message}`;
    }
  }

  // process runs one batch of records ("value", or [key, value, ts]) and
  // returns its outputs as "port@ts value" lines, or the failure.
  process(records) {
    this.batch = records.map((r) => typeof r === "string" || r instanceof Uint8Array
      ? { key: new Uint8Array(), value: typeof r === "string" ? enc.encode(r) : r, ts: MIN }
      : { key: enc.encode(r[0]), value: enc.encode(r[1]), ts: BigInt(r[2]) });
    const parts = [];
    for (const r of this.batch) {
      const h = new Uint8Array(16);
      const dv = new DataView(h.buffer);
      dv.setUint32(0, r.key.length, true);
      dv.setUint32(4, r.value.length, true);
      dv.setBigInt64(8, r.ts, true);
      parts.push(h, r.key, r.value);
    }
    const n = parts.reduce((a, p) => a + p.length, 0);
    const p = this.inst.exports.floe_alloc(n);
    const m = new Uint8Array(this.inst.exports.memory.buffer);
    let off = p;
    for (const part of parts) { m.set(part, off); off += part.length; }
    this.outputs = [];
    const status = this.call(() => this.inst.exports.floe_process(n, records.length));
    this.batch = null;
    const lines = this.outputs.map((o) => `${o.port}@${o.ts ?? "-"} ${o.value}`);
    if (status !== 0) lines.push(this.failure ? `error: record ${this.failure.rec}: ${this.failure.msg}` : `error: ${status}`);
    return lines;
  }

  close() {
    return this.call(() => this.inst.exports.floe_close()) === 0 ? "ok" : `error: ${this.failure?.msg}`;
  }
}

const tests = {
  helpers(m) {
    const h = new Host(m, "helpers");
    assert.equal(h.status, 0);
    assert.deepEqual(h.process(["digits 0", "digits 123456789012345678", "digits 1234567890123456789", "digits 12a", "digits "]),
      ["0@- 0", "0@- 123456789012345678", "0@- -1", "0@- -1", "0@- -1"]);
    assert.deepEqual(h.process(["i64 -42", "i64 x", "i64 -", "i64 99999999"]), ["0@- -42", "0@- -7", "0@- -7", "0@- 99999999"]);
    const text = "a,bb,,ccccccccccccccccccccccccccccccc,d";
    const want = [...Array(text.length + 1).keys()].map((i) => text.indexOf(",", i)).join(" ") + " ";
    assert.deepEqual(h.process([`index , ${text}`]), [`0@- ${want}`]);
    assert.deepEqual(h.process(["starts héllo world", "starts hello", "equals héllo", "equals héllo!", "equals hello"]),
      ["0@- yes", "0@- no", "0@- yes", "0@- no", "0@- no"]);
    assert.deepEqual(h.process(["string ü", "roundtrip ✓ ok", "copy abc", "swap abc"]), ["0@- né ü 😀", "0@- ✓ ok", "0@- abc", "0@- cba"]);
    assert.deepEqual(h.process([["", "at x", 7]]), ["0@42 x", "0@- x"]);
    assert.deepEqual(h.process(["nope"]), ["error: record 0: unknown command nope"]);
  },
  pair(m) {
    // Frames written out byte by byte from sdk/ABI.md's "Join functions":
    // u32 left_len little-endian, left, u8 has_right, right.
    const u8 = (...a) => Uint8Array.from(a, (x) => typeof x === "string" ? x.charCodeAt(0) : x);
    const h = new Host(m, "pair");
    assert.equal(h.status, 0);
    assert.deepEqual(h.process([
      u8(2, 0, 0, 0, "l", "1", 1, "r", "1", "2"), // a pair
      u8(0, 0, 0, 0, 1, "r"), // an empty left
      u8(3, 0, 0, 0, "a", "b", "c", 1), // an empty right
      u8(1, 0, 0, 0, "x", 0), // an unmatched left
      u8(0, 0, 0, 0, 1), // both empty
    ]), ["0@- l1|r12", "0@- |r", "0@- abc|", "0@- x|-0", "0@- |"]);
    for (const [frame, msg] of [
      [u8(), "0 bytes is shorter than the 5-byte header"],
      [u8(0, 0, 0, 0), "4 bytes is shorter than the 5-byte header"],
      [u8(3, 0, 0, 0, "a", "b", 1), "a left value of 3 bytes does not fit in 7 bytes"],
      [u8(2, 0, 0, 0, "a", "b"), "a left value of 2 bytes does not fit in 6 bytes"],
      [u8(0xff, 0xff, 0xff, 0xff, 1), "a left value of 4294967295 bytes does not fit in 5 bytes"],
      [u8(1, 0, 0, 0, "a", 2, "b"), "has_right is 2, not 0 or 1"],
      [u8(1, 0, 0, 0, "a", 0, "b", "c"), "has_right is 0 but 2 right bytes follow"],
    ]) {
      assert.deepEqual(h.process([frame]), [`error: record 0: malformed join pair: ${msg}`]);
    }
  },
  decimal(m) {
    const h = new Host(m, "decimal");
    assert.deepEqual(h.process(["x"]),
      [`0@- 0 9 10 99 100 12345678 123456789 -1 ${2n ** 63n - 1n} ${MIN} 123 2 39 -1 3`]);
  },
  throws(m) {
    const h = new Host(m, "helpers");
    const out = h.process(["digits 1", "throw it"]);
    assert.match(out[0], /^error: record 1: thrown it at test\/ops\.ts:\d+:\d+$/);
    assert.match(h.stderr, /^floe: thrown it at test\/ops\.ts/);
  },
  functions(m) {
    assert.deepEqual(new Host(m, "upper-key").process([["k", "a", 3], "b"]), ["0@3 a!", "0@- b!"]);
    assert.deepEqual(new Host(m, "first").process(["a,b", "c"]), ["0@- a", "0@- c"]);
    assert.deepEqual(new Host(m, "short").process(["abc", "abcd", "", "bad", "x"]), ["0@- abc", "0@- ", "error: record 3: bad record"]);
    const h = new Host(m, "no-such");
    assert.equal(h.status, 1);
    assert.match(h.failure.msg, /^no function "no-such" in this module \(registered: helpers, decimal, /);
  },
  state(m) {
    const h = new Host(m, "state", {}, true);
    assert.deepEqual(h.states.map((s) => [s.name, s.kind, s.flags]),
      [["names", 1, 0x201], ["blobs", 1, 0x300], ["arrays", 1, 0], ["events", 2, 0x200], ["tags", 3, 0x200], ["opl", 5, 0x200],
        ["n64", 1, 0x100], ["strs", 1, 0x200], ["counted", 3, 0x100], ["labels", 3, 0x200]]);
    assert.deepEqual(h.process([["k", "b", 1], ["k", "a", 2], ["j", "é", 3]]), [
      "0@1 k:bé|b|b|b|b!|false|true|b=b!;",
      "0@2 k:aé|a|a|b+a|a!|false|true|a=a!;b=b!;",
      "0@3 j:éé|é|é|é|é!|false|true|é=é!;",
    ]);
    assert.deepEqual(h.process([["k", "clear", 4]]), ["0@4 k:clearé|clear|clear|b+a+clear|clear!|false|true|a=a!;b=b!;clear=clear!;", "0@4 cleared false 0 1"]);
  },
  absent(m) {
    const h = new Host(m, "absent", {}, true);
    // An absent integer returns orElse with found false; a stored value equal
    // to orElse has found true.
    assert.deepEqual(h.process([["k", "get", 1]]), ["0@1 -1 false"]);
    assert.deepEqual(h.process([["k", "put -1", 2], ["k", "get", 3], ["k", "put 0", 4], ["k", "get", 5], ["j", "get", 6]]),
      ["0@3 -1 true", "0@5 0 true", "0@6 -1 false"]);
    // getOrNull: null when absent, the empty string when that is stored.
    assert.deepEqual(h.process([["k", "str", 1], ["k", "str ", 2], ["k", "str", 3], ["k", "str é", 4], ["k", "str", 5]]),
      ["0@1 null false", "0@3 [] true", "0@5 [é] true"]);
    // Maps: the first lookup of x finds nothing, the second finds the 0 and
    // the empty label stored after the first.
    assert.deepEqual(h.process([["k", "map x", 1], ["k", "map x", 2], ["k", "map y", 3]]),
      ["0@1 x=0 false null false", "0@2 x=0 true  true", "0@3 y=0 false null false"]);
  },
  sql(m) {
    // Rows and results worked by hand from sdk/ABI.md's "SQL functions"
    // table; sqlnext returns its last argument's successor (test/ops.ts).
    const h = new Host(m, "sqlnext");
    const b = (...x) => Uint8Array.from(x);
    const long = (tag, n) => [tag, n & 0x7f | 0x80, n >> 7, ...Array(n).fill(0x78)];
    const cases = [
      [b(0), b(0)],
      [b(1, 1), b(1, 0)],
      [b(1, 0), b(1, 1)],
      [b(2, 0xf3, 0x01, 0, 0, 0, 0, 0, 0), b(2, 0xf4, 0x01, 0, 0, 0, 0, 0, 0)], // 499 -> 500
      [b(2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), b(2, 0, 0, 0, 0, 0, 0, 0, 0)], // -1 -> 0
      [b(3, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f), b(3, 0, 0, 0, 0, 0, 0, 0x08, 0x40)], // 1.5 -> 3.0
      [b(4, 3, 0x61, 0x62, 0x63), b(4, 4, 0x61, 0x62, 0x63, 0x21)], // 'abc' -> 'abc!'
      [b(4, 0), b(4, 1, 0x21)], // '' -> '!'
      [b(0, 4, 1, 0x61, 1, 1), b(1, 0)], // NULL, 'a', TRUE -> FALSE
      [b(...long(4, 200)), b(4, 0xc9, 0x01, ...Array(200).fill(0x78), 0x21)], // 200 bytes: length c8 01
    ];
    assert.deepEqual(h.process(cases.map((c) => c[0])).length, cases.length);
    cases.forEach((c, i) => assert.deepEqual(h.outputs[i].raw, c[1], `case ${i}`));
    for (const [row, k] of [[b(2, 1, 2, 3), 1], [b(0, 1), 2], [b(4, 5, 0x61), 1], [b(4, 0x80), 1], [b(0, 0, 9), 3]]) {
      assert.deepEqual(new Host(m, "sqlnext").process([row]), [`error: record 0: value ${k}: not an encoded SQL value`]);
    }
    assert.deepEqual(new Host(m, "sqlnext").process([b()]), ["error: record 0: no arguments"]);
  },
  params(m) {
    let h = new Host(m, "params", { n: "12", log: "hi" });
    assert.equal(h.status, 0);
    assert.deepEqual(h.process(["x"]), ["0@- params/12"]);
    assert.deepEqual(h.logs, ["2:opened with hi"]);
    assert.equal(h.close(), "ok");
    h = new Host(m, "params", { n: "1x" });
    assert.equal(h.status, 1);
    assert.equal(h.failure.msg, 'parameter n: "1x" is not an integer');
    h = new Host(m, "params", { n: "13" });
    assert.equal(h.close(), "error: unlucky close");
  },
};

const module = new WebAssembly.Module(await build());
let failed = 0;
for (const [name, t] of Object.entries(tests)) {
  try {
    t(module);
    console.log(`ok   ${name}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${e.stack}`);
  }
}
if (failed) process.exit(1);
