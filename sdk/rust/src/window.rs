//! Window functions: what a job spec's `type: window` operator runs when
//! its function is in Wasm (sdk/ABI.md, "Window functions").
//!
//! The host assigns records to windows and keeps their contents; the
//! module's function either folds records into an accumulator as they come
//! ([`Aggregate`]) or gets all of a window's records when it fires
//! ([`WindowFunction`]).

use std::borrow::Borrow;

use crate::codec::Codec;
use crate::context::{Context, Output};
use crate::encoding::{next_input, Elements};
use crate::error::{Error, Result};

/// A window's time range `[start, end)`, in ms since the epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Window {
    /// The first millisecond in the window.
    pub start: i64,
    /// The first millisecond after it.
    pub end: i64,
}

/// A record handed to a window function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowRecord<'a> {
    /// The record's bytes.
    pub value: &'a [u8],
    /// Its event time in ms, if any.
    pub timestamp: Option<i64>,
}

/// The records of one window (or of one batch of an aggregate's input), in
/// arrival order. Checked when made, so iterating cannot fail.
#[derive(Clone, Debug)]
pub struct WindowRecords<'a> {
    buf: &'a [u8],
    left: usize,
}

impl<'a> WindowRecords<'a> {
    /// Checks `count` input records at the start of `buf` and returns them
    /// with the rest of `buf`.
    fn split(buf: &'a [u8], count: usize) -> Result<(WindowRecords<'a>, &'a [u8])> {
        let mut off = 0;
        for _ in 0..count {
            next_input(buf, &mut off)?;
        }
        Ok((
            WindowRecords {
                buf: &buf[..off],
                left: count,
            },
            &buf[off..],
        ))
    }
}

impl<'a> Iterator for WindowRecords<'a> {
    type Item = WindowRecord<'a>;

    fn next(&mut self) -> Option<WindowRecord<'a>> {
        if self.left == 0 {
            return None;
        }
        let mut off = 0;
        let r = next_input(self.buf, &mut off).ok()?;
        self.buf = &self.buf[off..];
        self.left -= 1;
        let timestamp = if r.timestamp == i64::MIN {
            None
        } else {
            Some(r.timestamp)
        };
        Some(WindowRecord {
            value: r.value,
            timestamp,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for WindowRecords<'_> {}

/// An incremental window function (job spec `aggregate: name`): the host
/// keeps one accumulator per key and window, stored with [`Self::Codec`],
/// folds records into it as they arrive, merges accumulators when session
/// windows merge, and asks for the result when the window fires. Register
/// one with [`Registry::aggregate`](crate::Registry::aggregate).
///
/// ```
/// use floe::{Aggregate, Context, Result, Window, WindowRecord, I64};
///
/// /// Counts a window's records and emits "key,count".
/// struct Count;
///
/// impl Aggregate for Count {
///     type Codec = I64;
///     fn create(&mut self) -> i64 { 0 }
///     fn add(&mut self, acc: &mut i64, _: WindowRecord) -> Result<()> { *acc += 1; Ok(()) }
///     fn merge(&mut self, acc: &mut i64, other: i64) -> Result<()> { *acc += other; Ok(()) }
///     fn result(&mut self, ctx: &mut Context, _: Window, acc: i64) -> Result<()> {
///         let mut line = ctx.key().to_vec();
///         line.push(b',');
///         floe::append_i64(&mut line, acc);
///         ctx.emit(&line);
///         Ok(())
///     }
/// }
/// ```
pub trait Aggregate: 'static {
    /// How the accumulator, `<Self::Codec as Codec>::Owned`, is stored
    /// between calls.
    type Codec: Codec;

    /// Returns the accumulator of a window that has none yet.
    fn create(&mut self) -> <Self::Codec as Codec>::Owned;

    /// Folds `record` into `acc`.
    fn add(
        &mut self,
        acc: &mut <Self::Codec as Codec>::Owned,
        record: WindowRecord<'_>,
    ) -> Result<()>;

    /// Folds `other` into `acc` (session windows merging).
    fn merge(
        &mut self,
        acc: &mut <Self::Codec as Codec>::Owned,
        other: <Self::Codec as Codec>::Owned,
    ) -> Result<()>;

    /// Emits the results of a window that fired, through `ctx`: its key is
    /// the window's, and results get the timestamp `window.end - 1` unless
    /// set otherwise. State and timers are not available here.
    fn result(
        &mut self,
        ctx: &mut Context,
        window: Window,
        acc: <Self::Codec as Codec>::Owned,
    ) -> Result<()>;
}

/// A window process function (job spec `process: name` on a window
/// operator): it gets every record of a key's window when the window fires
/// and emits its results through `ctx` (key: the window's; default
/// timestamp: `window.end - 1`). Register one with
/// [`Registry::window`](crate::Registry::window); closures
/// `FnMut(&mut Context, Window, WindowRecords) -> Result<()>` are window
/// functions.
pub trait WindowFunction: 'static {
    /// Handles the window `window` of the key in `ctx`, with its records.
    fn process(
        &mut self,
        ctx: &mut Context,
        window: Window,
        records: WindowRecords<'_>,
    ) -> Result<()>;
}

impl<F> WindowFunction for F
where
    F: FnMut(&mut Context, Window, WindowRecords<'_>) -> Result<()> + 'static,
{
    fn process(
        &mut self,
        ctx: &mut Context,
        window: Window,
        records: WindowRecords<'_>,
    ) -> Result<()> {
        self(ctx, window, records)
    }
}

/// An [`Aggregate`] with its accumulator type erased: accumulators are
/// bytes.
pub(crate) trait ErasedAggregate {
    fn add(
        &mut self,
        acc: Option<&[u8]>,
        records: WindowRecords<'_>,
        out: &mut Vec<u8>,
    ) -> Result<()>;
    fn merge(&mut self, accs: Elements<'_>, out: &mut Vec<u8>) -> Result<()>;
    fn result(&mut self, ctx: &mut Context, window: Window, acc: &[u8]) -> Result<()>;
}

fn accumulator<C: Codec>(b: &[u8]) -> Result<C::Owned> {
    C::decode(b).map_err(|e| Error::msg(format!("accumulator: {}", e)))
}

impl<A: Aggregate> ErasedAggregate for A {
    fn add(
        &mut self,
        acc: Option<&[u8]>,
        records: WindowRecords<'_>,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let mut a = match acc {
            Some(b) => accumulator::<A::Codec>(b)?,
            None => self.create(),
        };
        for r in records {
            Aggregate::add(self, &mut a, r)?;
        }
        A::Codec::encode(a.borrow(), out);
        Ok(())
    }

    fn merge(&mut self, accs: Elements<'_>, out: &mut Vec<u8>) -> Result<()> {
        let mut merged = None;
        for b in accs {
            let a = accumulator::<A::Codec>(b)?;
            match merged.as_mut() {
                None => merged = Some(a),
                Some(m) => Aggregate::merge(self, m, a)?,
            }
        }
        let m = match merged {
            Some(m) => m,
            None => self.create(),
        };
        A::Codec::encode(m.borrow(), out);
        Ok(())
    }

    fn result(&mut self, ctx: &mut Context, window: Window, acc: &[u8]) -> Result<()> {
        let a = accumulator::<A::Codec>(acc)?;
        Aggregate::result(self, ctx, window, a)
    }
}

/// The operations of floe_window.
pub(crate) const OP_ADD: i32 = 0;
pub(crate) const OP_MERGE: i32 = 1;
pub(crate) const OP_RESULT: i32 = 2;
pub(crate) const OP_PROCESS: i32 = 3;

/// Reads a floe_window payload front to back.
struct Payload<'a> {
    buf: &'a [u8],
}

const TRUNCATED: &str = "floe: truncated window payload from the host";

impl<'a> Payload<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.buf.len() < n {
            return Err(Error::msg(TRUNCATED));
        }
        let (b, rest) = self.buf.split_at(n);
        self.buf = rest;
        Ok(b)
    }

    fn u32(&mut self) -> Result<u32> {
        let mut b = [0; 4];
        b.copy_from_slice(self.take(4)?);
        Ok(u32::from_le_bytes(b))
    }

    fn i64(&mut self) -> Result<i64> {
        let mut b = [0; 8];
        b.copy_from_slice(self.take(8)?);
        Ok(i64::from_le_bytes(b))
    }

    fn bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }

    /// An accumulator; a length of 0xFFFFFFFF means none yet.
    fn acc(&mut self) -> Result<Option<&'a [u8]>> {
        if self.buf.len() >= 4 && self.buf[..4] == [0xff; 4] {
            self.take(4)?;
            return Ok(None);
        }
        self.bytes().map(Some)
    }

    fn records(&mut self) -> Result<WindowRecords<'a>> {
        let n = self.u32()? as usize;
        let (records, rest) = WindowRecords::split(self.buf, n)?;
        self.buf = rest;
        Ok(records)
    }

    fn window(&mut self) -> Result<Window> {
        Ok(Window {
            start: self.i64()?,
            end: self.i64()?,
        })
    }

    /// The accumulators of a merge group, checked.
    fn accs(&mut self) -> Result<Elements<'a>> {
        let n = self.u32()? as usize;
        let start = self.buf;
        for _ in 0..n {
            self.bytes()?;
        }
        Elements::new(&start[..start.len() - self.buf.len()])
    }
}

/// Runs floe_window's `op` (add, merge or result) for an aggregate
/// function over `payload`. Accumulators are built in `scratch` and emitted
/// through `ctx`, as are results.
pub(crate) fn run_aggregate(
    a: &mut dyn ErasedAggregate,
    op: i32,
    payload: &[u8],
    ctx: &mut Context,
    scratch: &mut Vec<u8>,
) -> Result<()> {
    let mut p = Payload { buf: payload };
    for _ in 0..p.u32()? {
        scratch.clear();
        match op {
            OP_ADD => {
                let acc = p.acc()?;
                a.add(acc, p.records()?, scratch)?;
            }
            OP_MERGE => a.merge(p.accs()?, scratch)?,
            OP_RESULT => {
                let key = p.bytes()?;
                let w = p.window()?;
                let acc = p.bytes()?;
                ctx.begin(-1, key, w.end.wrapping_sub(1));
                a.result(ctx, w, acc)?;
                continue;
            }
            _ => return Err(Error::msg(format!("unknown window operation {}", op))),
        }
        // Exactly one accumulator per group, in group order.
        ctx.emit_with_timestamp(Output::MAIN, scratch, None);
    }
    Ok(())
}

/// Runs floe_window's process op for a window process function over
/// `payload`.
pub(crate) fn run_process(
    w: &mut dyn WindowFunction,
    payload: &[u8],
    ctx: &mut Context,
) -> Result<()> {
    let mut p = Payload { buf: payload };
    for _ in 0..p.u32()? {
        let key = p.bytes()?;
        let win = p.window()?;
        let records = p.records()?;
        ctx.begin(-1, key, win.end.wrapping_sub(1));
        w.process(ctx, win, records)?;
    }
    Ok(())
}
