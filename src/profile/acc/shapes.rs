//! What a value looks like, as [`super::PathAcc`] counts it per value: a plausible epoch number,
//! a decimal number written as text, a version, a path or URL.

/// 2000-01-01 and 2100-01-01 in epoch seconds: numbers outside are not taken for timestamps.
pub(super) const PLAUSIBLE_EPOCH: (i64, i64) = (946_684_800, 4_102_444_800);

/// Whether `s` is a decimal number with a fractional part, as text (`"58.9"`, `"-0.25"`): digits,
/// one point with digits after it, an optional sign; no exponent, spaces or leading `+`.
#[inline]
pub(super) fn is_fractional_number(s: &str) -> bool {
    let b = s.strip_prefix('-').unwrap_or(s).as_bytes();
    let Some(dot) = b.iter().position(|&c| c == b'.') else {
        return false;
    };
    let (int, frac) = (&b[..dot], &b[dot + 1..]);
    !int.is_empty()
        && !frac.is_empty()
        && int.iter().chain(frac).all(u8::is_ascii_digit)
        && frac.iter().any(|&c| c != b'0')
}

/// `1.4.2`, `v2.0`, `3.1.0-beta+7`: digits joined by dots, three or more parts, or two after a
/// `v` (two bare parts, `58.9`, are a number in text).
#[inline]
pub(super) fn is_version(s: &str) -> bool {
    let (v, rest) = match s.strip_prefix(['v', 'V']) {
        Some(r) => (true, r),
        None => (false, s),
    };
    let core = rest.split(['-', '+']).next().unwrap_or("");
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() >= if v { 2 } else { 3 }
        && parts.len() <= 5
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.len() <= 9 && p.bytes().all(|c| c.is_ascii_digit()))
}

/// `/api/orders/7`, `https://example.com/x`: a path or URL (not a key anyone groups by).
#[inline]
pub(super) fn is_path(s: &str) -> bool {
    if s.len() > 1 && s.starts_with('/') && !s.starts_with("//") && !s.contains(' ') {
        return true;
    }
    // The first `://` is the first `:` followed by `//` (found with `memchr`: a substring
    // search set up for every string value profiled was 3 % of the profile's time).
    let b = s.as_bytes();
    let scheme_end = memchr::memchr_iter(b':', b).find(|&i| b[i + 1..].starts_with(b"//"));
    scheme_end.is_some_and(|i| {
        let (scheme, rest) = (&b[..i], &b[i + 3..]);
        !scheme.is_empty() && scheme.iter().all(u8::is_ascii_alphabetic) && !rest.is_empty()
    })
}
