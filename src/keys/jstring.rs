//! JSON string contents for the scanner ([`super::extract`]): finding where a string's plain
//! run stops (its closing quote, an escape or a control character), 16 bytes at a time with
//! SSE2 on x86-64, 32 with AVX2 past a string's first 64 bytes, 8 elsewhere; decoding
//! escapes; and comparing short byte strings by words ([`same_bytes`]: a learnt layout's
//! literals, the key maps' keys).

/// Decodes JSON string escapes; `None` on an invalid escape or unpaired surrogate.
pub(super) fn unescape(raw: &[u8]) -> Option<String> {
    let mut out: Vec<u8> = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let b = raw[i];
        if b != b'\\' {
            out.push(b);
            i += 1;
            continue;
        }
        let e = *raw.get(i + 1)?;
        i += 2;
        let c = match e {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = hex4(raw.get(i..i + 4)?)?;
                i += 4;
                if (0xD800..0xDC00).contains(&hi) {
                    if raw.get(i) != Some(&b'\\') || raw.get(i + 1) != Some(&b'u') {
                        return None;
                    }
                    let lo = hex4(raw.get(i + 2..i + 6)?)?;
                    if !(0xDC00..0xE000).contains(&lo) {
                        return None;
                    }
                    i += 6;
                    char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))?
                } else {
                    char::from_u32(hi)?
                }
            }
            _ => return None,
        };
        let mut tmp = [0u8; 4];
        out.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
    }
    String::from_utf8(out).ok()
}

fn hex4(h: &[u8]) -> Option<u32> {
    let s = std::str::from_utf8(h).ok()?;
    u32::from_str_radix(s, 16).ok()
}

/// Whether `a` and `b` hold the same bytes. Up to 16 bytes (a learnt layout's literals such as
/// `,"k":`, and most keys: a tenant, a user, a pair of them), by two overlapping loads from
/// each end, without the call to `memcmp` that comparing slices makes (a layout's four calls a
/// record were 3–5 % of the samples of a run on 10 M ids); longer ones as slices.
#[inline]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    // The first and the last `W` bytes of each, as words (overlapping when `n < 2 W`).
    macro_rules! ends {
        ($t:ty) => {{
            const W: usize = std::mem::size_of::<$t>();
            let word = |s: &[u8], at: usize| <$t>::from_ne_bytes(s[at..at + W].try_into().unwrap());
            word(a, 0) == word(b, 0) && word(a, n - W) == word(b, n - W)
        }};
    }
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => ends!(u32),
        8..=16 => ends!(u64),
        _ => a == b,
    }
}

/// Where the run of ASCII digits starting at `i` in `b` ends: 8 bytes at a time (an id's
/// sequence number, a count, an epoch), then byte by byte for the last few. The top bit of a
/// byte of `(w + 0x46…) | (w - 0x30…)` is set for a byte above `9` (the sum reaches 0x80, or a
/// byte past 0xB9 wraps and the difference keeps its top bit) or below `0` (the difference
/// borrows), and clear for a digit; a digit neither carries nor borrows, so the first byte
/// flagged in a word is its first non-digit.
#[inline]
pub(super) fn digit_run(b: &[u8], mut i: usize) -> usize {
    while let Some(w) = b.get(i..i + 8) {
        let w = u64::from_le_bytes(w.try_into().expect("8 bytes"));
        let flags = (w.wrapping_add(ONES * 0x46) | w.wrapping_sub(ONES * 0x30)) & TOPS;
        if flags != 0 {
            return i + (flags.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while matches!(b.get(i), Some(b'0'..=b'9')) {
        i += 1;
    }
    i
}

/// Bytes of a word, each `0x01`.
const ONES: u64 = 0x0101_0101_0101_0101;
/// The top bit of each byte of a word.
const TOPS: u64 = 0x8080_8080_8080_8080;

/// The top bit set in each byte of the little-endian word `w` that is `"`, `\` or below 0x20:
/// exact up to the first such byte (a borrow only runs upwards, so a flag above it may be
/// false), which is all [`string_stop`] reads.
#[inline]
fn stop_bits(w: u64) -> u64 {
    let quote = w ^ (ONES * u64::from(b'"'));
    let backslash = w ^ (ONES * u64::from(b'\\'));
    let control = w.wrapping_sub(ONES * 0x20) & !w;
    (zero_bytes(quote) | zero_bytes(backslash) | control) & TOPS
}

/// The top bit set in each zero byte of `v` (exact up to the first: a borrow only runs upwards).
#[inline]
fn zero_bytes(v: u64) -> u64 {
    v.wrapping_sub(ONES) & !v & TOPS
}

/// The bytes of the string component of an encoded key whose contents start at `from`: up to
/// its [`super::marker::STRING_END`] (0xFF, a byte UTF-8 never holds), or to the key's end. A
/// word at a time (the marker is a zero byte of the word's complement), without the call
/// `memchr` makes for the short strings of keys (ids of 36 bytes: a call per row of the drain).
#[inline]
pub(crate) fn string_len(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    while let Some(w) = bytes.get(i..i + 8) {
        let ends = zero_bytes(!u64::from_le_bytes(w.try_into().expect("8 bytes")));
        if ends != 0 {
            return i - from + (ends.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    let rest = bytes.get(i..).unwrap_or(&[]);
    let end = super::marker::STRING_END;
    i - from + rest.iter().position(|&b| b == end).unwrap_or(rest.len())
}

/// The first byte of `s` that ends or interrupts a string's plain run: `"`, `\` or a control
/// character. On x86-64, 16 bytes at a time with SSE2 (part of every x86-64 processor): three
/// compares and a mask per 16 bytes, where the words below take 8 bytes at a time, a branch
/// each (a twentieth of the scan of short records, 10 M ids beside a 50-value key); what is
/// left after the last whole 16 is read as the last 16 bytes of `s`, overlapping bytes already
/// known to hold no stop. Under 16 bytes, and elsewhere, [`string_stop_words`].
#[inline]
pub(crate) fn string_stop(s: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if s.len() >= 16 {
        return sse2::string_stop(s);
    }
    string_stop_words(s)
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };

    /// The stops among the 16 bytes of `s` from `i`, one bit each (bit 0: byte `i`).
    #[inline]
    fn stops_at(s: &[u8], i: usize) -> u32 {
        let w = &s[i..i + 16];
        // SAFETY: SSE2 is enabled on every x86-64 target; the load reads the 16 bytes of `w`,
        // unaligned.
        unsafe {
            let x = _mm_loadu_si128(w.as_ptr().cast::<__m128i>());
            let quote = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'"' as i8));
            let backslash = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'\\' as i8));
            // x <= 0x1f (unsigned) exactly when max(x, 0x1f) == 0x1f.
            let low = _mm_set1_epi8(0x1f);
            let control = _mm_cmpeq_epi8(_mm_max_epu8(x, low), low);
            _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)) as u32
        }
    }

    /// [`super::string_stop`] of `s`, at least 16 bytes long. A string still running after 64
    /// bytes, with 64 more to read, is read on 32 bytes at a time with AVX2 where the processor
    /// has it (free text, URLs); names, ids and other short values never reach the check.
    #[inline]
    pub(super) fn string_stop(s: &[u8]) -> Option<usize> {
        let n = s.len();
        debug_assert!(n >= 16);
        let mut i = 0;
        while i + 16 <= n {
            let m = stops_at(s, i);
            if m != 0 {
                return Some(i + m.trailing_zeros() as usize);
            }
            i += 16;
            if i == 64 && n >= 128 && std::is_x86_feature_detected!("avx2") {
                // SAFETY: the processor has AVX2, checked just above.
                return unsafe { super::avx2::string_stop_from(s, 64) };
            }
        }
        if i == n {
            return None;
        }
        let m = stops_at(s, n - 16);
        (m != 0).then(|| n - 16 + m.trailing_zeros() as usize)
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_max_epu8, _mm256_movemask_epi8,
        _mm256_or_si256, _mm256_set1_epi8,
    };

    /// The stops among the 32 bytes of `s` from `i`, one bit each (bit 0: byte `i`).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn stops_at(s: &[u8], i: usize) -> u32 {
        let w = &s[i..i + 32];
        // SAFETY: the load reads the 32 bytes of `w`, unaligned; AVX2 is enabled here.
        let x = unsafe { _mm256_loadu_si256(w.as_ptr().cast::<__m256i>()) };
        let quote = _mm256_cmpeq_epi8(x, _mm256_set1_epi8(b'"' as i8));
        let backslash = _mm256_cmpeq_epi8(x, _mm256_set1_epi8(b'\\' as i8));
        let low = _mm256_set1_epi8(0x1f);
        let control = _mm256_cmpeq_epi8(_mm256_max_epu8(x, low), low);
        _mm256_movemask_epi8(_mm256_or_si256(_mm256_or_si256(quote, backslash), control)) as u32
    }

    /// [`super::string_stop`] of `s`, whose bytes before `from` hold no stop, with AVX2; `s` is
    /// at least 32 bytes long.
    ///
    /// # Safety
    ///
    /// The processor must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn string_stop_from(s: &[u8], from: usize) -> Option<usize> {
        let n = s.len();
        debug_assert!(n >= 32);
        let mut i = from;
        while i + 32 <= n {
            let m = stops_at(s, i);
            if m != 0 {
                return Some(i + m.trailing_zeros() as usize);
            }
            i += 32;
        }
        if i == n {
            return None;
        }
        // The last 32 bytes, overlapping bytes already known to hold no stop.
        let m = stops_at(s, n - 32);
        (m != 0).then(|| n - 32 + m.trailing_zeros() as usize)
    }
}

/// [`string_stop`] with 8-byte words, on any processor. Most strings are short (names, ids): their first 32 bytes are read 8 at a time as
/// words; the rest in 32-byte chunks (the compiler turns the fold into SIMD compares), the chunk
/// with a hit then read as words too. What is left after the last whole chunk (or word) is read
/// as the last 32 bytes (or 8) of `s`, overlapping bytes already known to hold no stop, so the
/// first stop found there is the first in `s`: no byte-by-byte loop, which the closing quote of
/// a long string at the end of a record used to reach.
#[inline]
pub(super) fn string_stop_words(s: &[u8]) -> Option<usize> {
    let words = |from: usize, to: usize| -> Option<usize> {
        let mut i = from;
        while i + 8 <= to {
            let w = u64::from_le_bytes(s[i..i + 8].try_into().expect("8 bytes"));
            let m = stop_bits(w);
            if m != 0 {
                return Some(i + (m.trailing_zeros() / 8) as usize);
            }
            i += 8;
        }
        None
    };
    let n = s.len();
    let head = n.min(32) & !7;
    if let Some(i) = words(0, head) {
        return Some(i);
    }
    if head < 32 {
        // Fewer than 32 bytes: at most 7 left after the words.
        return if head == n {
            None
        } else if n >= 8 {
            words(n - 8, n)
        } else {
            s.iter()
                .position(|&b| (b == b'"') | (b == b'\\') | (b < 0x20))
        };
    }
    let stop = |b: u8| (b == b'"') | (b == b'\\') | (b < 0x20);
    let mut base = head;
    let mut chunks = s[32..].chunks_exact(32);
    for c in &mut chunks {
        if c.iter().fold(false, |a, &b| a | stop(b)) {
            return words(base, base + 32);
        }
        base += 32;
    }
    if base == n {
        None
    } else {
        words(n - 32, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_stop_finds_the_first_quote_backslash_or_control() {
        // The dispatcher (SSE2 from 16 bytes on x86-64) and the portable words alike.
        string_stop_is_a_byte_search(string_stop);
        string_stop_is_a_byte_search(string_stop_words);
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2.
            let avx2 = |s: &[u8]| match s.len() {
                0..32 => string_stop_words(s),
                _ => unsafe { avx2::string_stop_from(s, 0) },
            };
            string_stop_is_a_byte_search(avx2);
        }
    }

    #[test]
    fn digit_run_ends_at_the_first_non_digit() {
        // Every byte value as the first non-digit, at every place of runs up to 20 digits, from
        // every start, with other bytes (digits, bytes past 0xB9 that wrap, ones below `0` that
        // borrow) after it: the same end as a byte-by-byte search.
        let slow =
            |b: &[u8], i: usize| i + b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        let mut checked = 0;
        for n in 0..20usize {
            for stop in 0..=255u8 {
                for after in [b'7', 0xFF, 0xBA, 0x2F, b'9' + 1] {
                    let mut b: Vec<u8> = (0..n).map(|k| b'0' + (k * 7 % 10) as u8).collect();
                    b.push(stop);
                    b.extend_from_slice(&[after; 9]);
                    for start in 0..=n {
                        assert_eq!(digit_run(&b, start), slow(&b, start), "{b:?} from {start}");
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, 5 * 256 * (1..=20).sum::<usize>());
        // Digits to the end of the slice, with no non-digit after them.
        assert_eq!(digit_run(b"1234567890123", 0), 13);
        assert_eq!(digit_run(b"x123", 1), 4);
        assert_eq!(digit_run(b"", 0), 0);
    }

    fn string_stop_is_a_byte_search(string_stop: impl Fn(&[u8]) -> Option<usize>) {
        // Every length to 200 (whole chunks and remainders, and the dispatcher's switch to 32
        // bytes at a time from 128), each kind of stop at each place, after an earlier
        // decoy-free run: the same answer as a byte-by-byte search.
        for n in 0..200usize {
            let plain = vec![b'a'; n];
            assert_eq!(string_stop(&plain), None);
            for at in 0..n {
                for stop in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
                    let mut s = plain.clone();
                    s[at] = stop;
                    if at + 1 < n {
                        s[n - 1] = b'"';
                    }
                    assert_eq!(string_stop(&s), Some(at), "length {n}, {stop:#x} at {at}");
                }
            }
        }
        // DEL (0x7f) and multi-byte characters are plain: the quote comes after 2 + 1 + 2 bytes.
        assert_eq!(string_stop("é\u{7f}ü\"".as_bytes()), Some(5));
        // Bytes next to the stops and with the top bit set (where word tricks borrow), at random
        // lengths and places: the same answer as a byte-by-byte search.
        let alphabet = [
            b'"', b'\\', 0x00, 0x1f, 0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0x81, 0xa0, 0xdf,
            0xe0, 0xff, b'a', b'a', b'a', b'a', b'a', b'a', b'a', b'a',
        ];
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = (x % 300) as usize;
            let s: Vec<u8> = (0..n)
                .map(|i| {
                    let r = x.rotate_left(i as u32 * 7) ^ (i as u64).wrapping_mul(0x9e37);
                    // Mostly plain bytes, so the first stop is often deep in the string.
                    if r.is_multiple_of(11) {
                        alphabet[(r >> 8) as usize % alphabet.len()]
                    } else {
                        0x61 + (r >> 16) as u8 % 26
                    }
                })
                .collect();
            let want = s.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20);
            assert_eq!(string_stop(&s), want, "{s:?}");
        }
    }

    #[test]
    fn same_bytes_is_slice_equality_at_every_length() {
        // Every length to 40 (each load width, their overlaps, and the slices past 16): equal
        // slices are the same, one byte changed at any place is not, nor a slice one byte
        // shorter or longer. Two patterns: letters with their case bit flipped, and bytes of
        // many values with bit 6 flipped (the key maps' keys are binary).
        let letters: fn(usize) -> Vec<u8> = |n| (0..n).map(|i| b'A' + (i % 26) as u8).collect();
        let binary: fn(usize) -> Vec<u8> = |n| (0..n as u8).map(|i| i.wrapping_mul(37)).collect();
        for (pattern, flip) in [(letters, 0x20u8), (binary, 0x40)] {
            for n in 0..40usize {
                let a = pattern(n);
                assert!(same_bytes(&a, &a.clone()), "length {n}");
                for at in 0..n {
                    let mut b = a.clone();
                    b[at] ^= flip;
                    assert!(!same_bytes(&a, &b), "length {n}, byte {at} changed");
                    assert!(!same_bytes(&b, &a), "length {n}, byte {at} changed");
                }
                let mut longer = a.clone();
                longer.push(b'x');
                assert!(!same_bytes(&a, &longer), "length {n} against {}", n + 1);
                if n > 0 {
                    assert!(!same_bytes(&a, &a[..n - 1]), "length {n} against {}", n - 1);
                }
            }
        }
        // A learnt layout's literal against the record's bytes at that place.
        assert!(same_bytes(br#","k":"#, br#","k":"#));
        assert!(!same_bytes(br#","k":"#, br#","K":"#));
    }
}
