//! The host's functions (sdk/ABI.md, "Host functions"), behind safe
//! wrappers that take slices.
//!
//! On wasm32 they are the `floe_v1` imports. Elsewhere (`cargo test` on the
//! build machine) they are an in-process fake host, [`crate::testing`], so
//! operators can be unit-tested natively.

#[cfg(target_arch = "wasm32")]
mod wasm;
#[cfg(target_arch = "wasm32")]
pub(crate) use wasm::*;

#[cfg(not(target_arch = "wasm32"))]
pub(crate) mod fake;
#[cfg(not(target_arch = "wasm32"))]
pub(crate) use fake::*;

/// The state kinds of state_declare.
pub(crate) const KIND_VALUE: i32 = 1;
pub(crate) const KIND_LIST: i32 = 2;
pub(crate) const KIND_MAP: i32 = 3;
pub(crate) const KIND_BROADCAST_MAP: i32 = 6;

/// The `rec` that operator list state calls pass.
pub(crate) const NO_RECORD: i32 = -1;
