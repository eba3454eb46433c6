// The module's exports (sdk/ABI.md, "Guest exports"). An operator module
// re-exports them from its entry file:
//
//   export * from "floe-sdk/assembly/exports";

import * as rt from "./runtime";
import { sqlWindow } from "./sqlagg";

/** Returns a buffer of at least size bytes for the host to write into. */
export function floe_alloc(size: i32): usize {
  return rt.alloc(size);
}

/** Opens the operator with the parameter block in the buffer's first n bytes. */
export function floe_open(n: i32): i32 {
  return rt.open(n);
}

/** Processes count records laid out in the buffer's first n bytes. */
export function floe_process(n: i32, count: i32): i32 {
  return rt.processBatch(n, count);
}

/** Processes count records of a two-input operator's second input (sdk/ABI.md, "Two-input operators"). */
export function floe_process2(n: i32, count: i32): i32 {
  return rt.processBatch2(n, count);
}

/** Lists the registered functions and their kinds (sdk/ABI.md, "Function table"). */
export function floe_functions(): i64 {
  return rt.functions();
}

/** Closes the operator. */
export function floe_close(): i32 {
  return rt.close();
}

/** A timer fired for the key in the buffer's first keyLen bytes. */
export function floe_on_timer(domain: i32, timestamp: i64, keyLen: i32): i32 {
  return rt.onTimer(domain, timestamp, keyLen);
}

/** Runs a window function's op over the payload in the buffer's first n bytes (sdk/ABI.md, "Window functions"). */
export function floe_window(op: i32, n: i32): i32 {
  return sqlWindow(op, n);
}
