//! The ABI's wire layouts (sdk/ABI.md). Everything is little-endian.

use crate::error::{Error, Result};
use crate::params::Params;

/// The size of an input record's fixed part: u32 key_len, u32 value_len,
/// i64 timestamp.
pub(crate) const INPUT_HEADER: usize = 16;

/// The size of an output record's fixed part: u32 port, u32 value_len, i64
/// timestamp.
pub(crate) const OUTPUT_HEADER: usize = 16;

const TRUNCATED: &str = "floe: truncated buffer from the host";

fn u32_at(buf: &[u8], off: usize) -> u32 {
    let mut b = [0; 4];
    b.copy_from_slice(&buf[off..off + 4]);
    u32::from_le_bytes(b)
}

fn i64_at(buf: &[u8], off: usize) -> i64 {
    let mut b = [0; 8];
    b.copy_from_slice(&buf[off..off + 8]);
    i64::from_le_bytes(b)
}

/// One input record, borrowed from the batch.
pub(crate) struct InputRecord<'a> {
    pub key: &'a [u8],
    pub value: &'a [u8],
    pub timestamp: i64,
}

/// Reads the input record at `*off` and moves `*off` past it.
#[inline]
pub(crate) fn next_input<'a>(buf: &'a [u8], off: &mut usize) -> Result<InputRecord<'a>> {
    let start = *off;
    if buf.len() < start + INPUT_HEADER {
        return Err(Error::msg(TRUNCATED));
    }
    let kl = u32_at(buf, start) as usize;
    let vl = u32_at(buf, start + 4) as usize;
    let timestamp = i64_at(buf, start + 8);
    let k = start + INPUT_HEADER;
    if buf.len() - k < kl || buf.len() - k - kl < vl {
        return Err(Error::msg(TRUNCATED));
    }
    *off = k + kl + vl;
    Ok(InputRecord {
        key: &buf[k..k + kl],
        value: &buf[k + kl..k + kl + vl],
        timestamp,
    })
}

/// Appends one output record to `dst`.
#[inline]
pub(crate) fn append_output(dst: &mut Vec<u8>, port: u32, value: &[u8], timestamp: i64) {
    let mut h = [0u8; OUTPUT_HEADER];
    h[..4].copy_from_slice(&port.to_le_bytes());
    h[4..8].copy_from_slice(&(value.len() as u32).to_le_bytes());
    h[8..].copy_from_slice(&timestamp.to_le_bytes());
    dst.reserve(OUTPUT_HEADER + value.len());
    dst.extend_from_slice(&h);
    dst.extend_from_slice(value);
}

/// Reads the u32-length-prefixed byte string at `*off` and moves `*off` past
/// it.
fn length_prefixed<'a>(buf: &'a [u8], off: &mut usize) -> Result<&'a [u8]> {
    if buf.len() < *off + 4 {
        return Err(Error::msg(TRUNCATED));
    }
    let n = u32_at(buf, *off) as usize;
    let start = *off + 4;
    if buf.len() - start < n {
        return Err(Error::msg(TRUNCATED));
    }
    *off = start + n;
    Ok(&buf[start..start + n])
}

/// Reads a parameter block: u32 count, then count pairs of length-prefixed
/// key and value.
pub(crate) fn decode_params(buf: &[u8]) -> Result<Params> {
    if buf.len() < 4 {
        return Err(Error::msg(format!(
            "floe: parameter block of {} bytes",
            buf.len()
        )));
    }
    let n = u32_at(buf, 0) as usize;
    let mut entries = Vec::with_capacity(n.min(1024));
    let mut off = 4;
    for _ in 0..n {
        let k = length_prefixed(buf, &mut off)?;
        let v = length_prefixed(buf, &mut off)?;
        entries.push((
            String::from_utf8_lossy(k).into_owned(),
            String::from_utf8_lossy(v).into_owned(),
        ));
    }
    Ok(Params::from_entries(entries))
}

/// The elements of a list state, as `list_get` returns them: a run of
/// u32-length-prefixed byte strings. The run is checked when the iterator
/// is made, so iterating cannot fail.
#[derive(Clone, Debug)]
pub struct Elements<'a> {
    buf: &'a [u8],
    len: usize,
}

impl<'a> Elements<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Result<Elements<'a>> {
        let (mut off, mut len) = (0, 0);
        while off < buf.len() {
            length_prefixed(buf, &mut off)?;
            len += 1;
        }
        Ok(Elements { buf, len })
    }

    pub(crate) fn empty() -> Elements<'static> {
        Elements { buf: &[], len: 0 }
    }
}

impl<'a> Iterator for Elements<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        if self.buf.is_empty() {
            return None;
        }
        let mut off = 0;
        let e = length_prefixed(self.buf, &mut off).ok()?;
        self.buf = &self.buf[off..];
        self.len -= 1;
        Some(e)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.len, Some(self.len))
    }
}

impl ExactSizeIterator for Elements<'_> {}

/// The entries of a map state, as `map_entries` returns them: length-prefixed
/// key and value pairs in ascending key order. Checked when made, like
/// [`Elements`].
#[derive(Clone, Debug)]
pub struct Entries<'a> {
    inner: Elements<'a>,
}

impl<'a> Entries<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Result<Entries<'a>> {
        let inner = Elements::new(buf)?;
        if inner.len % 2 != 0 {
            return Err(Error::msg(TRUNCATED));
        }
        Ok(Entries { inner })
    }

    pub(crate) fn empty() -> Entries<'static> {
        Entries {
            inner: Elements::empty(),
        }
    }
}

impl<'a> Iterator for Entries<'a> {
    type Item = (&'a [u8], &'a [u8]);

    fn next(&mut self) -> Option<(&'a [u8], &'a [u8])> {
        let k = self.inner.next()?;
        let v = self.inner.next()?;
        Some((k, v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.inner.len / 2, Some(self.inner.len / 2))
    }
}

impl ExactSizeIterator for Entries<'_> {}

/// Appends the decimal text of `n` to `dst`, with a leading `-` when
/// negative: what operators that emit numbers need, without going through
/// `std::fmt`.
///
/// ```
/// let mut line = b"word,".to_vec();
/// floe::append_i64(&mut line, -42);
/// assert_eq!(line, b"word,-42");
/// ```
#[inline]
pub fn append_i64(dst: &mut Vec<u8>, n: i64) {
    // Two digits per step: loops are what Wasm guests pay for most.
    const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
        2021222324252627282930313233343536373839\
        4041424344454647484950515253545556575859\
        6061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899";
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut u = n.unsigned_abs();
    while u >= 100 {
        let p = (u % 100) as usize * 2;
        u /= 100;
        i -= 2;
        digits[i..i + 2].copy_from_slice(&PAIRS[p..p + 2]);
    }
    if u >= 10 {
        let p = u as usize * 2;
        i -= 2;
        digits[i..i + 2].copy_from_slice(&PAIRS[p..p + 2]);
    } else {
        i -= 1;
        digits[i] = b'0' + u as u8;
    }
    if n < 0 {
        dst.push(b'-');
    }
    dst.extend_from_slice(&digits[i..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(records: &[(&[u8], &[u8], i64)]) -> Vec<u8> {
        let mut b = Vec::new();
        for (k, v, ts) in records {
            b.extend_from_slice(&(k.len() as u32).to_le_bytes());
            b.extend_from_slice(&(v.len() as u32).to_le_bytes());
            b.extend_from_slice(&ts.to_le_bytes());
            b.extend_from_slice(k);
            b.extend_from_slice(v);
        }
        b
    }

    #[test]
    fn input_records_decode_back_to_back() {
        let buf = input(&[
            (b"k", b"value", 7),
            (b"", b"", i64::MIN),
            (b"key2", b"v", -1),
        ]);
        let mut off = 0;
        let mut got = Vec::new();
        while off < buf.len() {
            let r = next_input(&buf, &mut off).unwrap();
            got.push((r.key.to_vec(), r.value.to_vec(), r.timestamp));
        }
        assert_eq!(
            got,
            vec![
                (b"k".to_vec(), b"value".to_vec(), 7),
                (vec![], vec![], i64::MIN),
                (b"key2".to_vec(), b"v".to_vec(), -1),
            ]
        );
    }

    #[test]
    fn truncated_input_is_an_error_not_a_panic() {
        let buf = input(&[(b"key", b"value", 1)]);
        for n in 0..buf.len() {
            let mut off = 0;
            assert!(
                next_input(&buf[..n], &mut off).is_err(),
                "prefix of {} bytes",
                n
            );
        }
        // Lengths that overflow when added.
        let mut bad = buf.clone();
        bad[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(next_input(&bad, &mut 0).is_err());
    }

    #[test]
    fn output_layout() {
        let mut out = Vec::new();
        append_output(&mut out, 2, b"abc", -5);
        assert_eq!(&out[..4], &2u32.to_le_bytes());
        assert_eq!(&out[4..8], &3u32.to_le_bytes());
        assert_eq!(&out[8..16], &(-5i64).to_le_bytes());
        assert_eq!(&out[16..], b"abc");
    }

    fn lp(parts: &[&[u8]]) -> Vec<u8> {
        let mut b = Vec::new();
        for p in parts {
            b.extend_from_slice(&(p.len() as u32).to_le_bytes());
            b.extend_from_slice(p);
        }
        b
    }

    #[test]
    fn params_decode() {
        let mut buf = 2u32.to_le_bytes().to_vec();
        buf.extend(lp(&[b"floe.function", b"upper", b"greeting", b""]));
        let p = decode_params(&buf).unwrap();
        assert_eq!(p.get("floe.function"), Some("upper"));
        assert_eq!(p.get("greeting"), Some(""));
        assert_eq!(p.get("absent"), None);
        assert!(decode_params(&buf[..buf.len() - 1]).is_err());
        assert!(decode_params(&[1, 0]).is_err());
        assert_eq!(
            decode_params(&0u32.to_le_bytes()).unwrap().iter().count(),
            0
        );
    }

    #[test]
    fn elements_and_entries() {
        let buf = lp(&[b"a", b"", b"ccc"]);
        let e = Elements::new(&buf).unwrap();
        assert_eq!(e.len(), 3);
        assert_eq!(e.collect::<Vec<_>>(), vec![&b"a"[..], b"", b"ccc"]);
        assert!(Elements::new(&buf[..buf.len() - 1]).is_err());
        let buf = lp(&[b"k1", b"v1", b"k2", b""]);
        let entries: Vec<_> = Entries::new(&buf).unwrap().collect();
        assert_eq!(
            entries,
            vec![(&b"k1"[..], &b"v1"[..]), (&b"k2"[..], &b""[..])]
        );
        assert!(Entries::new(&lp(&[b"k1", b"v1", b"k2"])).is_err());
    }

    #[test]
    fn integers_as_text() {
        for n in [
            0,
            1,
            -1,
            9,
            10,
            11,
            99,
            100,
            101,
            999,
            1000,
            12345,
            -908,
            i64::MAX,
            i64::MIN,
        ] {
            let mut b = b"x".to_vec();
            append_i64(&mut b, n);
            assert_eq!(String::from_utf8(b).unwrap(), format!("x{}", n));
        }
    }
}
