//! SQL functions (sdk/ABI.md, "SQL functions"): a scalar function that a
//! SQL script declares with `CREATE FUNCTION` is a map function whose input
//! record holds the call's arguments as a row of SQL values and whose output
//! is the result, one value.

use crate::{Error, Registry, Result};

/// One SQL value; its tag in the encoding is the variant's.
#[derive(Clone, Debug, PartialEq)]
pub enum SqlValue {
    /// NULL, of any type (tag 0).
    Null,
    /// A `BOOLEAN` (tag 1).
    Boolean(bool),
    /// A `BIGINT` (tag 2).
    BigInt(i64),
    /// A `DOUBLE` (tag 3).
    Double(f64),
    /// A `VARCHAR` (tag 4).
    Varchar(String),
}

impl SqlValue {
    /// Reports whether the value is NULL.
    pub fn is_null(&self) -> bool {
        matches!(self, SqlValue::Null)
    }
}

const NOT_SQL: &str = "not an encoded SQL value";

/// Decodes a row of SQL values, the whole of `b`, value after value, into
/// `dst`, which it clears first. A malformed value's error names its
/// position, from 1.
pub fn decode_sql_row(b: &[u8], dst: &mut Vec<SqlValue>) -> Result<()> {
    dst.clear();
    let mut b = b;
    while !b.is_empty() {
        let (v, n) = decode_value(b)
            .map_err(|e| Error::msg(format!("value {}: {}", dst.len() + 1, e.message())))?;
        dst.push(v);
        b = &b[n..];
    }
    Ok(())
}

fn decode_value(b: &[u8]) -> Result<(SqlValue, usize)> {
    match b[0] {
        0 => Ok((SqlValue::Null, 1)),
        1 if b.len() >= 2 => Ok((SqlValue::Boolean(b[1] & 1 == 1), 2)),
        2 | 3 if b.len() >= 9 => {
            let u = u64::from_le_bytes(b[1..9].try_into().unwrap());
            if b[0] == 2 {
                Ok((SqlValue::BigInt(u as i64), 9))
            } else {
                Ok((SqlValue::Double(f64::from_bits(u)), 9))
            }
        }
        4 => {
            let (len, n) = uvarint(&b[1..]).ok_or(Error::msg(NOT_SQL))?;
            let start = 1 + n;
            if len > (b.len() - start) as u64 {
                return Err(Error::msg(NOT_SQL));
            }
            let end = start + len as usize;
            let s = std::str::from_utf8(&b[start..end]).map_err(|_| Error::msg(NOT_SQL))?;
            Ok((SqlValue::Varchar(s.to_owned()), end))
        }
        1..=3 => Err(Error::msg(NOT_SQL)),
        t => Err(Error::msg(format!("{}: tag {}", NOT_SQL, t))),
    }
}

/// Reads a uvarint (LEB128) of at most 10 bytes: the value and its length.
fn uvarint(b: &[u8]) -> Option<(u64, usize)> {
    let mut x = 0u64;
    for (i, &c) in b.iter().enumerate().take(10) {
        if i == 9 && c > 1 {
            return None;
        }
        x |= u64::from(c & 0x7f) << (7 * i);
        if c < 0x80 {
            return Some((x, i + 1));
        }
    }
    None
}

/// Appends the encoding of `v` to `dst`.
pub fn append_sql_value(dst: &mut Vec<u8>, v: &SqlValue) {
    match v {
        SqlValue::Null => dst.push(0),
        SqlValue::Boolean(b) => dst.extend_from_slice(&[1, *b as u8]),
        SqlValue::BigInt(i) => {
            dst.push(2);
            dst.extend_from_slice(&i.to_le_bytes());
        }
        SqlValue::Double(f) => {
            dst.push(3);
            dst.extend_from_slice(&f.to_bits().to_le_bytes());
        }
        SqlValue::Varchar(s) => {
            dst.push(4);
            let mut n = s.len() as u64;
            while n >= 0x80 {
                dst.push(n as u8 | 0x80);
                n >>= 7;
            }
            dst.push(n as u8);
            dst.extend_from_slice(s.as_bytes());
        }
    }
}

impl Registry {
    /// Registers `f` as the scalar SQL function `name` (a map function):
    /// each record's arguments are decoded and `f`'s result encoded. `f`
    /// gets NULL arguments as [`SqlValue::Null`] and may return it; an
    /// error fails the job.
    ///
    /// ```
    /// use floe::{Registry, SqlValue};
    ///
    /// // CREATE FUNCTION price_band(price BIGINT) RETURNS VARCHAR AS 'ops.wasm'
    /// fn register(r: &mut Registry) {
    ///     r.sql_function("price_band", |args: &[SqlValue]| {
    ///         Ok(match args[0] {
    ///             SqlValue::Null => SqlValue::Null, // NULL in, NULL out, as SQL's built-ins
    ///             SqlValue::BigInt(p) if p < 100 => SqlValue::Varchar("low".into()),
    ///             SqlValue::BigInt(p) if p < 700 => SqlValue::Varchar("mid".into()),
    ///             _ => SqlValue::Varchar("high".into()),
    ///         })
    ///     });
    /// }
    /// # let _ = register;
    /// ```
    pub fn sql_function<F>(&mut self, name: &str, mut f: F)
    where
        F: FnMut(&[SqlValue]) -> Result<SqlValue> + 'static,
    {
        let mut args = Vec::new();
        self.map(name, move |rec, out| {
            decode_sql_row(rec, &mut args)?;
            append_sql_value(out, &f(&args)?);
            Ok(())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The encodings below are worked by hand from sdk/ABI.md's table: a tag
    // byte, then 8 little-endian bytes for BIGINT and DOUBLE, one byte for
    // BOOLEAN, a uvarint length and the bytes for VARCHAR.
    fn row() -> (Vec<u8>, Vec<SqlValue>) {
        let mut b = vec![0u8];
        b.extend_from_slice(&[1, 1]);
        b.extend_from_slice(&[2, 0xf4, 0x01, 0, 0, 0, 0, 0, 0]); // 500
        b.extend_from_slice(&[2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]); // -1
        b.extend_from_slice(&[3, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f]); // 1.5
        b.extend_from_slice(&[4, 3, b'a', b'b', b'c']);
        let v = vec![
            SqlValue::Null,
            SqlValue::Boolean(true),
            SqlValue::BigInt(500),
            SqlValue::BigInt(-1),
            SqlValue::Double(1.5),
            SqlValue::Varchar("abc".into()),
        ];
        (b, v)
    }

    #[test]
    fn decodes_a_row() {
        let (b, want) = row();
        let mut got = vec![SqlValue::BigInt(9)];
        decode_sql_row(&b, &mut got).unwrap();
        assert_eq!(got, want);
        decode_sql_row(&[], &mut got).unwrap();
        assert!(got.is_empty());
    }

    #[test]
    fn encodes_each_value() {
        let (want, vals) = row();
        let mut got = Vec::new();
        for v in &vals {
            append_sql_value(&mut got, v);
        }
        assert_eq!(got, want);
    }

    #[test]
    fn long_varchar_has_a_two_byte_length() {
        // 200 = 0b1_1001000: low 7 bits 0x48 with the continuation bit, then 1.
        let s = "x".repeat(200);
        let mut b = Vec::new();
        append_sql_value(&mut b, &SqlValue::Varchar(s.clone()));
        assert_eq!(&b[..3], &[4, 0xc8, 0x01]);
        assert_eq!(b.len(), 203);
        let mut got = Vec::new();
        decode_sql_row(&b, &mut got).unwrap();
        assert_eq!(got, vec![SqlValue::Varchar(s)]);
    }

    #[test]
    fn refuses_malformed_rows() {
        let cases: &[(&[u8], &str)] = &[
            (&[2, 1, 2, 3], "value 1: not an encoded SQL value"),
            (&[0, 1], "value 2: not an encoded SQL value"),
            (&[4, 5, b'a'], "value 1: not an encoded SQL value"),
            (&[4, 0x80], "value 1: not an encoded SQL value"),
            (&[0, 0, 9], "value 3: not an encoded SQL value: tag 9"),
        ];
        let mut got = Vec::new();
        for (b, msg) in cases {
            let err = decode_sql_row(b, &mut got).unwrap_err();
            assert_eq!(err.message(), *msg, "row {:?}", b);
        }
    }
}
