//! The scope of one call: the record (or timer) being handled, its key, and
//! the output buffer.

use std::ptr::NonNull;

use crate::abi;
use crate::encoding::append_output;
use crate::params::Params;

/// How much output the SDK buffers before handing it to the host in the
/// middle of a batch. Otherwise it hands it over once per batch.
pub(crate) const FLUSH_SIZE: usize = 256 << 10;

/// An output of the operator: the main output, or a side output declared
/// with [`Open::output`](crate::Open::output).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Output(pub(crate) u32);

impl Output {
    /// The main output (port 0).
    pub const MAIN: Output = Output(0);
}

/// A timer's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimeDomain {
    /// Fires once the operator's watermark reaches the timer's timestamp.
    EventTime,
    /// Fires once the host's processing time (ms since the epoch) reaches
    /// the timer's timestamp.
    ProcessingTime,
}

impl TimeDomain {
    pub(crate) fn abi(self) -> i32 {
        match self {
            TimeDomain::EventTime => 0,
            TimeDomain::ProcessingTime => 1,
        }
    }
}

/// A timer that fired; its key is the [`Context`]'s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Timer {
    /// The timer's clock.
    pub domain: TimeDomain,
    /// The timestamp it was registered for, in ms.
    pub timestamp: i64,
}

/// The scope of the record (or fired timer) being handled: its key and
/// timestamp, the operator's parameters, output, timers and time. Keyed
/// state handles take it to know whose state to use.
///
/// A `Context` is handed to a function for one call; the key it returns is
/// valid during that call only.
pub struct Context {
    /// The index in the batch of the record in scope (0 in a timer).
    pub(crate) rec: i32,
    // NB: the key points into the runtime's input buffer, which the host
    // rewrites only between calls (sdk/ABI.md, floe_alloc); it is reset to
    // empty when a call ends.
    key: NonNull<u8>,
    key_len: usize,
    /// The timestamp records emitted now get by default.
    ts: i64,
    out: Vec<u8>,
    pub(crate) params: Params,
}

impl Context {
    pub(crate) const fn new() -> Context {
        Context {
            rec: -1,
            key: NonNull::dangling(),
            key_len: 0,
            ts: i64::MIN,
            out: Vec::new(),
            params: Params::new(),
        }
    }

    /// Brings a record, or a timer's key, into scope.
    #[inline]
    pub(crate) fn begin(&mut self, rec: i32, key: &[u8], ts: i64) {
        self.rec = rec;
        self.key = NonNull::from(key).cast();
        self.key_len = key.len();
        self.ts = ts;
    }

    /// Ends the call: nothing is in scope any more.
    pub(crate) fn end(&mut self) {
        self.key = NonNull::dangling();
        self.key_len = 0;
        self.ts = i64::MIN;
    }

    /// The key of the record in scope (empty before a keyBy), or of the timer
    /// that fired.
    #[inline]
    pub fn key(&self) -> &[u8] {
        // SAFETY: begin set key and key_len from a slice of the input
        // buffer, which stays put until the call ends (see the field).
        unsafe { std::slice::from_raw_parts(self.key.as_ptr(), self.key_len) }
    }

    /// The event time of the record in scope, in ms since the epoch, or
    /// `None` for a record without one. In a timer: the timer's timestamp
    /// for an event-time timer, `None` for a processing-time timer.
    #[inline]
    pub fn timestamp(&self) -> Option<i64> {
        if self.ts == i64::MIN {
            None
        } else {
            Some(self.ts)
        }
    }

    /// The operator's parameters.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Emits `value` to the main output with the default timestamp (see
    /// [`Context::timestamp`]). The bytes are copied.
    #[inline]
    pub fn emit(&mut self, value: &[u8]) {
        self.push(0, value, self.ts);
    }

    /// Emits `value` to `output` with the default timestamp.
    #[inline]
    pub fn emit_to(&mut self, output: Output, value: &[u8]) {
        self.push(output.0, value, self.ts);
    }

    /// Emits `value` to `output` with the given event time (`None` for
    /// none).
    pub fn emit_with_timestamp(&mut self, output: Output, value: &[u8], timestamp: Option<i64>) {
        self.push(output.0, value, timestamp.unwrap_or(i64::MIN));
    }

    #[inline]
    fn push(&mut self, port: u32, value: &[u8], ts: i64) {
        append_output(&mut self.out, port, value, ts);
        if self.out.len() >= FLUSH_SIZE {
            self.flush();
        }
    }

    /// Hands the buffered output to the host.
    pub(crate) fn flush(&mut self) {
        if !self.out.is_empty() {
            abi::emit(&self.out);
            self.out.clear();
        }
    }

    pub(crate) fn reserve_output(&mut self, n: usize) {
        self.out.reserve(n);
    }

    /// Registers a timer for the current key that fires once the watermark
    /// reaches `timestamp`. Registering the same timer twice keeps one.
    /// Timers need a keyed operator (after a keyBy).
    pub fn register_event_time_timer(&self, timestamp: i64) {
        abi::timer_register(self.rec, TimeDomain::EventTime.abi(), timestamp);
    }

    /// Deletes the current key's event-time timer at `timestamp`, if any.
    pub fn delete_event_time_timer(&self, timestamp: i64) {
        abi::timer_delete(self.rec, TimeDomain::EventTime.abi(), timestamp);
    }

    /// Registers a timer for the current key that fires once processing time
    /// reaches `timestamp` (ms since the epoch).
    pub fn register_processing_time_timer(&self, timestamp: i64) {
        abi::timer_register(self.rec, TimeDomain::ProcessingTime.abi(), timestamp);
    }

    /// Deletes the current key's processing-time timer at `timestamp`, if
    /// any.
    pub fn delete_processing_time_timer(&self, timestamp: i64) {
        abi::timer_delete(self.rec, TimeDomain::ProcessingTime.abi(), timestamp);
    }

    /// The operator's current event-time watermark; see
    /// [`current_watermark`](crate::current_watermark).
    pub fn current_watermark(&self) -> i64 {
        abi::current_watermark()
    }

    /// The host's processing time in ms since the epoch.
    pub fn processing_time(&self) -> i64 {
        abi::processing_time()
    }
}
