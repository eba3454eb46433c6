// The floe_v1 host functions (sdk/ABI.md, "Host functions"). Pointers are
// offsets into this module's memory; the host copies what it is handed
// before it returns. These declarations are the SDK's own: operators use the
// typed API in index.ts.

// @ts-ignore: decorator
@external("floe_v1", "emit")
export declare function emit(ptr: usize, len: i32): void;

// @ts-ignore: decorator
@external("floe_v1", "output_declare")
export declare function output_declare(namePtr: usize, nameLen: i32): i32;

// @ts-ignore: decorator
@external("floe_v1", "fail")
export declare function fail(rec: i32, ptr: usize, len: i32): void;

// @ts-ignore: decorator
@external("floe_v1", "log")
export declare function log(level: i32, ptr: usize, len: i32): void;

// @ts-ignore: decorator
@external("floe_v1", "state_declare")
export declare function state_declare(kind: i32, namePtr: usize, nameLen: i32, flags: i32): i32;

// @ts-ignore: decorator
@external("floe_v1", "value_get")
export declare function value_get(state: i32, rec: i32, buf: usize, cap: i32): i32;

// @ts-ignore: decorator
@external("floe_v1", "value_put")
export declare function value_put(state: i32, rec: i32, ptr: usize, len: i32): void;

// @ts-ignore: decorator
@external("floe_v1", "value_delete")
export declare function value_delete(state: i32, rec: i32): void;

// @ts-ignore: decorator
@external("floe_v1", "list_append")
export declare function list_append(state: i32, rec: i32, ptr: usize, len: i32): void;

// @ts-ignore: decorator
@external("floe_v1", "list_get")
export declare function list_get(state: i32, rec: i32, buf: usize, cap: i32): i32;

// @ts-ignore: decorator
@external("floe_v1", "list_clear")
export declare function list_clear(state: i32, rec: i32): void;

// @ts-ignore: decorator
@external("floe_v1", "map_get")
export declare function map_get(state: i32, rec: i32, kptr: usize, klen: i32, buf: usize, cap: i32): i32;

// @ts-ignore: decorator
@external("floe_v1", "map_put")
export declare function map_put(state: i32, rec: i32, kptr: usize, klen: i32, vptr: usize, vlen: i32): void;

// @ts-ignore: decorator
@external("floe_v1", "map_delete")
export declare function map_delete(state: i32, rec: i32, kptr: usize, klen: i32): void;

// @ts-ignore: decorator
@external("floe_v1", "map_entries")
export declare function map_entries(state: i32, rec: i32, buf: usize, cap: i32): i32;

// @ts-ignore: decorator
@external("floe_v1", "map_clear")
export declare function map_clear(state: i32, rec: i32): void;

// @ts-ignore: decorator
@external("floe_v1", "timer_register")
export declare function timer_register(rec: i32, domain: i32, timestamp: i64): void;

// @ts-ignore: decorator
@external("floe_v1", "timer_delete")
export declare function timer_delete(rec: i32, domain: i32, timestamp: i64): void;

// @ts-ignore: decorator
@external("floe_v1", "current_watermark")
export declare function current_watermark(): i64;

// @ts-ignore: decorator
@external("floe_v1", "processing_time")
export declare function processing_time(): i64;

// WASI's fd_write, used only to put an abort's message on stderr, which the
// host quotes in the task's error (sdk/ABI.md, "Versioning").
// @ts-ignore: decorator
@external("wasi_snapshot_preview1", "fd_write")
export declare function fd_write(fd: i32, iovs: usize, iovsLen: i32, written: usize): i32;
