//! Decoding the pair a join function receives.

use crate::error::{Error, Result};

/// Splits the value a join function receives for one joined pair
/// (sdk/ABI.md, "Join functions") into its left value and its right one:
/// `u32 left_len` (little-endian), the left value, `u8 has_right`, then the
/// right value, which is the rest of the frame.
///
/// The right value is `None` for a left outer join's left row without a
/// match (`has_right` 0). Both slices borrow from `value`. A frame shorter
/// than its 5-byte header, whose `left_len` runs past its end, whose
/// `has_right` is neither 0 nor 1, or with bytes after a `has_right` of 0
/// is refused with an error.
///
/// ```
/// // The pair ("ab", "c"), then the unmatched left row "ab".
/// let pair = [2, 0, 0, 0, b'a', b'b', 1, b'c'];
/// assert_eq!(floe::split_pair(&pair).unwrap(), (&b"ab"[..], Some(&b"c"[..])));
/// let unmatched = [2, 0, 0, 0, b'a', b'b', 0];
/// assert_eq!(floe::split_pair(&unmatched).unwrap(), (&b"ab"[..], None));
/// ```
pub fn split_pair(value: &[u8]) -> Result<(&[u8], Option<&[u8]>)> {
    if value.len() < 5 {
        return Err(Error::msg(format!(
            "malformed join pair: {} bytes is shorter than the 5-byte header",
            value.len()
        )));
    }
    let n = u32::from_le_bytes([value[0], value[1], value[2], value[3]]) as u64;
    if n + 5 > value.len() as u64 {
        return Err(Error::msg(format!(
            "malformed join pair: a left value of {} bytes does not fit in {} bytes",
            n,
            value.len()
        )));
    }
    let (left, rest) = value[4..].split_at(n as usize);
    match rest[0] {
        0 if rest.len() > 1 => Err(Error::msg(format!(
            "malformed join pair: has_right is 0 but {} right bytes follow",
            rest.len() - 1
        ))),
        0 => Ok((left, None)),
        1 => Ok((left, Some(&rest[1..]))),
        flag => Err(Error::msg(format!(
            "malformed join pair: has_right is {}, not 0 or 1",
            flag
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::split_pair;

    // The frames are written out byte by byte from sdk/ABI.md's layout:
    // u32 left_len little-endian, left, u8 has_right, right.
    #[test]
    fn splits_well_formed_frames() {
        let cases: [(&[u8], &[u8], Option<&[u8]>); 5] = [
            (&[2, 0, 0, 0, b'l', b'1', 1, b'r', b'1', b'2'], b"l1", Some(b"r12")),
            (&[0, 0, 0, 0, 1, b'r'], b"", Some(b"r")),
            (&[3, 0, 0, 0, b'a', b'b', b'c', 1], b"abc", Some(b"")),
            (&[1, 0, 0, 0, b'x', 0], b"x", None),
            (&[0, 0, 0, 0, 1], b"", Some(b"")),
        ];
        for (frame, left, right) in cases {
            assert_eq!(split_pair(frame).unwrap(), (left, right), "frame {:?}", frame);
        }
    }

    #[test]
    fn refuses_malformed_frames() {
        let cases: [(&[u8], &str); 7] = [
            (&[], "0 bytes is shorter than the 5-byte header"),
            (&[0, 0, 0, 0], "4 bytes is shorter than the 5-byte header"),
            (&[3, 0, 0, 0, b'a', b'b', 1], "a left value of 3 bytes does not fit in 7 bytes"),
            (&[2, 0, 0, 0, b'a', b'b'], "a left value of 2 bytes does not fit in 6 bytes"),
            (&[0xff, 0xff, 0xff, 0xff, 1], "a left value of 4294967295 bytes does not fit in 5 bytes"),
            (&[1, 0, 0, 0, b'a', 2, b'b'], "has_right is 2, not 0 or 1"),
            (&[1, 0, 0, 0, b'a', 0, b'b', b'c'], "has_right is 0 but 2 right bytes follow"),
        ];
        for (frame, want) in cases {
            match split_pair(frame) {
                Ok(got) => panic!("split_pair({:?}) = {:?}, want an error", frame, got),
                Err(e) => assert_eq!(e.message(), format!("malformed join pair: {}", want)),
            }
        }
    }
}
