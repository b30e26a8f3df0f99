//! A record as the field profile reads it: [`Doc`], a tree that borrows its strings from the
//! record and keeps of an array only that it is one (the profile never walks into arrays).
//!
//! [`Doc::parse`] reads the common record (valid UTF-8, strings without escapes or with escapes
//! serde_json decodes, numbers serde_json reads as it would inside a document) without an
//! allocation per string or property name; on anything else it gives `None`, and the record
//! goes to serde_json as before (`profile::scan`), which reads or refuses it. Either way the
//! profile sees the same tree: an object's properties in the order of their names' bytes, a
//! repeated name holding its last value, as serde_json's map gives them ([`Doc::from_value`]).
//! serde_json building a `Value` (a `String` per name and string, a B-tree per object, all
//! freed again) was about two fifths of the profile's time.

use std::borrow::Cow;

use serde_json::{Number, Value};

/// Objects and arrays nested deeper than this are left to serde_json (its own limit is 128).
const MAX_DEPTH: usize = 100;

/// A parsed record, for the profile.
#[derive(Debug, Clone, PartialEq)]
pub enum Doc<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as serde_json reads it.
    Number(Number),
    /// A string's contents, borrowed from the record unless it held an escape.
    Str(Cow<'a, str>),
    /// An array: its elements are read (a record must be valid JSON) but not kept.
    Array,
    /// Properties by name, in byte order, each name once (its last value).
    Object(Vec<(Cow<'a, str>, Doc<'a>)>),
}

impl<'a> Doc<'a> {
    /// The record `bytes` as one JSON value, or `None` when this reader leaves it to serde_json
    /// (invalid JSON, invalid UTF-8, deep nesting, a number past a double's range).
    pub fn parse(bytes: &'a [u8]) -> Option<Doc<'a>> {
        let text = simdutf8::basic::from_utf8(bytes).ok()?;
        let mut p = Parser {
            text,
            b: bytes,
            i: 0,
        };
        let doc = p.value(0, true)?;
        p.ws();
        (p.i == bytes.len()).then_some(doc)
    }

    /// The tree of a `Value` serde_json parsed (its maps already in byte order, names once).
    pub fn from_value(v: &'a Value) -> Doc<'a> {
        match v {
            Value::Null => Doc::Null,
            Value::Bool(b) => Doc::Bool(*b),
            Value::Number(n) => Doc::Number(n.clone()),
            Value::String(s) => Doc::Str(Cow::Borrowed(s)),
            Value::Array(_) => Doc::Array,
            Value::Object(m) => Doc::Object(
                m.iter()
                    .map(|(k, v)| (Cow::Borrowed(k.as_str()), Doc::from_value(v)))
                    .collect(),
            ),
        }
    }

    /// The value of property `name` of an object.
    pub fn get(&self, name: &str) -> Option<&Doc<'a>> {
        match self {
            Doc::Object(m) => m
                .binary_search_by(|(k, _)| k.as_bytes().cmp(name.as_bytes()))
                .ok()
                .map(|i| &m[i].1),
            _ => None,
        }
    }
}

struct Parser<'a> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
}

impl<'a> Parser<'a> {
    #[inline]
    fn ws(&mut self) {
        while matches!(self.b.get(self.i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    /// The next byte after whitespace, consumed.
    #[inline]
    fn next(&mut self) -> Option<u8> {
        self.ws();
        let c = *self.b.get(self.i)?;
        self.i += 1;
        Some(c)
    }

    /// A value; with `keep` false (an array's elements) only read, and `Doc::Null` returned.
    fn value(&mut self, depth: usize, keep: bool) -> Option<Doc<'a>> {
        match self.next()? {
            b'{' if depth < MAX_DEPTH => self.object(depth + 1, keep),
            b'[' if depth < MAX_DEPTH => {
                if self.next_is(b']') {
                    return Some(Doc::Array);
                }
                loop {
                    self.value(depth + 1, false)?;
                    match self.next()? {
                        b',' => {}
                        b']' => return Some(Doc::Array),
                        _ => return None,
                    }
                }
            }
            b'"' => Some(Doc::Str(self.string()?)),
            b't' => self.literal(b"rue", Doc::Bool(true)),
            b'f' => self.literal(b"alse", Doc::Bool(false)),
            b'n' => self.literal(b"ull", Doc::Null),
            b'-' | b'0'..=b'9' => {
                self.i -= 1;
                let n = self.number()?;
                Some(if keep { Doc::Number(n) } else { Doc::Null })
            }
            _ => None,
        }
    }

    /// Whether the next byte after whitespace is `c`; consumed if so.
    #[inline]
    fn next_is(&mut self, c: u8) -> bool {
        self.ws();
        let yes = self.b.get(self.i) == Some(&c);
        self.i += usize::from(yes);
        yes
    }

    fn object(&mut self, depth: usize, keep: bool) -> Option<Doc<'a>> {
        let mut members = Vec::new();
        if !self.next_is(b'}') {
            loop {
                if self.next()? != b'"' {
                    return None;
                }
                let name = self.string()?;
                if self.next()? != b':' {
                    return None;
                }
                let v = self.value(depth, keep)?;
                if keep {
                    members.push((name, v));
                }
                match self.next()? {
                    b',' => {}
                    b'}' => break,
                    _ => return None,
                }
            }
        }
        if !keep {
            return Some(Doc::Null);
        }
        // As serde_json's map: by name, and a repeated name's last value (the sort is stable).
        members.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        members.dedup_by(|later, earlier| {
            let same = later.0 == earlier.0;
            if same {
                std::mem::swap(later, earlier);
            }
            same
        });
        Some(Doc::Object(members))
    }

    fn literal(&mut self, rest: &[u8], v: Doc<'a>) -> Option<Doc<'a>> {
        let ok = self.b.get(self.i..self.i + rest.len()) == Some(rest);
        self.i += rest.len();
        ok.then_some(v)
    }

    /// A string's contents, its opening quote read: borrowed without escapes, decoded by
    /// serde_json with them.
    fn string(&mut self) -> Option<Cow<'a, str>> {
        let start = self.i;
        let stop = start + crate::keys::jstring::string_stop(&self.b[start..])?;
        match self.b[stop] {
            b'"' => {
                self.i = stop + 1;
                Some(Cow::Borrowed(self.text.get(start..stop)?))
            }
            b'\\' => {
                let mut i = stop;
                loop {
                    match *self.b.get(i)? {
                        b'\\' => i += 2,
                        b'"' => break,
                        c if c < 0x20 => return None,
                        _ => i += 1,
                    }
                }
                self.i = i + 1;
                let quoted = self.text.get(start - 1..i + 1)?;
                serde_json::from_str::<String>(quoted).ok().map(Cow::Owned)
            }
            _ => None, // a control character: invalid JSON
        }
    }

    /// A number as serde_json reads it inside a document: a plain non-negative integer that
    /// fits 64 bits directly, any other through serde_json's own reading of its text. The
    /// number is the run of bytes a number may hold, checked by the scanner's grammar
    /// ([`crate::keys::extract::is_json_number`]): no valid record has such a byte right after
    /// a number, so a run that is not one number is invalid JSON.
    fn number(&mut self) -> Option<Number> {
        let start = self.i;
        let run = self.b[start..]
            .iter()
            .take_while(|c| matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
            .count();
        let lit = &self.b[start..start + run];
        if !crate::keys::extract::is_json_number(lit) {
            return None;
        }
        self.i = start + run;
        let lit = &self.text[start..start + run];
        if lit.bytes().all(|c| c.is_ascii_digit()) {
            if let Ok(u) = lit.parse::<u64>() {
                return Some(Number::from(u));
            }
        }
        serde_json::from_str::<Number>(lit).ok()
    }
}

#[cfg(test)]
mod tests;
