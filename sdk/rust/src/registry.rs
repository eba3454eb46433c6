//! Registering a module's functions.

use crate::context::{Context, Timer};
use crate::error::{Error, Result};
use crate::open::Open;
use crate::params::Params;
use crate::window::{Aggregate, ErasedAggregate, WindowFunction};

/// A function with a life: opened with the operator, called for each record
/// and for each timer it set, closed with the operator. Register one with
/// [`Registry::process`].
///
/// Closures `FnMut(&mut Context, &[u8]) -> Result<()>` are operators without
/// timers or close.
pub trait Operator: 'static {
    /// Handles one record: `value` is its bytes, `ctx` its key, timestamp
    /// and output. An error fails the task, naming the record.
    fn process(&mut self, ctx: &mut Context, value: &[u8]) -> Result<()>;

    /// Handles a timer the operator registered, with its key in scope in
    /// `ctx`. Records emitted here get the timer's timestamp for an
    /// event-time timer, none for a processing-time timer.
    fn on_timer(&mut self, ctx: &mut Context, timer: Timer) -> Result<()> {
        let _ = (ctx, timer);
        Err(Error::msg(
            "a timer fired but the operator has no on_timer method",
        ))
    }

    /// Runs when the operator closes: release what it holds. Records cannot
    /// be emitted here.
    fn close(&mut self) -> Result<()> {
        Ok(())
    }
}

impl<F> Operator for F
where
    F: FnMut(&mut Context, &[u8]) -> Result<()> + 'static,
{
    fn process(&mut self, ctx: &mut Context, value: &[u8]) -> Result<()> {
        self(ctx, value)
    }
}

pub(crate) type MapFn = Box<dyn FnMut(&[u8], &mut Vec<u8>) -> Result<()>>;
pub(crate) type FilterFn = Box<dyn FnMut(&[u8]) -> Result<bool>>;
pub(crate) type FlatMapFn = Box<dyn FnMut(&mut Context, &[u8]) -> Result<()>>;
pub(crate) type OpenHook = Box<dyn FnOnce(&Params) -> Result<()>>;
pub(crate) type CloseHook = Box<dyn FnOnce() -> Result<()>>;
pub(crate) type OpenFn = Box<dyn FnOnce(&mut Open<'_>) -> Result<Box<dyn Operator>>>;
pub(crate) type OpenAggregate = Box<dyn FnOnce(&mut Open<'_>) -> Result<Box<dyn ErasedAggregate>>>;
pub(crate) type OpenWindow = Box<dyn FnOnce(&mut Open<'_>) -> Result<Box<dyn WindowFunction>>>;

/// A registered function, as the runtime calls it.
pub(crate) enum Entry {
    Map(MapFn),
    Filter(FilterFn),
    FlatMap(FlatMapFn),
    Process(OpenFn),
    Aggregate(OpenAggregate),
    Window(OpenWindow),
}

impl Entry {
    /// The entry's kind, as the function table names it (sdk/ABI.md,
    /// "Function table").
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Entry::Map(_) => "map",
            Entry::Filter(_) => "filter",
            Entry::FlatMap(_) => "flatMap",
            Entry::Process(_) => "process",
            Entry::Aggregate(_) => "aggregate",
            Entry::Window(_) => "processWindow",
        }
    }
}

/// The functions of a module, by name. The host opens an operator with the
/// name the job spec gives (`function:`), and the module runs that one.
///
/// The module's register function, named in [`module!`](crate::module),
/// fills it when an operator opens.
#[derive(Default)]
pub struct Registry {
    pub(crate) entries: Vec<(String, Entry)>,
    pub(crate) open_hooks: Vec<OpenHook>,
    pub(crate) close_hooks: Vec<CloseHook>,
    pub(crate) duplicate: Option<String>,
}

impl Registry {
    pub(crate) fn new() -> Registry {
        Registry::default()
    }

    fn add(&mut self, name: &str, e: Entry) {
        if self.entries.iter().any(|(n, _)| n == name) {
            self.duplicate.get_or_insert_with(|| name.to_owned());
        }
        self.entries.push((name.to_owned(), e));
    }

    /// Registers a function that turns each record into exactly one record
    /// (job spec `type: map`). `f` appends the output record to `out`,
    /// which is empty on each call and reused, so building it allocates
    /// nothing once warm. The output gets the input record's timestamp.
    pub fn map<F>(&mut self, name: &str, f: F)
    where
        F: FnMut(&[u8], &mut Vec<u8>) -> Result<()> + 'static,
    {
        self.add(name, Entry::Map(Box::new(f)));
    }

    /// Registers a function that keeps the records for which it returns
    /// true (job spec `type: filter`).
    pub fn filter<F>(&mut self, name: &str, f: F)
    where
        F: FnMut(&[u8]) -> Result<bool> + 'static,
    {
        self.add(name, Entry::Filter(Box::new(f)));
    }

    /// Registers a function that emits zero or more records per record
    /// through its [`Context`] (job spec `type: flatMap`).
    pub fn flat_map<F>(&mut self, name: &str, f: F)
    where
        F: FnMut(&mut Context, &[u8]) -> Result<()> + 'static,
    {
        self.add(name, Entry::FlatMap(Box::new(f)));
    }

    /// Registers a key selector (job spec `keyBy` with `key: function`):
    /// `f` appends the record's key to `key`, which is empty on each call.
    pub fn key_selector<F>(&mut self, name: &str, f: F)
    where
        F: FnMut(&[u8], &mut Vec<u8>) -> Result<()> + 'static,
    {
        self.add(name, Entry::Map(Box::new(f)));
    }

    /// Registers an operator with a life: `open` runs when the operator
    /// opens, declares its state, side outputs and the like through
    /// [`Open`], reads the parameters, and returns the [`Operator`] that
    /// handles records and timers. This is the shape of keyed process
    /// functions (job spec `type: process`), and of any function that needs
    /// state or setup; an error from `open` fails the task.
    pub fn process<O, F>(&mut self, name: &str, open: F)
    where
        O: Operator,
        F: FnOnce(&mut Open<'_>) -> Result<O> + 'static,
    {
        self.add(
            name,
            Entry::Process(Box::new(move |o: &mut Open<'_>| {
                Ok(Box::new(open(o)?) as Box<dyn Operator>)
            })),
        );
    }

    /// Registers an aggregate function for a job spec's window operator
    /// (`aggregate: name`): `open` runs when the operator opens and returns
    /// the [`Aggregate`]. State and timers are not available to window
    /// functions.
    pub fn aggregate<A, F>(&mut self, name: &str, open: F)
    where
        A: Aggregate,
        F: FnOnce(&mut Open<'_>) -> Result<A> + 'static,
    {
        let open = move |o: &mut Open<'_>| Ok(Box::new(open(o)?) as Box<dyn ErasedAggregate>);
        self.add(name, Entry::Aggregate(Box::new(open)));
    }

    /// Registers a window process function for a job spec's window operator
    /// (`process: name`): `open` runs when the operator opens and returns
    /// the [`WindowFunction`], which gets all of a window's records when it
    /// fires.
    pub fn window<W, F>(&mut self, name: &str, open: F)
    where
        W: WindowFunction,
        F: FnOnce(&mut Open<'_>) -> Result<W> + 'static,
    {
        let open = move |o: &mut Open<'_>| Ok(Box::new(open(o)?) as Box<dyn WindowFunction>);
        self.add(name, Entry::Window(Box::new(open)));
    }

    /// Registers `hook` to run when an operator of this module opens, after
    /// its function's own open, whichever function it runs.
    pub fn on_open<F>(&mut self, hook: F)
    where
        F: FnOnce(&Params) -> Result<()> + 'static,
    {
        self.open_hooks.push(Box::new(hook));
    }

    /// Registers `hook` to run when an operator of this module closes,
    /// after its operator's [`Operator::close`].
    pub fn on_close<F>(&mut self, hook: F)
    where
        F: FnOnce() -> Result<()> + 'static,
    {
        self.close_hooks.push(Box::new(hook));
    }

    /// Removes and returns the function registered under `name`.
    pub(crate) fn take(&mut self, name: &str) -> Option<Entry> {
        let i = self.entries.iter().position(|(n, _)| n == name)?;
        Some(self.entries.swap_remove(i).1)
    }

    /// The registered names, sorted.
    pub(crate) fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.entries.iter().map(|(n, _)| n.as_str()).collect();
        names.sort_unstable();
        names
    }
}
