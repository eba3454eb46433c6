// A join function gets one record per joined pair; splitPair decodes it.

import { Bytes } from "./bytes";

/**
 * A joined pair, as splitPair decodes it. left and right are views into
 * the record's value, valid during the call only.
 */
export class Pair {
  /** The left record's value. */
  left: Bytes = new Bytes();
  /** The right record's value; empty when hasRight is false. */
  right: Bytes = new Bytes();
  /** False for a left outer join's left row without a match. */
  hasRight: bool = false;
  /** null, or why the frame is malformed ("malformed join pair: ..."). */
  error: string | null = null;
}

/**
 * Decodes the value a join function receives for one joined pair
 * (sdk/ABI.md, "Join functions"): u32 left_len (little-endian), the left
 * value, u8 has_right, then the right value, which is the rest of the
 * frame. A frame shorter than its 5-byte header, whose left_len runs past
 * its end, whose has_right is neither 0 nor 1, or with bytes after a
 * has_right of 0 comes back with error set (and empty left and right):
 * pass it to fail.
 */
export function splitPair(value: Bytes): Pair {
  const p = new Pair();
  const len = value.length;
  if (len < 5) return malformed(p, `${len} bytes is shorter than the 5-byte header`);
  const n = <u64>load<u32>(value.dataStart); // Wasm loads are little-endian
  if (n + 5 > <u64>len) return malformed(p, `a left value of ${n} bytes does not fit in ${len} bytes`);
  const at = 4 + <i32>n;
  const flag = value.at(at);
  if (flag > 1) return malformed(p, `has_right is ${flag}, not 0 or 1`);
  if (flag == 0 && len > at + 1) return malformed(p, `has_right is 0 but ${len - at - 1} right bytes follow`);
  p.left = value.slice(4, at);
  p.right = value.slice(at + 1);
  p.hasRight = flag == 1;
  return p;
}

function malformed(p: Pair, why: string): Pair {
  p.error = "malformed join pair: " + why;
  return p;
}
