//! The module's side of the ABI: the exports, and the one operator a module
//! instance runs.

use crate::abi;
use crate::context::{Context, TimeDomain, Timer};
use crate::encoding::{decode_params, next_input};
use crate::error::{Error, Result};
use crate::open::Open;
use crate::registry::{CloseHook, Entry, FilterFn, FlatMapFn, MapFn, Operator, Registry};
use crate::window::{self, ErasedAggregate, WindowFunction};

/// The function the operator runs, once opened.
enum Func {
    Closed,
    Map(MapFn),
    Filter(FilterFn),
    FlatMap(FlatMapFn),
    Process(Box<dyn Operator>),
    Aggregate(Box<dyn ErasedAggregate>),
    Window(Box<dyn WindowFunction>),
}

/// The operator of this module instance. The host instantiates a module
/// once per subtask and calls it from one thread, so one runtime is one
/// operator.
pub(crate) struct Runtime {
    /// The buffer the host writes parameters, batches and timer keys into.
    input: Vec<u8>,
    func: Func,
    /// A two-input operator's second function (`floe.function2`), which
    /// floe_process2 runs; Closed for every other operator.
    func2: Func,
    ctx: Context,
    /// What map functions build their record in.
    scratch: Vec<u8>,
    close_hooks: Vec<CloseHook>,
    /// The function table floe_functions hands the host.
    table: Vec<u8>,
}

impl Runtime {
    const fn new() -> Runtime {
        Runtime {
            input: Vec::new(),
            func: Func::Closed,
            func2: Func::Closed,
            ctx: Context::new(),
            scratch: Vec::new(),
            close_hooks: Vec::new(),
            table: Vec::new(),
        }
    }

    /// floe_functions: lays out the registered functions and their kinds,
    /// sorted by name (u32 count, then count × {u32 name_len, name, u32
    /// kind_len, kind}), and returns its address << 32 | its length.
    fn functions(&mut self, register: fn(&mut Registry)) -> i64 {
        let mut reg = Registry::new();
        register(&mut reg);
        let mut fns: Vec<(&str, &str)> = reg.entries.iter().map(|(n, e)| (n.as_str(), e.kind())).collect();
        fns.sort();
        fns.dedup_by(|a, b| a.0 == b.0);
        let t = &mut self.table;
        t.clear();
        t.extend_from_slice(&(fns.len() as u32).to_le_bytes());
        for (name, kind) in fns {
            for s in [name, kind] {
                t.extend_from_slice(&(s.len() as u32).to_le_bytes());
                t.extend_from_slice(s.as_bytes());
            }
        }
        ((t.as_ptr() as usize as u32 as i64) << 32) | t.len() as i64
    }

    /// floe_alloc: makes the input buffer at least `size` bytes.
    fn alloc(&mut self, size: usize) -> *mut u8 {
        if self.input.len() < size {
            self.input = vec![0; size];
        }
        self.input.as_mut_ptr()
    }

    /// floe_open: selects the function the parameters name and opens it.
    fn open(&mut self, len: usize, register: fn(&mut Registry)) -> i32 {
        status(self.try_open(len, register), -1)
    }

    fn try_open(&mut self, len: usize, register: fn(&mut Registry)) -> Result<()> {
        self.ctx.params = decode_params(
            self.input
                .get(..len)
                .ok_or_else(|| Error::msg("floe: bad parameter length"))?,
        )?;
        let mut reg = Registry::new();
        register(&mut reg);
        if let Some(name) = reg.duplicate.take() {
            return Err(Error::msg(format!(
                "function {:?} is registered twice",
                name
            )));
        }
        let name = self.ctx.params.function().to_string();
        self.func = self.open_function(&mut reg, &name)?;
        if let Some(name2) = self.ctx.params.get("floe.function2").filter(|n| !n.is_empty()) {
            let name2 = name2.to_string();
            // A fresh registry: the first function's entry is taken, and
            // both inputs may run the same function.
            let mut reg2 = Registry::new();
            register(&mut reg2);
            self.func2 = self.open_function(&mut reg2, &name2)?;
        }
        for hook in reg.open_hooks {
            hook(&self.ctx.params)?;
        }
        self.close_hooks = reg.close_hooks;
        self.ctx.reserve_output(64 << 10);
        Ok(())
    }

    /// Opens the function registered as `name`.
    fn open_function(&mut self, reg: &mut Registry, name: &str) -> Result<Func> {
        let entry = match reg.take(name) {
            Some(e) => e,
            None => {
                let names = reg.names().join(", ");
                return Err(Error::msg(format!(
                    "no function {:?} in this module (registered: {})",
                    name, names
                )));
            }
        };
        Ok(match entry {
            Entry::Map(f) => Func::Map(f),
            Entry::Filter(f) => Func::Filter(f),
            Entry::FlatMap(f) => Func::FlatMap(f),
            Entry::Process(open) => Func::Process(open(&mut Open {
                params: &self.ctx.params,
            })?),
            Entry::Aggregate(open) => Func::Aggregate(open(&mut Open {
                params: &self.ctx.params,
            })?),
            Entry::Window(open) => Func::Window(open(&mut Open {
                params: &self.ctx.params,
            })?),
        })
    }

    /// floe_process (`second` false) and floe_process2 (`second` true):
    /// runs the function of the operator's first or second input over
    /// `count` records in the input buffer's first `len` bytes.
    fn process(&mut self, len: usize, count: usize, second: bool) -> i32 {
        let input = match self.input.get(..len) {
            Some(b) => b,
            None => return status(Err(Error::msg("floe: batch longer than the buffer")), -1),
        };
        let ctx = &mut self.ctx;
        ctx.rec = -1;
        let func = if second { &mut self.func2 } else { &mut self.func };
        if second && matches!(func, Func::Closed) {
            return status(
                Err(Error::msg("floe_process2 called, but the operator has no floe.function2")),
                -1,
            );
        }
        let r = match func {
            Func::Map(f) => {
                let out = &mut self.scratch;
                each(input, count, ctx, |ctx, v| {
                    out.clear();
                    f(v, out)?;
                    ctx.emit(out);
                    Ok(())
                })
            }
            Func::Filter(f) => each(input, count, ctx, |ctx, v| {
                if f(v)? {
                    ctx.emit(v);
                }
                Ok(())
            }),
            Func::FlatMap(f) => each(input, count, ctx, |ctx, v| f(ctx, v)),
            Func::Process(op) => each(input, count, ctx, |ctx, v| op.process(ctx, v)),
            Func::Aggregate(_) | Func::Window(_) => Err(Error::msg(format!(
                "function {:?} is a window function: use it in a window operator",
                ctx.params.function()
            ))),
            Func::Closed => Err(Error::msg("floe: a batch came before a successful open")),
        };
        ctx.end();
        ctx.flush();
        status(r, ctx.rec)
    }

    /// floe_on_timer: runs the operator's timer handler with the key in the
    /// input buffer's first `key_len` bytes in scope.
    fn on_timer(&mut self, domain: i32, timestamp: i64, key_len: usize) -> i32 {
        let r = self.try_on_timer(domain, timestamp, key_len);
        self.ctx.end();
        self.ctx.flush();
        status(r, -1)
    }

    fn try_on_timer(&mut self, domain: i32, timestamp: i64, key_len: usize) -> Result<()> {
        let domain = match domain {
            0 => TimeDomain::EventTime,
            1 => TimeDomain::ProcessingTime,
            d => {
                return Err(Error::msg(format!(
                    "floe: a timer fired in unknown time domain {}",
                    d
                )))
            }
        };
        let key = self
            .input
            .get(..key_len)
            .ok_or_else(|| Error::msg("floe: timer key longer than the buffer"))?;
        let ts = if domain == TimeDomain::EventTime {
            timestamp
        } else {
            i64::MIN
        };
        self.ctx.begin(0, key, ts);
        match &mut self.func {
            Func::Process(op) => op.on_timer(&mut self.ctx, Timer { domain, timestamp }),
            _ => Err(Error::msg(format!(
                "a timer fired but function {:?} has no on_timer",
                self.ctx.params.function()
            ))),
        }
    }

    /// floe_window: runs the window function over the payload in the input
    /// buffer's first `len` bytes.
    fn window(&mut self, op: i32, len: usize) -> i32 {
        let r = self.try_window(op, len);
        self.ctx.end();
        self.ctx.flush();
        status(r, -1)
    }

    fn try_window(&mut self, op: i32, len: usize) -> Result<()> {
        let payload = self
            .input
            .get(..len)
            .ok_or_else(|| Error::msg("floe: window payload longer than the buffer"))?;
        let name = self.ctx.params.function();
        match (&mut self.func, op) {
            (_, op) if !(window::OP_ADD..=window::OP_PROCESS).contains(&op) => {
                Err(Error::msg(format!("unknown window operation {}", op)))
            }
            (Func::Window(w), window::OP_PROCESS) => {
                window::run_process(w.as_mut(), payload, &mut self.ctx)
            }
            (_, window::OP_PROCESS) => Err(Error::msg(format!(
                "function {:?} is not a window process function (register it with Registry::window)",
                name
            ))),
            (Func::Aggregate(a), op) => {
                window::run_aggregate(a.as_mut(), op, payload, &mut self.ctx, &mut self.scratch)
            }
            _ => Err(Error::msg(format!(
                "function {:?} is not an aggregate function (register it with Registry::aggregate)",
                name
            ))),
        }
    }

    /// floe_close: closes the operator and runs the close hooks, reporting
    /// every error.
    fn close(&mut self) -> i32 {
        let mut errors = Vec::new();
        if let Func::Process(op) = &mut self.func {
            errors.extend(op.close().err());
        }
        if let Func::Process(op) = &mut self.func2 {
            errors.extend(op.close().err());
        }
        self.func2 = Func::Closed;
        for hook in self.close_hooks.drain(..) {
            errors.extend(hook().err());
        }
        self.func = Func::Closed;
        if errors.is_empty() {
            return 0;
        }
        let msg: Vec<&str> = errors.iter().map(Error::message).collect();
        status(Err(Error::msg(msg.join("\n"))), -1)
    }
}

/// Calls `f` on each of the `count` records of `input`, with the record in
/// scope in `ctx`. The first error stops the batch.
#[inline(always)]
fn each(
    input: &[u8],
    count: usize,
    ctx: &mut Context,
    mut f: impl FnMut(&mut Context, &[u8]) -> Result<()>,
) -> Result<()> {
    let mut off = 0;
    for i in 0..count {
        ctx.rec = i as i32;
        let r = next_input(input, &mut off)?;
        ctx.begin(i as i32, r.key, r.timestamp);
        f(ctx, r.value)?;
    }
    Ok(())
}

/// Reports an error to the host for record `rec` (-1 for none) and returns
/// the export's status.
fn status(r: Result<()>, rec: i32) -> i32 {
    match r {
        Ok(()) => 0,
        Err(e) => {
            abi::fail(rec, e.message());
            1
        }
    }
}

#[cfg(target_arch = "wasm32")]
fn runtime() -> &'static mut Runtime {
    struct Global(std::cell::UnsafeCell<Runtime>);
    // SAFETY: a module instance runs on one thread (wasm32 without the
    // threads proposal).
    unsafe impl Sync for Global {}
    static RUNTIME: Global = Global(std::cell::UnsafeCell::new(Runtime::new()));
    // SAFETY: only the exports below call this, once per call, and the host
    // never calls an export while another runs: no two references live.
    unsafe { &mut *RUNTIME.0.get() }
}

// Natively (tests), each thread is its own module instance.
#[cfg(not(target_arch = "wasm32"))]
fn runtime() -> &'static mut Runtime {
    thread_local! {
        static RUNTIME: std::cell::UnsafeCell<Runtime> = const { std::cell::UnsafeCell::new(Runtime::new()) };
    }
    // SAFETY: as above, per thread; the reference does not outlive the
    // export that took it.
    RUNTIME.with(|r| unsafe { &mut *r.get() })
}

/// The input buffer, at least `size` bytes, for the native test host.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn input(size: usize) -> &'static mut [u8] {
    let rt = runtime();
    rt.alloc(size);
    &mut rt.input[..size]
}

/// The bodies of the exports that [`module!`](crate::module) defines. Not
/// for direct use.
#[doc(hidden)]
pub mod exports {
    use super::runtime;
    use crate::Registry;

    pub fn alloc(size: i32) -> i32 {
        runtime().alloc(size.max(0) as usize) as usize as i32
    }

    pub fn open(len: i32, register: fn(&mut Registry)) -> i32 {
        runtime().open(len.max(0) as usize, register)
    }

    pub fn functions(register: fn(&mut Registry)) -> i64 {
        runtime().functions(register)
    }

    pub fn process(len: i32, count: i32) -> i32 {
        runtime().process(len.max(0) as usize, count.max(0) as usize, false)
    }

    pub fn process2(len: i32, count: i32) -> i32 {
        runtime().process(len.max(0) as usize, count.max(0) as usize, true)
    }

    pub fn on_timer(domain: i32, timestamp: i64, key_len: i32) -> i32 {
        runtime().on_timer(domain, timestamp, key_len.max(0) as usize)
    }

    pub fn window(op: i32, len: i32) -> i32 {
        runtime().window(op, len.max(0) as usize)
    }

    pub fn close() -> i32 {
        runtime().close()
    }
}
