// {{.Name}}: Floe operators written with the AssemblyScript SDK.
//
// Word count: "split" cuts lines into lower-cased words, a keyBy in
// job.yaml routes each word to one subtask, and "count" keeps a count per
// word in keyed state and emits "word,count" on every update.
//
//   sh build.sh          # builds {{.Name}}.wasm
//   floe run job.yaml    # reads input.txt, writes out/
//
// The SDK's guide is docs/sdk-assemblyscript.md in Floe's repository.

import * as floe from "floe-sdk/assembly";
import { Builder, Bytes, Context, Output, ValueState } from "floe-sdk/assembly";

// The module's ABI exports (floe_alloc, floe_open, ...): keep this line.
export * from "floe-sdk/assembly/exports";

// word is a reused view of the word being emitted; line is the output record
// being built. Reusing them keeps the per-record path free of allocations.
const word = new Bytes();
const line = new Builder();

// counts holds each word's number of occurrences. It is queryable, so a
// running job answers "how often has this word been seen?".
const counts = new ValueState<i64>("counts").queryable();

floe.flatMap("split", split);
floe.process("count", count);

// split emits the lower-cased words of a line: runs of ASCII letters and
// digits.
function split(value: Bytes, out: Output): void {
  const lower = line.reset().bytes(value).view();
  const p = lower.dataStart;
  let start = -1;
  for (let i = 0; i < lower.length; i++) {
    let c = load<u8>(p + <usize>i);
    if (c >= 0x41 && c <= 0x5a) {
      c += 0x20;
      store<u8>(p + <usize>i, c);
    }
    const inWord = (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39);
    if (inWord && start < 0) start = i;
    if (!inWord && start >= 0) {
      word.reset(p + <usize>start, i - start);
      out.emit(word);
      start = -1;
    }
  }
  if (start >= 0) {
    word.reset(p + <usize>start, lower.length - start);
    out.emit(word);
  }
}

// count adds one to the word's count and emits "word,count".
function count(ctx: Context, value: Bytes, out: Output): void {
  const n = counts.get(ctx, 0) + 1;
  counts.put(ctx, n);
  out.emit(line.reset().bytes(value).byte(0x2c).int(n));
}
