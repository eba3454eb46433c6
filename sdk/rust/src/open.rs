//! Opening an operator: declaring its state and side outputs.

use crate::abi;
use crate::codec::Codec;
use crate::context::Output;
use crate::error::{Error, Result};
use crate::params::Params;
use crate::state::{
    BroadcastState, ListState, MapState, OperatorListState, Redistribution, ValueState,
};

/// What a process function's open gets: the parameters, and the
/// declarations of state and side outputs. See [`Registry::process`](crate::Registry::process).
pub struct Open<'a> {
    pub(crate) params: &'a Params,
}

impl<'a> Open<'a> {
    /// The operator's parameters.
    pub fn params(&self) -> &'a Params {
        self.params
    }

    /// Declares the side output `name` and returns it, for
    /// [`Context::emit_to`](crate::Context::emit_to). Declaring a name twice
    /// returns the same output.
    pub fn output(&mut self, name: &str) -> Output {
        Output(abi::output_declare(name) as u32)
    }

    /// Starts declaring the state `name`, to set options before its shape:
    /// `open.state("counts").queryable().value(I64)?`.
    pub fn state<'b>(&'b mut self, name: &'b str) -> StateBuilder<'b> {
        StateBuilder {
            name,
            queryable: false,
        }
    }

    /// Declares keyed value state: one value per key.
    pub fn value_state<C: Codec>(&mut self, name: &str, codec: C) -> Result<ValueState<C>> {
        self.state(name).value(codec)
    }

    /// Declares keyed list state: a list per key.
    pub fn list_state<C: Codec>(&mut self, name: &str, codec: C) -> Result<ListState<C>> {
        self.state(name).list(codec)
    }

    /// Declares keyed map state: a map per key from `K`'s values to `V`'s.
    pub fn map_state<K: Codec, V: Codec>(
        &mut self,
        name: &str,
        key: K,
        value: V,
    ) -> Result<MapState<K, V>> {
        self.state(name).map(key, value)
    }

    /// Declares operator list state: one list per subtask, redistributed
    /// at a rescale by `mode`. A restored list is readable right away.
    pub fn operator_list_state<C: Codec>(
        &mut self,
        name: &str,
        codec: C,
        mode: Redistribution,
    ) -> Result<OperatorListState<C>> {
        self.state(name).operator_list(codec, mode)
    }

    /// Declares broadcast map state: one map per subtask from `K`'s values
    /// to `V`'s, written only by the function of a broadcast input.
    pub fn broadcast_state<K: Codec, V: Codec>(
        &mut self,
        name: &str,
        key: K,
        value: V,
    ) -> Result<BroadcastState<K, V>> {
        self.state(name).broadcast_map(key, value)
    }
}

/// A state declaration in progress; see [`Open::state`].
#[must_use = "a state is declared by value, list, map or operator_list"]
pub struct StateBuilder<'b> {
    name: &'b str,
    queryable: bool,
}

impl<'b> StateBuilder<'b> {
    /// Makes the state readable from outside the job (queryable state),
    /// rendered by its codec's [`ValueType`](crate::ValueType).
    pub fn queryable(mut self) -> Self {
        self.queryable = true;
        self
    }

    /// Declares it as keyed value state.
    pub fn value<C: Codec>(self, _codec: C) -> Result<ValueState<C>> {
        Ok(ValueState::new(
            self.declare(abi::KIND_VALUE, C::VALUE_TYPE as i32)?,
            self.name,
        ))
    }

    /// Declares it as keyed list state.
    pub fn list<C: Codec>(self, _codec: C) -> Result<ListState<C>> {
        Ok(ListState::new(
            self.declare(abi::KIND_LIST, C::VALUE_TYPE as i32)?,
            self.name,
        ))
    }

    /// Declares it as keyed map state; queries render its values by `V`.
    pub fn map<K: Codec, V: Codec>(self, _key: K, _value: V) -> Result<MapState<K, V>> {
        Ok(MapState::new(
            self.declare(abi::KIND_MAP, V::VALUE_TYPE as i32)?,
            self.name,
        ))
    }

    /// Declares it as operator list state.
    pub fn operator_list<C: Codec>(
        self,
        _codec: C,
        mode: Redistribution,
    ) -> Result<OperatorListState<C>> {
        Ok(OperatorListState::new(
            self.declare(mode.kind(), C::VALUE_TYPE as i32)?,
            self.name,
        ))
    }

    /// Declares it as broadcast map state.
    pub fn broadcast_map<K: Codec, V: Codec>(
        self,
        _key: K,
        _value: V,
    ) -> Result<BroadcastState<K, V>> {
        Ok(BroadcastState::new(
            self.declare(abi::KIND_BROADCAST_MAP, V::VALUE_TYPE as i32)?,
            self.name,
        ))
    }

    fn declare(&self, kind: i32, value_type: i32) -> Result<i32> {
        let flags = value_type << 8 | self.queryable as i32;
        let id = abi::state_declare(kind, self.name, flags);
        if id < 0 {
            return Err(Error::msg(format!(
                "declaring state {:?} failed",
                self.name
            )));
        }
        Ok(id)
    }
}
