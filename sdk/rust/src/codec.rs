//! Typed state values.

use std::borrow::Borrow;

use crate::error::{Error, Result};

/// How queries render a queryable state's values (the flags of the ABI's
/// `state_declare`, bits 8–15).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueType {
    /// Raw bytes.
    Bytes = 0,
    /// An `i64`, 8 bytes little-endian.
    Int64 = 1,
    /// UTF-8 text.
    String = 2,
    /// A JSON document.
    Json = 3,
}

/// Turns state values into the bytes the host stores, and back.
///
/// The SDK has codecs for `i64` ([`I64`]), text ([`Str`]) and bytes
/// ([`Bytes`]); implement this trait for others, such as JSON with the
/// serializer of your choice.
pub trait Codec: 'static {
    /// What a state's `put` takes (may be unsized, as `str`).
    type Value: ?Sized;
    /// What a state's `get` returns.
    type Owned: Borrow<Self::Value>;
    /// How queries render the encoded bytes.
    const VALUE_TYPE: ValueType;
    /// Appends the encoding of `value` to `out`.
    fn encode(value: &Self::Value, out: &mut Vec<u8>);
    /// Decodes `bytes`, which are valid only during the call.
    fn decode(bytes: &[u8]) -> Result<Self::Owned>;
}

/// Stores an `i64` as 8 bytes, little-endian: the ABI's `int64` value type.
#[derive(Clone, Copy, Debug, Default)]
pub struct I64;

impl Codec for I64 {
    type Value = i64;
    type Owned = i64;
    const VALUE_TYPE: ValueType = ValueType::Int64;

    #[inline]
    fn encode(value: &i64, out: &mut Vec<u8>) {
        out.extend_from_slice(&value.to_le_bytes());
    }

    #[inline]
    fn decode(bytes: &[u8]) -> Result<i64> {
        if bytes.len() != 8 {
            return Err(Error::msg(format!(
                "int64 state value of {} bytes, want 8",
                bytes.len()
            )));
        }
        let mut b = [0; 8];
        b.copy_from_slice(bytes);
        Ok(i64::from_le_bytes(b))
    }
}

/// Stores text as its UTF-8 bytes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Str;

impl Codec for Str {
    type Value = str;
    type Owned = String;
    const VALUE_TYPE: ValueType = ValueType::String;

    fn encode(value: &str, out: &mut Vec<u8>) {
        out.extend_from_slice(value.as_bytes());
    }

    fn decode(bytes: &[u8]) -> Result<String> {
        Ok(std::str::from_utf8(bytes)?.to_owned())
    }
}

/// Stores bytes as they are.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bytes;

impl Codec for Bytes {
    type Value = [u8];
    type Owned = Vec<u8>;
    const VALUE_TYPE: ValueType = ValueType::Bytes;

    fn encode(value: &[u8], out: &mut Vec<u8>) {
        out.extend_from_slice(value);
    }

    fn decode(bytes: &[u8]) -> Result<Vec<u8>> {
        Ok(bytes.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<C: Codec>(v: &C::Value) -> C::Owned {
        let mut b = Vec::new();
        C::encode(v, &mut b);
        C::decode(&b).unwrap()
    }

    #[test]
    fn codecs_round_trip() {
        for n in [0, 1, -1, i64::MIN, i64::MAX] {
            assert_eq!(round_trip::<I64>(&n), n);
        }
        assert_eq!(round_trip::<Str>("héllo"), "héllo");
        assert_eq!(round_trip::<Bytes>(b"\x00\xff"), b"\x00\xff");
    }

    #[test]
    fn int64_is_little_endian() {
        let mut b = Vec::new();
        I64::encode(&0x0102, &mut b);
        assert_eq!(b, [2, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            I64::decode(&[1, 2, 3]).unwrap_err().message(),
            "int64 state value of 3 bytes, want 8"
        );
    }

    #[test]
    fn invalid_utf8_is_an_error() {
        assert!(Str::decode(b"\xff").is_err());
    }
}
