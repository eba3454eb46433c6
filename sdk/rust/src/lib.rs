//! The Rust SDK for writing [Floe](https://github.com/floe-stream/floe)
//! stream operators as WebAssembly modules.
//!
//! A module registers functions under names; a job spec picks one by name
//! for each operator. The SDK speaks Floe's ABI version 1 (sdk/ABI.md):
//! records arrive in batches, output is buffered and handed to the host once
//! per batch, and keyed state and timers live in the host, scoped to the key
//! of the record being handled. None of that shows in the API.
//!
//! ```no_run
//! use floe::{Context, Open, Registry, Result, I64};
//!
//! fn register(r: &mut Registry) {
//!     // A map: one record in, one out, built in a reused buffer.
//!     r.map("upper", |line, out| {
//!         out.extend(line.iter().map(u8::to_ascii_uppercase));
//!         Ok(())
//!     });
//!     // A keyed process function with value state, declared when it opens.
//!     r.process("count", |open: &mut Open| {
//!         let mut counts = open.state("counts").queryable().value(I64)?;
//!         let mut line = Vec::new();
//!         Ok(move |ctx: &mut Context, _word: &[u8]| -> Result<()> {
//!             let n = counts.get(ctx)?.unwrap_or(0) + 1;
//!             counts.put(ctx, &n);
//!             line.clear();
//!             line.extend_from_slice(ctx.key());
//!             line.push(b',');
//!             floe::append_i64(&mut line, n);
//!             ctx.emit(&line);
//!             Ok(())
//!         })
//!     });
//! }
//!
//! floe::module!(register);
//! ```
//!
//! Build it as a `cdylib` for `wasm32-wasi` (docs/sdk-rust.md).
//!
//! Operators that need timers or a close implement [`Operator`] on a
//! struct; window operators run an [`Aggregate`] or a [`WindowFunction`].
//! `floe::testing::Harness` runs a module's functions natively in `cargo
//! test`.
//!
//! Errors are [`Result`]s: an error fails the task with its message and the
//! record that caused it. A panic aborts the instance (Wasm has no
//! unwinding); its message is in the task's stderr, which the failure
//! quotes.
//!
//! Functions are called from one thread; nothing needs locking. The byte
//! slices passed to a function are valid during the call only.

#![warn(missing_docs)]

mod abi;
mod codec;
mod context;
mod encoding;
mod error;
mod join;
mod open;
mod params;
mod registry;
mod runtime;
mod search;
mod sql;
mod sqlagg;
mod state;
#[cfg(not(target_arch = "wasm32"))]
pub mod testing;
mod window;

pub use codec::{Bytes, Codec, Str, ValueType, I64};
pub use context::{Context, Output, TimeDomain, Timer};
pub use encoding::{append_i64, Elements, Entries};
pub use error::{Error, Result};
pub use join::split_pair;
pub use open::{Open, StateBuilder};
pub use params::Params;
pub use registry::{Operator, Registry};
#[doc(hidden)]
pub use runtime::exports as __exports;
pub use search::find_byte;
pub use sql::{append_sql_value, decode_sql_row, SqlValue};
pub use sqlagg::SqlAggregate;
pub use state::{
    BroadcastState, ListState, MapState, OperatorListState, Redistribution, ValueState,
};
pub use window::{Aggregate, Window, WindowFunction, WindowRecord, WindowRecords};

/// A log level; see [`log`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Detail for debugging.
    Debug = 0,
    /// Normal events.
    Info = 1,
    /// Something looks wrong.
    Warn = 2,
    /// Something failed.
    Error = 3,
}

/// Writes `msg` to the task's log at `level`, tagged with the module and
/// function.
pub fn log(level: Level, msg: &str) {
    abi::log(level as i32, msg);
}

/// The operator's current event-time watermark in ms, `i64::MIN` before
/// the first.
pub fn current_watermark() -> i64 {
    abi::current_watermark()
}

/// The host's processing time in ms since the epoch.
pub fn processing_time() -> i64 {
    abi::processing_time()
}

/// Defines the module's exports (`floe_alloc`, `floe_open`, `floe_process`,
/// `floe_process2`, `floe_on_timer`, `floe_window`, `floe_close`) around a register function
/// `fn(&mut Registry)`, which runs when an operator opens. Use it once, in
/// the crate root of a `cdylib`.
///
/// ```ignore
/// fn register(r: &mut floe::Registry) {
///     r.filter("nonempty", |v| Ok(!v.is_empty()));
/// }
/// floe::module!(register);
/// ```
#[macro_export]
macro_rules! module {
    ($register:expr) => {
        #[no_mangle]
        pub extern "C" fn floe_alloc(size: i32) -> i32 {
            $crate::__exports::alloc(size)
        }

        #[no_mangle]
        pub extern "C" fn floe_open(params_len: i32) -> i32 {
            $crate::__exports::open(params_len, $register)
        }

        #[no_mangle]
        pub extern "C" fn floe_process(batch_len: i32, count: i32) -> i32 {
            $crate::__exports::process(batch_len, count)
        }

        #[no_mangle]
        pub extern "C" fn floe_process2(batch_len: i32, count: i32) -> i32 {
            $crate::__exports::process2(batch_len, count)
        }

        #[no_mangle]
        pub extern "C" fn floe_on_timer(domain: i32, timestamp: i64, key_len: i32) -> i32 {
            $crate::__exports::on_timer(domain, timestamp, key_len)
        }

        #[no_mangle]
        pub extern "C" fn floe_window(op: i32, payload_len: i32) -> i32 {
            $crate::__exports::window(op, payload_len)
        }

        #[no_mangle]
        pub extern "C" fn floe_close() -> i32 {
            $crate::__exports::close()
        }

        #[no_mangle]
        pub extern "C" fn floe_functions() -> i64 {
            $crate::__exports::functions($register)
        }
    };
}
