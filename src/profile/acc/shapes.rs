//! What a value looks like, as [`super::PathAcc`] counts it per value: a plausible epoch number,
//! a decimal number written as text, a version, a path or URL.

/// 2000-01-01 and 2100-01-01 in epoch seconds: numbers outside are not taken for timestamps.
pub(super) const PLAUSIBLE_EPOCH: (i64, i64) = (946_684_800, 4_102_444_800);

/// Whether `s` is a decimal number with a fractional part, as text (`"58.9"`, `"-0.25"`): digits,
/// one point with digits after it, an optional sign; no exponent, spaces or leading `+`.
/// (Read from the left, so free text is refused at its first letter, not after a search of it
/// for a point.)
#[inline]
pub(super) fn is_fractional_number(s: &str) -> bool {
    let b = s.strip_prefix('-').unwrap_or(s).as_bytes();
    let int = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if int == 0 || b.get(int) != Some(&b'.') {
        return false;
    }
    let frac = &b[int + 1..];
    !frac.is_empty() && frac.iter().all(u8::is_ascii_digit) && frac.iter().any(|&c| c != b'0')
}

/// `1.4.2`, `v2.0`, `3.1.0-beta+7`: digits joined by dots, three or more parts, or two after a
/// `v` (two bare parts, `58.9`, are a number in text); at most five parts of at most nine
/// digits, before an optional `-` or `+` suffix. (One pass from the left, with no allocation:
/// it runs on every string the profile sees.)
#[inline]
pub(super) fn is_version(s: &str) -> bool {
    let (v, rest) = match s.strip_prefix(['v', 'V']) {
        Some(r) => (true, r),
        None => (false, s),
    };
    // Parts so far (the current one included) and the current part's digits.
    let (mut parts, mut digits) = (1, 0);
    for &c in rest.as_bytes() {
        match c {
            b'0'..=b'9' if digits < 9 => digits += 1,
            b'.' if digits > 0 && parts < 5 => {
                parts += 1;
                digits = 0;
            }
            b'-' | b'+' => break,
            _ => return false,
        }
    }
    digits > 0 && parts >= if v { 2 } else { 3 }
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
