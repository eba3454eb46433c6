//! The `floe_v1` imports.

// NB: the Rust names carry a floe_ prefix so that no symbol collides with
// libc's (`log` is also libm's logarithm); link_name gives the import's
// real name.
#[link(wasm_import_module = "floe_v1")]
extern "C" {
    #[link_name = "emit"]
    fn floe_emit(ptr: *const u8, len: i32);
    #[link_name = "output_declare"]
    fn floe_output_declare(ptr: *const u8, len: i32) -> i32;
    #[link_name = "fail"]
    fn floe_fail(rec: i32, ptr: *const u8, len: i32);
    #[link_name = "log"]
    fn floe_log(level: i32, ptr: *const u8, len: i32);
    #[link_name = "state_declare"]
    fn floe_state_declare(kind: i32, ptr: *const u8, len: i32, flags: i32) -> i32;
    #[link_name = "value_get"]
    fn floe_value_get(state: i32, rec: i32, buf: *mut u8, cap: i32) -> i32;
    #[link_name = "value_put"]
    fn floe_value_put(state: i32, rec: i32, ptr: *const u8, len: i32);
    #[link_name = "value_delete"]
    fn floe_value_delete(state: i32, rec: i32);
    #[link_name = "list_append"]
    fn floe_list_append(state: i32, rec: i32, ptr: *const u8, len: i32);
    #[link_name = "list_get"]
    fn floe_list_get(state: i32, rec: i32, buf: *mut u8, cap: i32) -> i32;
    #[link_name = "list_clear"]
    fn floe_list_clear(state: i32, rec: i32);
    #[link_name = "map_get"]
    fn floe_map_get(
        state: i32,
        rec: i32,
        kptr: *const u8,
        klen: i32,
        buf: *mut u8,
        cap: i32,
    ) -> i32;
    #[link_name = "map_put"]
    fn floe_map_put(state: i32, rec: i32, kptr: *const u8, klen: i32, vptr: *const u8, vlen: i32);
    #[link_name = "map_delete"]
    fn floe_map_delete(state: i32, rec: i32, kptr: *const u8, klen: i32);
    #[link_name = "map_entries"]
    fn floe_map_entries(state: i32, rec: i32, buf: *mut u8, cap: i32) -> i32;
    #[link_name = "map_clear"]
    fn floe_map_clear(state: i32, rec: i32);
    #[link_name = "timer_register"]
    fn floe_timer_register(rec: i32, domain: i32, ts: i64);
    #[link_name = "timer_delete"]
    fn floe_timer_delete(rec: i32, domain: i32, ts: i64);
    #[link_name = "current_watermark"]
    fn floe_current_watermark() -> i64;
    #[link_name = "processing_time"]
    fn floe_processing_time() -> i64;
}

// SAFETY (every function below): the host reads the bytes [ptr, ptr+len)
// and writes at most cap bytes at buf before it returns, and keeps no
// pointer into our memory (sdk/ABI.md, "Conventions"). Slices passed here
// are valid for that long; lengths fit in i32 as linear memory is < 4 GiB.

pub(crate) fn emit(run: &[u8]) {
    unsafe { floe_emit(run.as_ptr(), run.len() as i32) }
}

pub(crate) fn output_declare(name: &str) -> i32 {
    unsafe { floe_output_declare(name.as_ptr(), name.len() as i32) }
}

pub(crate) fn fail(rec: i32, msg: &str) {
    unsafe { floe_fail(rec, msg.as_ptr(), msg.len() as i32) }
}

pub(crate) fn log(level: i32, msg: &str) {
    unsafe { floe_log(level, msg.as_ptr(), msg.len() as i32) }
}

pub(crate) fn state_declare(kind: i32, name: &str, flags: i32) -> i32 {
    unsafe { floe_state_declare(kind, name.as_ptr(), name.len() as i32, flags) }
}

pub(crate) fn value_get(state: i32, rec: i32, buf: &mut [u8]) -> i32 {
    unsafe { floe_value_get(state, rec, buf.as_mut_ptr(), buf.len() as i32) }
}

pub(crate) fn value_put(state: i32, rec: i32, v: &[u8]) {
    unsafe { floe_value_put(state, rec, v.as_ptr(), v.len() as i32) }
}

pub(crate) fn value_delete(state: i32, rec: i32) {
    unsafe { floe_value_delete(state, rec) }
}

pub(crate) fn list_append(state: i32, rec: i32, v: &[u8]) {
    unsafe { floe_list_append(state, rec, v.as_ptr(), v.len() as i32) }
}

pub(crate) fn list_get(state: i32, rec: i32, buf: &mut [u8]) -> i32 {
    unsafe { floe_list_get(state, rec, buf.as_mut_ptr(), buf.len() as i32) }
}

pub(crate) fn list_clear(state: i32, rec: i32) {
    unsafe { floe_list_clear(state, rec) }
}

pub(crate) fn map_get(state: i32, rec: i32, k: &[u8], buf: &mut [u8]) -> i32 {
    unsafe {
        floe_map_get(
            state,
            rec,
            k.as_ptr(),
            k.len() as i32,
            buf.as_mut_ptr(),
            buf.len() as i32,
        )
    }
}

pub(crate) fn map_put(state: i32, rec: i32, k: &[u8], v: &[u8]) {
    unsafe {
        floe_map_put(
            state,
            rec,
            k.as_ptr(),
            k.len() as i32,
            v.as_ptr(),
            v.len() as i32,
        )
    }
}

pub(crate) fn map_delete(state: i32, rec: i32, k: &[u8]) {
    unsafe { floe_map_delete(state, rec, k.as_ptr(), k.len() as i32) }
}

pub(crate) fn map_entries(state: i32, rec: i32, buf: &mut [u8]) -> i32 {
    unsafe { floe_map_entries(state, rec, buf.as_mut_ptr(), buf.len() as i32) }
}

pub(crate) fn map_clear(state: i32, rec: i32) {
    unsafe { floe_map_clear(state, rec) }
}

pub(crate) fn timer_register(rec: i32, domain: i32, ts: i64) {
    unsafe { floe_timer_register(rec, domain, ts) }
}

pub(crate) fn timer_delete(rec: i32, domain: i32, ts: i64) {
    unsafe { floe_timer_delete(rec, domain, ts) }
}

pub(crate) fn current_watermark() -> i64 {
    unsafe { floe_current_watermark() }
}

pub(crate) fn processing_time() -> i64 {
    unsafe { floe_processing_time() }
}
