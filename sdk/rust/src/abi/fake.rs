//! A fake host for native builds: the `floe_v1` functions over in-memory
//! state, driven by [`crate::testing::Harness`]. Misuse the real host would
//! trap on panics here.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

/// One key's map state.
pub(crate) type Map = BTreeMap<Vec<u8>, Vec<u8>>;

/// What the fake host holds for one thread (one module instance).
#[derive(Default)]
pub(crate) struct Fake {
    /// The key of each record of the call in progress (one, for a timer).
    pub keys: Vec<Vec<u8>>,
    /// Records emitted since the harness last took them: port, value, ts.
    pub emitted: Vec<(u32, Vec<u8>, i64)>,
    pub outputs: Vec<String>,
    pub failure: Option<(i32, String)>,
    pub logs: Vec<(i32, String)>,
    /// Declared states by id: kind, name.
    pub states: Vec<(i32, String)>,
    pub values: BTreeMap<(String, Vec<u8>), Vec<u8>>,
    pub lists: BTreeMap<(String, Vec<u8>), Vec<Vec<u8>>>,
    pub maps: BTreeMap<(String, Vec<u8>), Map>,
    pub operator_lists: BTreeMap<String, Vec<Vec<u8>>>,
    /// Broadcast map states by name (kind 6).
    pub broadcast_maps: BTreeMap<String, Map>,
    /// The call in progress is a broadcast input's, which alone may write
    /// broadcast state and has no key.
    pub on_broadcast: bool,
    /// Registered timers: domain, timestamp, key.
    pub timers: BTreeSet<(i32, i64, Vec<u8>)>,
    pub watermark: i64,
    pub now: i64,
}

thread_local! {
    static FAKE: RefCell<Fake> = RefCell::new(Fake::default());
}

/// Runs `f` on this thread's fake host.
pub(crate) fn with<R>(f: impl FnOnce(&mut Fake) -> R) -> R {
    FAKE.with(|h| f(&mut h.borrow_mut()))
}

/// Where a state call lands.
enum Scope {
    Keyed(String, Vec<u8>),
    Operator(String),
}

impl Fake {
    fn scope(&self, state: i32, rec: i32, kinds: &[i32]) -> Scope {
        let (kind, name) = self
            .states
            .get(state as usize)
            .unwrap_or_else(|| panic!("trap: unknown state id {}", state));
        assert!(
            kinds.contains(kind),
            "trap: state {:?} of kind {} used as one of kinds {:?}",
            name,
            kind,
            kinds
        );
        if *kind >= 4 {
            return Scope::Operator(name.clone());
        }
        assert!(
            !self.on_broadcast,
            "trap: keyed state {:?} used by the function of the broadcast input, whose records have no key",
            name
        );
        let key = self
            .keys
            .get(rec as usize)
            .unwrap_or_else(|| panic!("trap: state {:?} used with record index {}", name, rec));
        Scope::Keyed(name.clone(), key.clone())
    }

    fn key(&self, rec: i32) -> Vec<u8> {
        self.keys
            .get(rec as usize)
            .unwrap_or_else(|| panic!("trap: timer for record index {}", rec))
            .clone()
    }

    fn list(&mut self, s: Scope) -> &mut Vec<Vec<u8>> {
        match s {
            Scope::Keyed(name, key) => self.lists.entry((name, key)).or_default(),
            Scope::Operator(name) => self.operator_lists.entry(name).or_default(),
        }
    }
}

impl Fake {
    /// The broadcast map behind `state` when it is one; `write` traps
    /// unless the call is the broadcast input's, as the host does.
    fn broadcast(&mut self, state: i32, write: bool) -> Option<&mut Map> {
        let (kind, name) = self.states.get(state as usize)?;
        if *kind != KIND_BROADCAST_MAP {
            return None;
        }
        assert!(
            !write || self.on_broadcast,
            "trap: broadcast state {:?} is read-only here: only the function of the broadcast input may write it",
            name
        );
        Some(self.broadcast_maps.entry(name.clone()).or_default())
    }
}

const KIND_BROADCAST_MAP: i32 = 6;

fn keyed(s: Scope) -> (String, Vec<u8>) {
    match s {
        Scope::Keyed(n, k) => (n, k),
        Scope::Operator(n) => panic!("trap: operator state {:?} used as keyed state", n),
    }
}

/// Writes `v` to `buf` when it fits and returns its length.
fn give(v: &[u8], buf: &mut [u8]) -> i32 {
    if v.len() <= buf.len() {
        buf[..v.len()].copy_from_slice(v);
    }
    v.len() as i32
}

fn length_prefixed(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b);
}

const VALUE: &[i32] = &[1];
const LIST: &[i32] = &[2, 4, 5];
const MAP: &[i32] = &[3];

pub(crate) fn emit(run: &[u8]) {
    let mut off = 0;
    while off < run.len() {
        assert!(run.len() - off >= 16, "trap: emit: truncated output record");
        let le32 = |o: usize| u32::from_le_bytes([run[o], run[o + 1], run[o + 2], run[o + 3]]);
        let (port, n) = (le32(off), le32(off + 4) as usize);
        let mut ts = [0; 8];
        ts.copy_from_slice(&run[off + 8..off + 16]);
        let value = run[off + 16..off + 16 + n].to_vec();
        with(|h| {
            assert!(
                port as usize <= h.outputs.len(),
                "trap: emit to undeclared output port {}",
                port
            );
            h.emitted.push((port, value, i64::from_le_bytes(ts)))
        });
        off += 16 + n;
    }
}

pub(crate) fn output_declare(name: &str) -> i32 {
    with(|h| match h.outputs.iter().position(|o| o == name) {
        Some(i) => i as i32 + 1,
        None => {
            h.outputs.push(name.to_owned());
            h.outputs.len() as i32
        }
    })
}

pub(crate) fn fail(rec: i32, msg: &str) {
    with(|h| h.failure = Some((rec, msg.to_owned())));
}

pub(crate) fn log(level: i32, msg: &str) {
    with(|h| h.logs.push((level, msg.to_owned())));
}

pub(crate) fn state_declare(kind: i32, name: &str, _flags: i32) -> i32 {
    with(|h| {
        if let Some(i) = h.states.iter().position(|(_, n)| n == name) {
            assert_eq!(
                h.states[i].0, kind,
                "trap: state {:?} declared with two kinds",
                name
            );
            return i as i32;
        }
        assert!((1..=6).contains(&kind), "trap: unknown state kind {}", kind);
        h.states.push((kind, name.to_owned()));
        h.states.len() as i32 - 1
    })
}

pub(crate) fn value_get(state: i32, rec: i32, buf: &mut [u8]) -> i32 {
    with(|h| {
        let k = keyed(h.scope(state, rec, VALUE));
        h.values.get(&k).map_or(-1, |v| give(v, buf))
    })
}

pub(crate) fn value_put(state: i32, rec: i32, v: &[u8]) {
    with(|h| {
        let k = keyed(h.scope(state, rec, VALUE));
        h.values.insert(k, v.to_vec());
    })
}

pub(crate) fn value_delete(state: i32, rec: i32) {
    with(|h| {
        let k = keyed(h.scope(state, rec, VALUE));
        h.values.remove(&k);
    })
}

pub(crate) fn list_append(state: i32, rec: i32, v: &[u8]) {
    with(|h| {
        let s = h.scope(state, rec, LIST);
        h.list(s).push(v.to_vec())
    })
}

pub(crate) fn list_get(state: i32, rec: i32, buf: &mut [u8]) -> i32 {
    with(|h| {
        let s = h.scope(state, rec, LIST);
        let mut all = Vec::new();
        for e in h.list(s).iter() {
            length_prefixed(&mut all, e);
        }
        if all.is_empty() {
            -1
        } else {
            give(&all, buf)
        }
    })
}

pub(crate) fn list_clear(state: i32, rec: i32) {
    with(|h| {
        let s = h.scope(state, rec, LIST);
        h.list(s).clear()
    })
}

pub(crate) fn map_get(state: i32, rec: i32, k: &[u8], buf: &mut [u8]) -> i32 {
    with(|h| {
        if let Some(m) = h.broadcast(state, false) {
            return m.get(k).map_or(-1, |v| give(v, buf));
        }
        let s = keyed(h.scope(state, rec, MAP));
        h.maps
            .get(&s)
            .and_then(|m| m.get(k))
            .map_or(-1, |v| give(v, buf))
    })
}

pub(crate) fn map_put(state: i32, rec: i32, k: &[u8], v: &[u8]) {
    with(|h| {
        if let Some(m) = h.broadcast(state, true) {
            m.insert(k.to_vec(), v.to_vec());
            return;
        }
        let s = keyed(h.scope(state, rec, MAP));
        h.maps.entry(s).or_default().insert(k.to_vec(), v.to_vec());
    })
}

pub(crate) fn map_delete(state: i32, rec: i32, k: &[u8]) {
    with(|h| {
        if let Some(m) = h.broadcast(state, true) {
            m.remove(k);
            return;
        }
        let s = keyed(h.scope(state, rec, MAP));
        if let Some(m) = h.maps.get_mut(&s) {
            m.remove(k);
        }
    })
}

pub(crate) fn map_entries(state: i32, rec: i32, buf: &mut [u8]) -> i32 {
    with(|h| {
        let m = match h.broadcast(state, false) {
            Some(m) => Some(m.clone()),
            None => {
                let s = keyed(h.scope(state, rec, MAP));
                h.maps.get(&s).cloned()
            }
        };
        let mut all = Vec::new();
        for (k, v) in m.iter().flatten() {
            length_prefixed(&mut all, k);
            length_prefixed(&mut all, v);
        }
        if all.is_empty() {
            -1
        } else {
            give(&all, buf)
        }
    })
}

pub(crate) fn map_clear(state: i32, rec: i32) {
    with(|h| {
        if let Some(m) = h.broadcast(state, true) {
            m.clear();
            return;
        }
        let s = keyed(h.scope(state, rec, MAP));
        h.maps.remove(&s);
    })
}

pub(crate) fn timer_register(rec: i32, domain: i32, ts: i64) {
    with(|h| {
        let key = h.key(rec);
        h.timers.insert((domain, ts, key));
    })
}

pub(crate) fn timer_delete(rec: i32, domain: i32, ts: i64) {
    with(|h| {
        let key = h.key(rec);
        h.timers.remove(&(domain, ts, key));
    })
}

pub(crate) fn current_watermark() -> i64 {
    with(|h| h.watermark)
}

pub(crate) fn processing_time() -> i64 {
    with(|h| h.now)
}
