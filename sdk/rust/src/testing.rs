//! Unit-testing operators natively, without a host: `cargo test` on the
//! build machine runs the module's functions against an in-memory fake of
//! Floe's host, through the same exports the real host calls.
//!
//! ```
//! use floe::testing::{Harness, Record};
//!
//! fn register(r: &mut floe::Registry) {
//!     r.filter("short", |v| Ok(v.len() < 4));
//! }
//!
//! let mut h = Harness::new(register);
//! h.open("short", &[]).unwrap();
//! let out = h.process(&[Record::new("abc").at(5), Record::new("abcdef")]).unwrap();
//! assert_eq!(out.iter().map(|e| e.to_string()).collect::<Vec<_>>(), ["main @5 abc"]);
//! ```
//!
//! Only on native targets: a module built for wasm32 does not have it.

use std::collections::BTreeMap;
use std::fmt;

use crate::abi::fake;
use crate::runtime::{exports, input};
use crate::{Registry, Window};

/// Appends records in the input batch layout, all with the key `key`.
fn encode_records(dst: &mut Vec<u8>, key: &[u8], records: &[Record]) {
    for r in records {
        dst.extend_from_slice(&(key.len() as u32).to_le_bytes());
        dst.extend_from_slice(&(r.value.len() as u32).to_le_bytes());
        dst.extend_from_slice(&r.timestamp.unwrap_or(i64::MIN).to_le_bytes());
        dst.extend_from_slice(key);
        dst.extend_from_slice(&r.value);
    }
}

fn length_prefixed(dst: &mut Vec<u8>, b: &[u8]) {
    dst.extend_from_slice(&(b.len() as u32).to_le_bytes());
    dst.extend_from_slice(b);
}

/// An input record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// The key; empty before a keyBy.
    pub key: Vec<u8>,
    /// The record's bytes.
    pub value: Vec<u8>,
    /// The event time in ms, if any.
    pub timestamp: Option<i64>,
}

impl Record {
    /// A record without key or timestamp.
    pub fn new(value: impl AsRef<[u8]>) -> Record {
        Record {
            key: Vec::new(),
            value: value.as_ref().to_vec(),
            timestamp: None,
        }
    }

    /// A keyed record without timestamp.
    pub fn keyed(key: impl AsRef<[u8]>, value: impl AsRef<[u8]>) -> Record {
        Record {
            key: key.as_ref().to_vec(),
            ..Record::new(value)
        }
    }

    /// The record with event time `ts`.
    pub fn at(mut self, ts: i64) -> Record {
        self.timestamp = Some(ts);
        self
    }
}

/// A record the operator emitted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Emitted {
    /// `main`, or the side output's name.
    pub output: String,
    /// The record's bytes.
    pub value: Vec<u8>,
    /// Its event time, if any.
    pub timestamp: Option<i64>,
}

/// Renders the record as a conformance transcript line:
/// `<output> @<timestamp or -> <value>`.
impl fmt::Display for Emitted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ts = self
            .timestamp
            .map_or_else(|| "-".to_owned(), |t| t.to_string());
        write!(
            f,
            "{} @{} {}",
            self.output,
            ts,
            String::from_utf8_lossy(&self.value)
        )
    }
}

/// A failed call: the message the module reported and the index of the
/// record it named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The record's index in the batch, if the failure names one.
    pub record: Option<usize>,
    /// The module's message.
    pub message: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.record {
            Some(r) => write!(f, "record {}: {}", r, self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// Drives a module's functions as Floe's host would: open, batches, timers
/// and close. State, timers and operator lists live in memory and outlive
/// an instance, so opening again works as a restore.
///
/// A harness owns its thread's module instance: use one at a time per
/// thread (each test runs on its own thread).
pub struct Harness {
    register: fn(&mut Registry),
    /// The second input is a broadcast input (`open_broadcast`).
    broadcast: bool,
}

impl Harness {
    /// A harness for the module whose register function is `register`, with
    /// no state, no timers, watermark `i64::MIN` and processing time 0.
    pub fn new(register: fn(&mut Registry)) -> Harness {
        fake::with(|h| {
            *h = fake::Fake::default();
            h.watermark = i64::MIN;
        });
        Harness {
            register,
            broadcast: false,
        }
    }

    /// Sets operator list state `name` as a restore would, before an open.
    pub fn preset_operator_list<E: AsRef<[u8]>>(&mut self, name: &str, elements: &[E]) {
        let elements = elements.iter().map(|e| e.as_ref().to_vec()).collect();
        fake::with(|h| h.operator_lists.insert(name.to_owned(), elements));
    }

    /// Sets broadcast state `name` as a restore would, before an open.
    pub fn preset_broadcast_state<K: AsRef<[u8]>, V: AsRef<[u8]>>(
        &mut self,
        name: &str,
        entries: &[(K, V)],
    ) {
        let m = entries
            .iter()
            .map(|(k, v)| (k.as_ref().to_vec(), v.as_ref().to_vec()))
            .collect();
        fake::with(|h| h.broadcast_maps.insert(name.to_owned(), m));
    }

    /// Opens an instance running `function`, with `params` and the host's
    /// `floe.*` entries (subtask 0 of 1, 128 key groups, unless given).
    pub fn open(&mut self, function: &str, params: &[(&str, &str)]) -> Result<(), Failure> {
        let mut all: Vec<(String, String)> = vec![
            ("floe.function".into(), function.into()),
            ("floe.operator".into(), "op".into()),
            ("floe.job".into(), "test".into()),
            ("floe.subtask".into(), "0".into()),
            ("floe.parallelism".into(), "1".into()),
            ("floe.max_parallelism".into(), "128".into()),
        ];
        for (k, v) in params {
            all.retain(|(n, _)| n != k);
            all.push((k.to_string(), v.to_string()));
        }
        all.sort();
        let mut block = (all.len() as u32).to_le_bytes().to_vec();
        for (k, v) in &all {
            length_prefixed(&mut block, k.as_bytes());
            length_prefixed(&mut block, v.as_bytes());
        }
        fake::with(|h| {
            h.states.clear();
            h.outputs.clear();
            h.keys.clear();
        });
        self.broadcast = false;
        input(block.len()).copy_from_slice(&block);
        let status = exports::open(block.len() as i32, self.register);
        self.finish(status).map(|_| ())
    }

    /// Opens a two-input operator (a job spec's `coProcess`) running
    /// `first` on the batches of [`process`](Harness::process) and `second`
    /// on those of [`process2`](Harness::process2), as `open` does otherwise.
    pub fn open_co_process(
        &mut self,
        first: &str,
        second: &str,
        params: &[(&str, &str)],
    ) -> Result<(), Failure> {
        let mut all = vec![("floe.function2", second)];
        all.extend_from_slice(params);
        self.open(first, &all)
    }

    /// Opens an operator with a broadcast input (a job spec's `coProcess`
    /// with `broadcast:`): `keyed` runs on the batches of
    /// [`process`](Harness::process), `broadcast` on those of
    /// [`process2`](Harness::process2), whose records have no key. As on the
    /// host, only `broadcast` may write broadcast state; a write elsewhere
    /// traps (panics here).
    pub fn open_broadcast(
        &mut self,
        keyed: &str,
        broadcast: &str,
        params: &[(&str, &str)],
    ) -> Result<(), Failure> {
        self.open_co_process(keyed, broadcast, params)?;
        self.broadcast = true;
        Ok(())
    }

    /// The broadcast state `state`, as stored, by encoded key.
    pub fn broadcast_state(&self, state: &str) -> BTreeMap<Vec<u8>, Vec<u8>> {
        fake::with(|h| h.broadcast_maps.get(state).cloned().unwrap_or_default())
    }

    /// Runs one batch and returns what it emitted.
    pub fn process(&mut self, records: &[Record]) -> Result<Vec<Emitted>, Failure> {
        self.process_with(records, exports::process)
    }

    /// Runs one batch of a two-input operator's second input (see
    /// [`open_co_process`](Harness::open_co_process)).
    pub fn process2(&mut self, records: &[Record]) -> Result<Vec<Emitted>, Failure> {
        let broadcast = self.broadcast;
        fake::with(|h| h.on_broadcast = broadcast);
        let out = self.process_with(records, exports::process2);
        fake::with(|h| h.on_broadcast = false);
        out
    }

    fn process_with(
        &mut self,
        records: &[Record],
        export: fn(i32, i32) -> i32,
    ) -> Result<Vec<Emitted>, Failure> {
        let mut batch = Vec::new();
        for r in records {
            encode_records(&mut batch, &r.key, std::slice::from_ref(r));
        }
        fake::with(|h| h.keys = records.iter().map(|r| r.key.clone()).collect());
        input(batch.len()).copy_from_slice(&batch);
        let status = export(batch.len() as i32, records.len() as i32);
        self.finish(status)
    }

    /// Advances the watermark to `wm` and fires the event-time timers due.
    pub fn advance_watermark(&mut self, wm: i64) -> Result<Vec<Emitted>, Failure> {
        fake::with(|h| h.watermark = wm);
        self.fire(0, wm)
    }

    /// Advances processing time to `now` and fires the processing-time
    /// timers due.
    pub fn advance_processing_time(&mut self, now: i64) -> Result<Vec<Emitted>, Failure> {
        fake::with(|h| h.now = now);
        self.fire(1, now)
    }

    /// Fires the timers of `domain` due at `up_to`, in timestamp then key
    /// order, as the host does.
    fn fire(&mut self, domain: i32, up_to: i64) -> Result<Vec<Emitted>, Failure> {
        let mut out = Vec::new();
        loop {
            let due = fake::with(|h| {
                let t = h
                    .timers
                    .iter()
                    .find(|(d, ts, _)| *d == domain && *ts <= up_to)?
                    .clone();
                h.timers.remove(&t);
                h.keys = vec![t.2.clone()];
                Some(t)
            });
            let (_, ts, key) = match due {
                Some(t) => t,
                None => return Ok(out),
            };
            input(key.len()).copy_from_slice(&key);
            let status = exports::on_timer(domain, ts, key.len() as i32);
            out.extend(self.finish(status)?);
        }
    }

    /// Runs an aggregate function (`Registry::aggregate`) over one window
    /// of `key` as the host does: each slice of `batches` is folded into an
    /// accumulator of its own (one `add` call with a group per slice), the
    /// accumulators are merged when there are several, and the result is
    /// asked for. Returns what the result emitted.
    pub fn aggregate_window(
        &mut self,
        key: &[u8],
        window: Window,
        batches: &[&[Record]],
    ) -> Result<Vec<Emitted>, Failure> {
        let mut p = (batches.len() as u32).to_le_bytes().to_vec();
        for b in batches {
            p.extend_from_slice(&u32::MAX.to_le_bytes());
            p.extend_from_slice(&(b.len() as u32).to_le_bytes());
            encode_records(&mut p, key, b);
        }
        let accs = self.call_window(0, &p)?;
        let acc = if accs.len() > 1 {
            let mut p = 1u32.to_le_bytes().to_vec();
            p.extend_from_slice(&(accs.len() as u32).to_le_bytes());
            for a in &accs {
                length_prefixed(&mut p, &a.value);
            }
            self.call_window(1, &p)?.remove(0).value
        } else {
            accs.into_iter().next().map(|a| a.value).unwrap_or_default()
        };
        let mut p = 1u32.to_le_bytes().to_vec();
        length_prefixed(&mut p, key);
        p.extend_from_slice(&window.start.to_le_bytes());
        p.extend_from_slice(&window.end.to_le_bytes());
        length_prefixed(&mut p, &acc);
        self.call_window(2, &p)
    }

    /// Runs a window process function (`Registry::window`) over one window
    /// of `key` with `records`, as the host does when the window fires.
    pub fn process_window(
        &mut self,
        key: &[u8],
        window: Window,
        records: &[Record],
    ) -> Result<Vec<Emitted>, Failure> {
        let mut p = 1u32.to_le_bytes().to_vec();
        length_prefixed(&mut p, key);
        p.extend_from_slice(&window.start.to_le_bytes());
        p.extend_from_slice(&window.end.to_le_bytes());
        p.extend_from_slice(&(records.len() as u32).to_le_bytes());
        encode_records(&mut p, key, records);
        self.call_window(3, &p)
    }

    fn call_window(&mut self, op: i32, payload: &[u8]) -> Result<Vec<Emitted>, Failure> {
        fake::with(|h| h.keys.clear());
        input(payload.len()).copy_from_slice(payload);
        let status = exports::window(op, payload.len() as i32);
        self.finish(status)
    }

    /// Closes the instance.
    pub fn close(&mut self) -> Result<(), Failure> {
        let status = exports::close();
        self.finish(status).map(|_| ())
    }

    /// The value state `state` of `key`, as stored.
    pub fn value(&self, state: &str, key: &[u8]) -> Option<Vec<u8>> {
        fake::with(|h| h.values.get(&(state.to_owned(), key.to_vec())).cloned())
    }

    /// The operator list state `state`, as stored.
    pub fn operator_list(&self, state: &str) -> Vec<Vec<u8>> {
        fake::with(|h| h.operator_lists.get(state).cloned().unwrap_or_default())
    }

    /// The lines logged so far, with their levels (0 debug to 3 error).
    pub fn logs(&self) -> Vec<(i32, String)> {
        fake::with(|h| h.logs.clone())
    }

    /// Takes the call's output, or its failure when `status` says so.
    fn finish(&mut self, status: i32) -> Result<Vec<Emitted>, Failure> {
        fake::with(|h| {
            let emitted = std::mem::take(&mut h.emitted);
            if status != 0 {
                let (rec, message) = h
                    .failure
                    .take()
                    .unwrap_or((-1, "failed without a message".to_owned()));
                return Err(Failure {
                    record: usize::try_from(rec).ok(),
                    message,
                });
            }
            Ok(emitted
                .into_iter()
                .map(|(port, value, ts)| Emitted {
                    output: if port == 0 {
                        "main".to_owned()
                    } else {
                        h.outputs[port as usize - 1].clone()
                    },
                    value,
                    timestamp: if ts == i64::MIN { None } else { Some(ts) },
                })
                .collect())
        })
    }
}
