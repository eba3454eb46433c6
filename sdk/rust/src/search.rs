//! Byte search that takes few loop iterations.
//!
//! NB: Floe's host runs guests interruptible by default, and wazero then
//! pays for a deadline check on every loop back-edge, so a byte-at-a-time
//! scan costs far more than it would natively. These functions look at 8
//! bytes per iteration (16 with the `simd128` target feature).

/// Returns the index of the first `byte` in `haystack`, like
/// `haystack.iter().position(|&b| b == byte)` but 8 to 16 bytes per loop
/// iteration.
///
/// ```
/// assert_eq!(floe::find_byte(b"auction,bidder", b','), Some(7));
/// assert_eq!(floe::find_byte(b"no commas", b','), None);
/// ```
#[inline]
pub fn find_byte(haystack: &[u8], byte: u8) -> Option<usize> {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return simd::find(haystack, byte);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    return swar::find(haystack, byte);
}

/// Copies the last `rest.len()` (< N) bytes into a block of N bytes padded
/// with bytes other than `byte`, so the tail takes one step instead of a
/// loop.
#[inline(always)]
fn padded<const N: usize>(rest: &[u8], byte: u8) -> [u8; N] {
    let mut block = [!byte; N];
    block[..rest.len()].copy_from_slice(rest);
    block
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
mod swar {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;

    /// The index of the first `byte` in the 8 bytes `w`, if any.
    #[inline(always)]
    fn in_word(w: [u8; 8], byte: u8) -> Option<usize> {
        let x = u64::from_le_bytes(w) ^ (ONES * byte as u64);
        // The lowest set high bit marks the first zero byte of x: the
        // first match (bits above it may be false positives, never used).
        let zero = x.wrapping_sub(ONES) & !x & HIGHS;
        if zero == 0 {
            None
        } else {
            Some((zero.trailing_zeros() / 8) as usize)
        }
    }

    #[inline]
    pub(super) fn find(haystack: &[u8], byte: u8) -> Option<usize> {
        let mut off = 0;
        while haystack.len() - off >= 8 {
            let mut w = [0; 8];
            w.copy_from_slice(&haystack[off..off + 8]);
            if let Some(i) = in_word(w, byte) {
                return Some(off + i);
            }
            off += 8;
        }
        if off == haystack.len() {
            return None;
        }
        in_word(super::padded(&haystack[off..], byte), byte).map(|i| off + i)
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd {
    use std::arch::wasm32::{u8x16_bitmask, u8x16_eq, u8x16_splat, v128, v128_load};

    /// The index of the first match in the 16 bytes at `p`, if any.
    ///
    /// SAFETY: p must point to 16 readable bytes (any alignment).
    #[inline(always)]
    unsafe fn in_block(p: *const u8, needle: v128) -> Option<usize> {
        let hits = u8x16_bitmask(u8x16_eq(v128_load(p as *const v128), needle));
        if hits == 0 {
            None
        } else {
            Some(hits.trailing_zeros() as usize)
        }
    }

    #[inline]
    pub(super) fn find(haystack: &[u8], byte: u8) -> Option<usize> {
        let needle = u8x16_splat(byte);
        let mut off = 0;
        while haystack.len() - off >= 16 {
            // SAFETY: off + 16 <= len.
            if let Some(i) = unsafe { in_block(haystack.as_ptr().add(off), needle) } {
                return Some(off + i);
            }
            off += 16;
        }
        if off == haystack.len() {
            return None;
        }
        let block: [u8; 16] = super::padded(&haystack[off..], byte);
        // SAFETY: block has 16 bytes.
        unsafe { in_block(block.as_ptr(), needle) }.map(|i| off + i)
    }
}

#[cfg(test)]
mod tests {
    use super::find_byte;

    #[test]
    fn agrees_with_a_plain_scan() {
        let mut hay = Vec::new();
        for n in 0..70 {
            for at in 0..=n {
                hay.clear();
                hay.extend((0..n).map(|i| if i == at { b',' } else { b'a' + (i % 26) as u8 }));
                hay.extend_from_slice(b",,");
                for byte in [b',', b'a', 0x80, 0xff, 0] {
                    let h = &hay[..n];
                    assert_eq!(
                        find_byte(h, byte),
                        h.iter().position(|&b| b == byte),
                        "{:?} in {:?}",
                        byte,
                        h
                    );
                }
            }
        }
        // High bytes next to the target (the SWAR false-positive case).
        assert_eq!(find_byte(&[0x81, 0x80, 1, 0], 0x80), Some(1));
        assert_eq!(find_byte(&[1, 0, 0, 0, 0, 0, 0, 0, 0], 0), Some(1));
    }
}
