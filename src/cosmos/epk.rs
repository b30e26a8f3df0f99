//! Effective partition keys (EPK): the exact algorithm of epk.md.
//!
//! A partition key value is a list of [`Component`]s, one per path of the key definition. Its
//! *encoded form* (epk.md §3 with the V2 string suffix `0xFF`) is what the rest of the crate stores
//! in its statistics; it is also exactly the V2 hash input, so V2 and MultiHash EPKs can be computed
//! from it without decoding. V1 (legacy) EPKs need the decoded components ([`decode_encoded`]).

use smallvec::SmallVec;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::murmur::{murmur3_x64_128, murmur3_x86_32};

const MARK_UNDEFINED: u8 = 0x00;
const MARK_NULL: u8 = 0x01;
const MARK_FALSE: u8 = 0x02;
const MARK_TRUE: u8 = 0x03;
const MARK_NUMBER: u8 = 0x05;
const MARK_STRING: u8 = 0x08;
/// String terminator of the V2 encoding (never a UTF-8 byte).
const V2_STRING_SUFFIX: u8 = 0xFF;
/// String terminator of the V1 hash input.
const V1_STRING_SUFFIX: u8 = 0x00;
/// V1 hashes only the first 100 UTF-16 code units of a string.
const V1_MAX_STRING_UTF16: usize = 100;
/// V1 binary encoding keeps at most 101 UTF-8 bytes of a string (100 with a terminator).
const V1_MAX_STRING_BYTES: usize = 100;

/// Errors of partition key parsing, decoding and EPK parsing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EpkError {
    /// A JSON object (other than `{}`, which means Undefined) or array was given as a key value.
    #[error("objects and arrays cannot be partition key values")]
    InvalidValue,
    /// A JSON number that cannot be represented as a double.
    #[error("number {0} cannot be represented as a double")]
    InvalidNumber(String),
    /// A string that is not valid (even-length) hexadecimal.
    #[error("invalid effective partition key hex string {0:?}")]
    InvalidHex(String),
    /// Bytes that are not a concatenation of encoded components.
    #[error("invalid encoded partition key: {0}")]
    InvalidEncoding(String),
}

/// One component of a partition key value (one per path of the key definition).
#[derive(Debug, Clone, PartialEq)]
pub enum Component {
    /// The path is missing from the document.
    Undefined,
    /// JSON `null`.
    Null,
    /// JSON `true` / `false`.
    Bool(bool),
    /// Any JSON number, always as a double (5 and 5.0 are the same key).
    Number(f64),
    /// JSON string.
    String(String),
}

/// Partition key hashing version of a container.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub enum PkVersion {
    /// Legacy hashing (containers created before May 2019).
    V1,
    /// "Large partition key" hashing, the default since 2019.
    V2,
    /// Hierarchical keys (1 to 3 paths), V2 hashing per level.
    MultiHash,
}

/// Converts a JSON value to a key component: `{}` is Undefined; objects and arrays are errors.
pub fn component_from_json(v: &serde_json::Value) -> Result<Component, EpkError> {
    use serde_json::Value;
    match v {
        Value::Null => Ok(Component::Null),
        Value::Bool(b) => Ok(Component::Bool(*b)),
        Value::Number(n) => n
            .as_f64()
            .map(Component::Number)
            .ok_or_else(|| EpkError::InvalidNumber(n.to_string())),
        Value::String(s) => Ok(Component::String(s.clone())),
        Value::Object(m) if m.is_empty() => Ok(Component::Undefined),
        Value::Object(_) | Value::Array(_) => Err(EpkError::InvalidValue),
    }
}

/// Maps `-0.0` to `+0.0` (they are the same key).
fn normalise(x: f64) -> f64 {
    if x == 0.0 {
        0.0
    } else {
        x
    }
}

/// Appends `enc(c, suffix)` of epk.md §3.
fn encode_with_suffix(c: &Component, suffix: u8, out: &mut Vec<u8>) {
    match c {
        Component::Undefined => out.push(MARK_UNDEFINED),
        Component::Null => out.push(MARK_NULL),
        Component::Bool(false) => out.push(MARK_FALSE),
        Component::Bool(true) => out.push(MARK_TRUE),
        Component::Number(x) => {
            out.push(MARK_NUMBER);
            out.extend_from_slice(&normalise(*x).to_le_bytes());
        }
        Component::String(s) => {
            out.push(MARK_STRING);
            out.extend_from_slice(s.as_bytes());
            out.push(suffix);
        }
    }
}

/// Appends the encoded form (V2 hash input, string suffix `0xFF`) of one component to `out`.
pub fn encode_component(c: &Component, out: &mut Vec<u8>) {
    encode_with_suffix(c, V2_STRING_SUFFIX, out);
}

/// The encoded form of a whole key: the concatenation of [`encode_component`] of its components.
pub fn encode_components(components: &[Component]) -> Vec<u8> {
    let mut out = Vec::new();
    for c in components {
        encode_component(c, &mut out);
    }
    out
}

/// Splits an encoded key into the encoded slices of its components.
pub fn split_encoded(encoded: &[u8]) -> Result<Vec<&[u8]>, EpkError> {
    let bad = |what: &str, pos: usize| EpkError::InvalidEncoding(format!("{what} at byte {pos}"));
    let mut parts = Vec::new();
    let mut pos = 0;
    while pos < encoded.len() {
        let rest = &encoded[pos..];
        let len = match rest[0] {
            MARK_UNDEFINED | MARK_NULL | MARK_FALSE | MARK_TRUE => 1,
            MARK_NUMBER if rest.len() >= 9 => 9,
            MARK_NUMBER => return Err(bad("truncated number", pos)),
            MARK_STRING => match rest.iter().position(|&b| b == V2_STRING_SUFFIX) {
                Some(end) => end + 1,
                None => return Err(bad("unterminated string", pos)),
            },
            other => return Err(bad(&format!("unknown type marker 0x{other:02X}"), pos)),
        };
        parts.push(&rest[..len]);
        pos += len;
    }
    Ok(parts)
}

/// Decodes an encoded key back into its components.
pub fn decode_encoded(encoded: &[u8]) -> Result<Vec<Component>, EpkError> {
    split_encoded(encoded)?
        .into_iter()
        .map(|part| {
            Ok(match part[0] {
                MARK_UNDEFINED => Component::Undefined,
                MARK_NULL => Component::Null,
                MARK_FALSE => Component::Bool(false),
                MARK_TRUE => Component::Bool(true),
                MARK_NUMBER => {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(&part[1..9]);
                    Component::Number(f64::from_le_bytes(b))
                }
                _ => {
                    let s = std::str::from_utf8(&part[1..part.len() - 1]).map_err(|e| {
                        EpkError::InvalidEncoding(format!("string is not UTF-8: {e}"))
                    })?;
                    Component::String(s.to_owned())
                }
            })
        })
        .collect()
}

/// V2 EPK of an encoded key (epk.md §4): MurmurHash3_x64_128 of the bytes as given, `h2 ++ h1`
/// big-endian with the top two bits cleared. An empty key gives [`Epk::min`].
pub fn epk_v2_encoded(encoded: &[u8]) -> Epk {
    if encoded.is_empty() {
        return Epk::min();
    }
    let (h1, h2) = murmur3_x64_128(encoded, 0);
    let mut b = ((u128::from(h2) << 64) | u128::from(h1)).to_be_bytes();
    b[0] &= 0x3F;
    Epk::from_slice(&b)
}

/// MultiHash EPK of an encoded key (epk.md §5): the V2 EPK of each component alone, concatenated.
pub fn epk_multihash_encoded(encoded: &[u8]) -> Result<Epk, EpkError> {
    let mut out = Vec::with_capacity(16 * 3);
    for part in split_encoded(encoded)? {
        out.extend_from_slice(epk_v2_encoded(part).as_bytes());
    }
    Ok(Epk::from_bytes(out))
}

/// EPK of a key value under the given hashing version.
pub fn epk(version: PkVersion, components: &[Component]) -> Epk {
    match version {
        PkVersion::V1 => epk_v1(components),
        PkVersion::V2 => epk_v2_encoded(&encode_components(components)),
        PkVersion::MultiHash => {
            let mut out = Vec::with_capacity(16 * components.len());
            let mut buf = Vec::new();
            for c in components {
                buf.clear();
                encode_component(c, &mut buf);
                out.extend_from_slice(epk_v2_encoded(&buf).as_bytes());
            }
            Epk::from_bytes(out)
        }
    }
}

/// MultiHash prefix range `[epk(prefix), epk(prefix) ++ FF)` (epk.md §5). An empty prefix covers
/// the whole key space `["", "FF")`.
pub fn prefix_range(levels: &[Component]) -> (Epk, Epk) {
    let lo = epk(PkVersion::MultiHash, levels);
    let hi = lo.with_ff_suffix();
    (lo, hi)
}

/// V1 truncation: strings keep their first 100 UTF-16 code units. If the cut falls inside a
/// surrogate pair, the lone high surrogate becomes U+FFFD, as .NET's UTF-8 encoder does.
fn truncate_v1(c: &Component) -> Component {
    let Component::String(s) = c else {
        return c.clone();
    };
    let mut units = 0;
    let mut end = s.len();
    let mut split_pair = false;
    for (i, ch) in s.char_indices() {
        let n = ch.len_utf16();
        if units + n > V1_MAX_STRING_UTF16 {
            end = i;
            split_pair = units < V1_MAX_STRING_UTF16;
            break;
        }
        units += n;
    }
    let mut t = s[..end].to_owned();
    if split_pair {
        t.push('\u{FFFD}');
    }
    Component::String(t)
}

/// V1 EPK (epk.md §6): `binary_number(murmur3_x86_32(hash input))` followed by the binary
/// encoding of each (truncated) component.
fn epk_v1(components: &[Component]) -> Epk {
    if components.is_empty() {
        return Epk::min();
    }
    let truncated: Vec<Component> = components.iter().map(truncate_v1).collect();
    let mut hash_input = Vec::new();
    for c in &truncated {
        encode_with_suffix(c, V1_STRING_SUFFIX, &mut hash_input);
    }
    let h = murmur3_x86_32(&hash_input, 0);
    let mut out = Vec::new();
    binary_number(f64::from(h), &mut out);
    for c in &truncated {
        binary_component(c, &mut out);
    }
    Epk::from_bytes(out)
}

/// Order-preserving binary encoding of one component (V1 EPK tail).
fn binary_component(c: &Component, out: &mut Vec<u8>) {
    match c {
        Component::Undefined => out.push(MARK_UNDEFINED),
        Component::Null => out.push(MARK_NULL),
        Component::Bool(false) => out.push(MARK_FALSE),
        Component::Bool(true) => out.push(MARK_TRUE),
        Component::Number(x) => binary_number(*x, out),
        Component::String(s) => {
            out.push(MARK_STRING);
            let b = s.as_bytes();
            let shifted = |bytes: &[u8], out: &mut Vec<u8>| {
                out.extend(bytes.iter().map(|&x| x.saturating_add(1)));
            };
            if b.len() <= V1_MAX_STRING_BYTES {
                shifted(b, out);
                out.push(0x00);
            } else {
                shifted(&b[..V1_MAX_STRING_BYTES + 1], out);
            }
        }
    }
}

/// Appends the order-preserving binary encoding of a number (epk.md §6), e.g. `2 -> 05C000`.
pub fn binary_number(x: f64, out: &mut Vec<u8>) {
    const SIGN: u64 = 0x8000_0000_0000_0000;
    let bits = normalise(x).to_bits();
    let mut p = if bits < SIGN {
        bits ^ SIGN
    } else {
        (!bits).wrapping_add(1)
    };
    out.push(MARK_NUMBER);
    out.push((p >> 56) as u8);
    p <<= 8;
    loop {
        out.push(((p >> 56) as u8) | 0x01);
        p <<= 7;
        if p == 0 {
            break;
        }
    }
    if let Some(last) = out.last_mut() {
        *last &= 0xFE;
    }
}

/// An effective partition key, held as bytes (the hex string decoded).
///
/// Equality, ordering and hashing are length-aware: trailing zero bytes are ignored, so `34AB`,
/// `34AB00` and `34AB0000` are the same key (MultiHash boundaries may come zero-padded). This is
/// the ordinal order of the upper-case hex strings once they are padded to the same length.
///
/// Up to 16 bytes (a V1 or V2 EPK, a MultiHash prefix of one level) are held inline: a layout
/// of millions of keys holds one EPK per key, and a heap allocation each cost 32 bytes more and
/// a `malloc` and a `free`.
#[derive(Clone, Default)]
pub struct Epk {
    bytes: SmallVec<[u8; 16]>,
}

impl Epk {
    /// The minimum EPK `""` (inclusive start of the key space).
    pub fn min() -> Epk {
        Epk {
            bytes: SmallVec::new(),
        }
    }

    /// The maximum EPK `"FF"` (exclusive end of the key space).
    pub fn max() -> Epk {
        Epk::from_slice(&[0xFF])
    }

    /// Wraps raw EPK bytes.
    pub fn from_bytes(bytes: Vec<u8>) -> Epk {
        if bytes.len() <= 16 {
            return Epk::from_slice(&bytes);
        }
        Epk {
            bytes: SmallVec::from_vec(bytes),
        }
    }

    /// Copies raw EPK bytes.
    pub fn from_slice(bytes: &[u8]) -> Epk {
        Epk {
            bytes: SmallVec::from_slice(bytes),
        }
    }

    /// The raw bytes, as given (not trimmed).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Parses a hex string (either case, even length).
    pub fn from_hex(s: &str) -> Result<Epk, EpkError> {
        let bad = || EpkError::InvalidHex(s.to_owned());
        if s.len() & 1 == 1 {
            return Err(bad());
        }
        let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8).ok_or_else(bad);
        let bytes = s
            .as_bytes()
            .chunks_exact(2)
            .map(|pair| Ok(digit(pair[0])? << 4 | digit(pair[1])?))
            .collect::<Result<SmallVec<[u8; 16]>, EpkError>>()?;
        Ok(Epk { bytes })
    }

    /// Upper-case hex string of the bytes as given.
    pub fn to_hex(&self) -> String {
        const HEX: &[u8; 16] = b"0123456789ABCDEF";
        let mut s = String::with_capacity(self.bytes.len() * 2);
        for &b in &self.bytes {
            s.push(HEX[usize::from(b >> 4)] as char);
            s.push(HEX[usize::from(b & 0x0F)] as char);
        }
        s
    }

    /// This EPK with `FF` appended: the exclusive end of a MultiHash prefix range.
    pub fn with_ff_suffix(&self) -> Epk {
        let mut bytes = self.bytes.clone();
        bytes.push(0xFF);
        Epk { bytes }
    }

    /// The bytes without trailing zeros: the value that equality, order and hash use.
    fn significant(&self) -> &[u8] {
        let n = self
            .bytes
            .iter()
            .rposition(|&b| b != 0)
            .map_or(0, |i| i + 1);
        &self.bytes[..n]
    }
}

impl PartialEq for Epk {
    fn eq(&self, other: &Self) -> bool {
        self.significant() == other.significant()
    }
}

impl Eq for Epk {}

impl PartialOrd for Epk {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Epk {
    fn cmp(&self, other: &Self) -> Ordering {
        self.significant().cmp(other.significant())
    }
}

impl Hash for Epk {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.significant().hash(state);
    }
}

impl fmt::Display for Epk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for Epk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Epk({:?})", self.to_hex())
    }
}

impl Serialize for Epk {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for Epk {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        Epk::from_hex(&s).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests;
