//! State handles: keyed value, list and map state, and operator list state.
//!
//! Handles are declared in a process function's open (see [`Open`]) and
//! kept by the operator. Keyed state is scoped to the key of the
//! [`Context`] passed to each call; operator list state belongs to the
//! subtask.

use std::marker::PhantomData;

use crate::abi;
use crate::codec::Codec;
use crate::context::Context;
use crate::encoding::{Elements, Entries};
use crate::error::{Error, Result};

#[cfg(doc)]
use crate::Open;

/// How an operator list state is spread over the subtasks when a job is
/// restored at another parallelism (sdk/ABI.md, "Operator list state").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Redistribution {
    /// Every element lands in exactly one subtask: the pooled lists are
    /// split evenly into contiguous runs (ABI kind 4).
    EvenSplit,
    /// Every subtask gets every element of every old subtask (ABI kind 5);
    /// dedupe what each subtask appended.
    Union,
}

impl Redistribution {
    pub(crate) fn kind(self) -> i32 {
        match self {
            Redistribution::EvenSplit => 4,
            Redistribution::Union => 5,
        }
    }
}

/// The bytes a state read returns, with a buffer reused across reads.
#[derive(Debug)]
struct ReadBuf {
    buf: Vec<u8>,
}

impl ReadBuf {
    fn new() -> ReadBuf {
        // Large enough that small values (counters) need one host call.
        ReadBuf { buf: vec![0; 64] }
    }

    /// Calls `get` with the buffer, growing it until the result fits, and
    /// returns the result's bytes, or `None` when the host says absent.
    #[inline]
    fn read(&mut self, mut get: impl FnMut(&mut [u8]) -> i32) -> Option<&[u8]> {
        loop {
            let n = get(&mut self.buf);
            if n < 0 {
                return None;
            }
            let n = n as usize;
            if n <= self.buf.len() {
                return Some(&self.buf[..n]);
            }
            self.buf.resize(n + n / 4, 0);
        }
    }
}

/// What every handle knows: its id and name, and buffers.
#[derive(Debug)]
struct Handle {
    id: i32,
    name: String,
    read: ReadBuf,
    enc: Vec<u8>,
}

impl Handle {
    fn new(id: i32, name: &str) -> Handle {
        Handle {
            id,
            name: name.to_owned(),
            read: ReadBuf::new(),
            enc: Vec::new(),
        }
    }

    fn encoded<C: Codec>(&mut self, v: &C::Value) -> &[u8] {
        self.enc.clear();
        C::encode(v, &mut self.enc);
        &self.enc
    }
}

/// Returns a function that prefixes an error with the state's name.
fn in_state(name: &str) -> impl Fn(Error) -> Error + '_ {
    move |e| Error::msg(format!("state {:?}: {}", name, e))
}

/// One value per key.
#[derive(Debug)]
pub struct ValueState<C: Codec> {
    h: Handle,
    _codec: PhantomData<fn() -> C>,
}

impl<C: Codec> ValueState<C> {
    pub(crate) fn new(id: i32, name: &str) -> Self {
        ValueState {
            h: Handle::new(id, name),
            _codec: PhantomData,
        }
    }

    /// Returns the current key's value, or `None` when it has none.
    #[inline]
    pub fn get(&mut self, ctx: &Context) -> Result<Option<C::Owned>> {
        let (id, rec) = (self.h.id, ctx.rec);
        let h = &mut self.h;
        match h.read.read(|buf| abi::value_get(id, rec, buf)) {
            None => Ok(None),
            Some(b) => C::decode(b).map(Some).map_err(in_state(&h.name)),
        }
    }

    /// Returns the current key's value as the stored bytes, valid until the
    /// next call on this handle.
    pub fn get_raw(&mut self, ctx: &Context) -> Option<&[u8]> {
        let (id, rec) = (self.h.id, ctx.rec);
        self.h.read.read(|buf| abi::value_get(id, rec, buf))
    }

    /// Sets the current key's value.
    #[inline]
    pub fn put(&mut self, ctx: &Context, value: &C::Value) {
        let id = self.h.id;
        abi::value_put(id, ctx.rec, self.h.encoded::<C>(value));
    }

    /// Removes the current key's value.
    pub fn delete(&self, ctx: &Context) {
        abi::value_delete(self.h.id, ctx.rec);
    }
}

/// A list per key.
#[derive(Debug)]
pub struct ListState<C: Codec> {
    h: Handle,
    _codec: PhantomData<fn() -> C>,
}

impl<C: Codec> ListState<C> {
    pub(crate) fn new(id: i32, name: &str) -> Self {
        ListState {
            h: Handle::new(id, name),
            _codec: PhantomData,
        }
    }

    /// Appends `value` to the current key's list.
    pub fn append(&mut self, ctx: &Context, value: &C::Value) {
        let id = self.h.id;
        abi::list_append(id, ctx.rec, self.h.encoded::<C>(value));
    }

    /// Returns the current key's list (empty when it has none).
    pub fn get(&mut self, ctx: &Context) -> Result<Vec<C::Owned>> {
        let (id, rec) = (self.h.id, ctx.rec);
        decode_list::<C>(&mut self.h, |buf| abi::list_get(id, rec, buf))
    }

    /// Returns the current key's list as the stored bytes of each element,
    /// valid until the next call on this handle.
    pub fn get_raw(&mut self, ctx: &Context) -> Result<Elements<'_>> {
        let (id, rec) = (self.h.id, ctx.rec);
        read_elements(&mut self.h, |buf| abi::list_get(id, rec, buf))
    }

    /// Removes the current key's list.
    pub fn clear(&self, ctx: &Context) {
        abi::list_clear(self.h.id, ctx.rec);
    }
}

/// Reads a list_get result into an iterator over its elements.
fn read_elements<'a>(h: &'a mut Handle, get: impl FnMut(&mut [u8]) -> i32) -> Result<Elements<'a>> {
    match h.read.read(get) {
        None => Ok(Elements::empty()),
        Some(b) => Elements::new(b).map_err(in_state(&h.name)),
    }
}

/// Reads a list_get result and decodes its elements.
fn decode_list<C: Codec>(
    h: &mut Handle,
    get: impl FnMut(&mut [u8]) -> i32,
) -> Result<Vec<C::Owned>> {
    match h.read.read(get) {
        None => Ok(Vec::new()),
        Some(b) => Elements::new(b)
            .map_err(in_state(&h.name))?
            .map(|e| C::decode(e).map_err(in_state(&h.name)))
            .collect(),
    }
}

/// A map per key, from `K`'s values to `V`'s.
#[derive(Debug)]
pub struct MapState<K: Codec, V: Codec> {
    h: Handle,
    venc: Vec<u8>,
    _codec: PhantomData<fn() -> (K, V)>,
}

impl<K: Codec, V: Codec> MapState<K, V> {
    pub(crate) fn new(id: i32, name: &str) -> Self {
        MapState {
            h: Handle::new(id, name),
            venc: Vec::new(),
            _codec: PhantomData,
        }
    }

    /// Returns the value under `key` in the current key's map.
    pub fn get(&mut self, ctx: &Context, key: &K::Value) -> Result<Option<V::Owned>> {
        let (id, rec) = (self.h.id, ctx.rec);
        let h = &mut self.h;
        h.enc.clear();
        K::encode(key, &mut h.enc);
        let k = &h.enc;
        match h.read.read(|buf| abi::map_get(id, rec, k, buf)) {
            None => Ok(None),
            Some(b) => V::decode(b).map(Some).map_err(in_state(&h.name)),
        }
    }

    /// Sets `key` to `value` in the current key's map.
    pub fn put(&mut self, ctx: &Context, key: &K::Value, value: &V::Value) {
        self.h.enc.clear();
        K::encode(key, &mut self.h.enc);
        self.venc.clear();
        V::encode(value, &mut self.venc);
        abi::map_put(self.h.id, ctx.rec, &self.h.enc, &self.venc);
    }

    /// Removes `key` from the current key's map.
    pub fn delete(&mut self, ctx: &Context, key: &K::Value) {
        let id = self.h.id;
        abi::map_delete(id, ctx.rec, self.h.encoded::<K>(key));
    }

    /// Returns the current key's entries in ascending order of their
    /// encoded keys.
    pub fn entries(&mut self, ctx: &Context) -> Result<Vec<(K::Owned, V::Owned)>> {
        let (id, rec) = (self.h.id, ctx.rec);
        let h = &mut self.h;
        let wrap = in_state(&h.name);
        let entries = match h.read.read(|buf| abi::map_entries(id, rec, buf)) {
            None => return Ok(Vec::new()),
            Some(b) => Entries::new(b).map_err(&wrap)?,
        };
        entries
            .map(|(k, v)| Ok((K::decode(k).map_err(&wrap)?, V::decode(v).map_err(&wrap)?)))
            .collect()
    }

    /// Returns the current key's entries as stored bytes, in ascending key
    /// order, valid until the next call on this handle.
    pub fn entries_raw(&mut self, ctx: &Context) -> Result<Entries<'_>> {
        let (id, rec) = (self.h.id, ctx.rec);
        let h = &mut self.h;
        match h.read.read(|buf| abi::map_entries(id, rec, buf)) {
            None => Ok(Entries::empty()),
            Some(b) => Entries::new(b).map_err(in_state(&h.name)),
        }
    }

    /// Removes every entry of the current key's map.
    pub fn clear(&self, ctx: &Context) {
        abi::map_clear(self.h.id, ctx.rec);
    }
}

/// Operator list state: one list per subtask, not per key, usable by any
/// operator from its open on. It is checkpointed with the job and spread
/// over the subtasks at a rescale by its [`Redistribution`].
#[derive(Debug)]
pub struct OperatorListState<C: Codec> {
    h: Handle,
    _codec: PhantomData<fn() -> C>,
}

impl<C: Codec> OperatorListState<C> {
    pub(crate) fn new(id: i32, name: &str) -> Self {
        OperatorListState {
            h: Handle::new(id, name),
            _codec: PhantomData,
        }
    }

    /// Appends `value` to this subtask's list.
    pub fn append(&mut self, value: &C::Value) {
        let id = self.h.id;
        abi::list_append(id, abi::NO_RECORD, self.h.encoded::<C>(value));
    }

    /// Returns this subtask's list (empty when it has none).
    pub fn get(&mut self) -> Result<Vec<C::Owned>> {
        let id = self.h.id;
        decode_list::<C>(&mut self.h, |buf| abi::list_get(id, abi::NO_RECORD, buf))
    }

    /// Returns this subtask's list as the stored bytes of each element,
    /// valid until the next call on this handle.
    pub fn get_raw(&mut self) -> Result<Elements<'_>> {
        let id = self.h.id;
        read_elements(&mut self.h, |buf| abi::list_get(id, abi::NO_RECORD, buf))
    }

    /// Empties this subtask's list.
    pub fn clear(&self) {
        abi::list_clear(self.h.id, abi::NO_RECORD);
    }
}

/// Broadcast map state (Flink's broadcast state): one map from `K`'s values
/// to `V`'s per subtask, not per key, for an operator with a broadcast input
/// (a job spec's `coProcess` with `broadcast:`). Every subtask gets every
/// record of the broadcast input, and that input's function keeps what they
/// say here; the keyed input's function reads it.
///
/// Only the broadcast input's function may write ([`put`](Self::put),
/// [`delete`](Self::delete), [`clear`](Self::clear)): a write anywhere else
/// traps, since every subtask's copy must see the same writes. It is
/// checkpointed with the operator, and every subtask gets the whole map
/// back on a restore at any parallelism.
#[derive(Debug)]
pub struct BroadcastState<K: Codec, V: Codec> {
    h: Handle,
    venc: Vec<u8>,
    _codec: PhantomData<fn() -> (K, V)>,
}

impl<K: Codec, V: Codec> BroadcastState<K, V> {
    pub(crate) fn new(id: i32, name: &str) -> Self {
        BroadcastState {
            h: Handle::new(id, name),
            venc: Vec::new(),
            _codec: PhantomData,
        }
    }

    /// Returns the value under `key`.
    pub fn get(&mut self, key: &K::Value) -> Result<Option<V::Owned>> {
        let id = self.h.id;
        let h = &mut self.h;
        h.enc.clear();
        K::encode(key, &mut h.enc);
        let k = &h.enc;
        match h.read.read(|buf| abi::map_get(id, abi::NO_RECORD, k, buf)) {
            None => Ok(None),
            Some(b) => V::decode(b).map(Some).map_err(in_state(&h.name)),
        }
    }

    /// Sets `key` to `value`; only in the broadcast input's function.
    pub fn put(&mut self, key: &K::Value, value: &V::Value) {
        self.h.enc.clear();
        K::encode(key, &mut self.h.enc);
        self.venc.clear();
        V::encode(value, &mut self.venc);
        abi::map_put(self.h.id, abi::NO_RECORD, &self.h.enc, &self.venc);
    }

    /// Removes `key`; only in the broadcast input's function.
    pub fn delete(&mut self, key: &K::Value) {
        let id = self.h.id;
        abi::map_delete(id, abi::NO_RECORD, self.h.encoded::<K>(key));
    }

    /// Returns the entries in ascending order of their encoded keys.
    pub fn entries(&mut self) -> Result<Vec<(K::Owned, V::Owned)>> {
        let id = self.h.id;
        let h = &mut self.h;
        let wrap = in_state(&h.name);
        let entries = match h.read.read(|buf| abi::map_entries(id, abi::NO_RECORD, buf)) {
            None => return Ok(Vec::new()),
            Some(b) => Entries::new(b).map_err(&wrap)?,
        };
        entries
            .map(|(k, v)| Ok((K::decode(k).map_err(&wrap)?, V::decode(v).map_err(&wrap)?)))
            .collect()
    }

    /// Removes every entry; only in the broadcast input's function.
    pub fn clear(&self) {
        abi::map_clear(self.h.id, abi::NO_RECORD);
    }
}
