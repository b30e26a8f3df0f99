//! One-pass extraction of the partition-key paths from a raw JSON document.
//!
//! Documents are never parsed into a DOM. A validating scanner walks the bytes once, descends only
//! into the properties some candidate reads ([`PathTrie`]), skips everything else with `memchr`,
//! and captures the leaf values it meets as borrowed slices ([`Extracted`]). The same pass counts
//! the insignificant whitespace, so the minified size of the document comes for free.

use super::jstring::{digit_run, string_stop, unescape};
use std::borrow::Cow;

/// The most nested arrays/objects a document may have before it is rejected.
const MAX_DEPTH: usize = 128;

/// The property paths every candidate reads, merged into one tree.
#[derive(Debug, Clone, Default)]
pub struct PathTrie {
    nodes: Vec<TrieNode>,
    slots: usize,
}

#[derive(Debug, Clone, Default)]
struct TrieNode {
    children: Vec<(Box<[u8]>, u32)>,
    slot: Option<u32>,
    /// Slots of every path strictly below this node: a repeated property replaces its whole
    /// subtree (last wins), so these are reset when the property appears again.
    below: Vec<u32>,
}

impl PathTrie {
    /// An empty trie (the root node only).
    pub fn new() -> PathTrie {
        PathTrie {
            nodes: vec![TrieNode::default()],
            slots: 0,
        }
    }

    /// Adds a path (its unescaped segments) and returns its value slot. Adding the same path twice
    /// returns the same slot, so candidates sharing a property extract it once.
    pub fn insert<S: AsRef<str>>(&mut self, segments: &[S]) -> usize {
        let mut node = 0usize;
        let mut trail = Vec::with_capacity(segments.len());
        for seg in segments {
            trail.push(node);
            let seg = seg.as_ref().as_bytes();
            let found = self.nodes[node]
                .children
                .iter()
                .find(|(name, _)| &name[..] == seg)
                .map(|&(_, idx)| idx as usize);
            node = match found {
                Some(idx) => idx,
                None => {
                    let idx = self.nodes.len();
                    self.nodes.push(TrieNode::default());
                    self.nodes[node].children.push((seg.into(), idx as u32));
                    idx
                }
            };
        }
        match self.nodes[node].slot {
            Some(slot) => slot as usize,
            None => {
                let slot = self.slots;
                self.nodes[node].slot = Some(slot as u32);
                self.slots += 1;
                // Every proper ancestor except the root (a document is one object) owns it.
                for &a in trail.iter().skip(1) {
                    self.nodes[a].below.push(slot as u32);
                }
                slot
            }
        }
    }

    /// How many distinct paths (value slots) the trie holds.
    pub fn slot_count(&self) -> usize {
        self.slots
    }

    #[inline]
    fn child(&self, node: usize, key: &[u8]) -> Option<usize> {
        // Most property names are not key paths: reject on length and first byte before a
        // full comparison (a libc memcmp call per property was a tenth of the scan time).
        let first = *key.first()?;
        self.nodes[node]
            .children
            .iter()
            .find(|(name, _)| name.len() == key.len() && name[0] == first && name[1..] == key[1..])
            .map(|&(_, idx)| idx as usize)
    }
}

/// A value found at a path, borrowed from the document where possible.
#[derive(Debug, Clone, PartialEq)]
pub enum Extracted<'a> {
    /// The path is absent: Cosmos DB's *Undefined* partition.
    Missing,
    /// JSON `null`: Cosmos DB's *Null* partition.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as its JSON text (valid per the JSON grammar).
    Number(&'a [u8]),
    /// A string, unescaped.
    Str(Cow<'a, str>),
    /// An object or array: not a valid partition key value.
    Composite,
}

/// What is wrong with a record, and where (a byte offset into the record).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanError {
    /// Byte offset of the problem inside the record.
    pub offset: usize,
    /// What is wrong, phrased for the user.
    pub message: &'static str,
}

/// The outcome of scanning one record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanSummary {
    /// Bytes of JSON whitespace outside strings (raw size minus this is the minified size).
    pub whitespace_bytes: usize,
}

/// Scans one JSON document that must be an object, filling `values` (one entry per trie slot).
///
/// `values` is reset to [`Extracted::Missing`] (one per trie slot) first, so the caller can reuse it.
pub fn scan_document<'a>(
    doc: &'a [u8],
    trie: &PathTrie,
    values: &mut Vec<Extracted<'a>>,
) -> Result<ScanSummary, ScanError> {
    // One SIMD validation of the whole record lets every string be sliced out of it without
    // validating each again (property names and values: a dozen calls per record).
    scan_validated(doc, simdutf8::basic::from_utf8(doc).ok(), trie, values)
}

/// [`scan_document`] of a record whose UTF-8 validity the caller already knows: `text` is
/// `doc` as text when it is valid (a slice of a block validated at once), `None` when it is not
/// or was not checked (strings are then validated one by one).
pub fn scan_validated<'a>(
    doc: &'a [u8],
    text: Option<&'a str>,
    trie: &PathTrie,
    values: &mut Vec<Extracted<'a>>,
) -> Result<ScanSummary, ScanError> {
    debug_assert!(text.is_none_or(|t| t.as_bytes() == doc));
    // Reset in place: the caller reuses one vector, already of the right length after the
    // first record (`resize` was an out-of-line call per record, a twentieth of a small
    // record's time).
    if values.len() == trie.slot_count() {
        for v in values.iter_mut() {
            *v = Extracted::Missing;
        }
    } else {
        values.clear();
        values.resize(trie.slot_count(), Extracted::Missing);
    }
    let mut s = Scanner {
        buf: doc,
        text,
        pos: 0,
        ws: 0,
        trie,
    };
    s.skip_ws();
    if s.peek() != Some(b'{') {
        return Err(s.error(if s.pos >= doc.len() {
            "empty record"
        } else {
            "expected a JSON object `{...}` as the document"
        }));
    }
    s.value(Some(0), values, 0)?;
    s.skip_ws();
    if s.pos != doc.len() {
        return Err(s.error("unexpected data after the end of the document"));
    }
    Ok(ScanSummary {
        whitespace_bytes: s.ws,
    })
}

struct Scanner<'a, 't> {
    buf: &'a [u8],
    /// `buf` as text, when it is valid UTF-8.
    text: Option<&'a str>,
    pos: usize,
    ws: usize,
    trie: &'t PathTrie,
}

impl<'a> Scanner<'a, '_> {
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.buf.get(self.pos).copied()
    }

    fn error(&self, message: &'static str) -> ScanError {
        ScanError {
            offset: self.pos.min(self.buf.len()),
            message,
        }
    }

    #[inline]
    fn skip_ws(&mut self) {
        if self.buf.get(self.pos).is_none_or(|&b| b > b' ') {
            return;
        }
        let start = self.pos;
        while let Some(&b) = self.buf.get(self.pos) {
            if matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                self.pos += 1;
            } else {
                break;
            }
        }
        self.ws += self.pos - start;
    }

    /// Parses any value. `node` is the trie node this value sits at (None: nobody reads inside).
    fn value(
        &mut self,
        node: Option<usize>,
        values: &mut [Extracted<'a>],
        depth: usize,
    ) -> Result<(), ScanError> {
        let slot = node.and_then(|n| self.trie.nodes[n].slot);
        if let Some(n) = node {
            // A property seen again replaces its whole subtree: `{"a":{"b":1},"a":5}` has no
            // `/a/b`.
            for &s in &self.trie.nodes[n].below {
                values[s as usize] = Extracted::Missing;
            }
        }
        match self.peek() {
            Some(b'{') => {
                if depth >= MAX_DEPTH {
                    return Err(self.error("nesting deeper than 128 levels"));
                }
                if let Some(slot) = slot {
                    values[slot as usize] = Extracted::Composite;
                }
                let descend = node.filter(|&n| !self.trie.nodes[n].children.is_empty());
                self.object(descend, values, depth + 1)
            }
            Some(b'[') => {
                if depth >= MAX_DEPTH {
                    return Err(self.error("nesting deeper than 128 levels"));
                }
                if let Some(slot) = slot {
                    values[slot as usize] = Extracted::Composite;
                }
                self.array(values, depth + 1)
            }
            Some(b'"') => {
                let s = self.string()?;
                if let Some(slot) = slot {
                    values[slot as usize] = Extracted::Str(s);
                }
                Ok(())
            }
            Some(b't') => self.literal(b"true", slot, Extracted::Bool(true), values),
            Some(b'f') => self.literal(b"false", slot, Extracted::Bool(false), values),
            Some(b'n') => self.literal(b"null", slot, Extracted::Null, values),
            Some(b'-' | b'0'..=b'9') => {
                let start = self.pos;
                self.number()?;
                if let Some(slot) = slot {
                    values[slot as usize] = Extracted::Number(&self.buf[start..self.pos]);
                }
                Ok(())
            }
            None => Err(self.error("unexpected end of record: expected a value")),
            Some(_) => Err(self.error("expected a JSON value")),
        }
    }

    /// [`Scanner::value`] for a property value or an array element: strings and numbers that
    /// no key path reads (most of a document) are skipped here, without the recursive call.
    #[inline(always)]
    fn member(
        &mut self,
        node: Option<usize>,
        values: &mut [Extracted<'a>],
        depth: usize,
    ) -> Result<(), ScanError> {
        match (node, self.peek()) {
            (None, Some(b'"')) => self.skip_value_string(),
            (None, Some(b'-' | b'0'..=b'9')) => self.number(),
            _ => self.value(node, values, depth),
        }
    }

    fn literal(
        &mut self,
        word: &'static [u8],
        slot: Option<u32>,
        v: Extracted<'a>,
        values: &mut [Extracted<'a>],
    ) -> Result<(), ScanError> {
        if self.buf[self.pos..].starts_with(word) {
            self.pos += word.len();
            if let Some(slot) = slot {
                values[slot as usize] = v;
            }
            Ok(())
        } else {
            Err(self.error("invalid literal: expected true, false or null"))
        }
    }

    fn object(
        &mut self,
        node: Option<usize>,
        values: &mut [Extracted<'a>],
        depth: usize,
    ) -> Result<(), ScanError> {
        self.pos += 1; // '{'
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(());
        }
        loop {
            if self.peek() != Some(b'"') {
                return Err(self.error(if self.pos >= self.buf.len() {
                    "unexpected end of record inside an object"
                } else {
                    "expected a property name in double quotes"
                }));
            }
            let child = match node {
                Some(n) => {
                    // Property names are compared as bytes: no UTF-8 conversion per name (the
                    // record's UTF-8 is validated once, per block).
                    let start = self.pos + 1;
                    if self.skip_string()? {
                        let raw = &self.buf[start..self.pos - 1];
                        let name = unescape(raw).ok_or(ScanError {
                            offset: start,
                            message: "invalid escape sequence or unpaired surrogate in a string",
                        })?;
                        self.trie.child(n, name.as_bytes())
                    } else {
                        self.trie.child(n, &self.buf[start..self.pos - 1])
                    }
                }
                None => {
                    // Not a key path, but the document must be valid whatever the candidates:
                    // a name with escapes is checked like any other string.
                    let start = self.pos + 1;
                    if self.skip_string()? && unescape(&self.buf[start..self.pos - 1]).is_none() {
                        return Err(ScanError {
                            offset: start,
                            message: "invalid escape sequence or unpaired surrogate in a string",
                        });
                    }
                    None
                }
            };
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.error("expected `:` after the property name"));
            }
            self.pos += 1;
            self.skip_ws();
            self.member(child, values, depth)?;
            self.skip_ws();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_ws();
                }
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(());
                }
                None => return Err(self.error("unexpected end of record inside an object")),
                Some(_) => return Err(self.error("expected `,` or `}` after a property value")),
            }
        }
    }

    fn array(&mut self, values: &mut [Extracted<'a>], depth: usize) -> Result<(), ScanError> {
        self.pos += 1; // '['
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(());
        }
        loop {
            self.member(None, values, depth)?;
            self.skip_ws();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_ws();
                }
                Some(b']') => {
                    self.pos += 1;
                    return Ok(());
                }
                None => return Err(self.error("unexpected end of record inside an array")),
                Some(_) => return Err(self.error("expected `,` or `]` after an array element")),
            }
        }
    }

    /// Skips a string, validating it; returns whether it contained escapes.
    ///
    /// (Long strings: [`string_stop`] finds the end, an escape or a control character in one
    /// pass, 32 bytes at a time.)
    #[inline]
    fn skip_string(&mut self) -> Result<bool, ScanError> {
        let start = self.pos + 1;
        let mut i = start;
        let mut escaped = false;
        loop {
            match string_stop(&self.buf[i..]) {
                None => {
                    self.pos = self.buf.len();
                    return Err(self.error("unterminated string"));
                }
                Some(off) => {
                    let at = i + off;
                    match self.buf[at] {
                        b'"' => {
                            self.pos = at + 1;
                            return Ok(escaped);
                        }
                        b'\\' => {}
                        _ => {
                            self.pos = at;
                            return Err(
                                self.error("control character inside a string (must be escaped)")
                            );
                        }
                    }
                    escaped = true;
                    // Validate the escape.
                    match self.buf.get(at + 1) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i = at + 2,
                        Some(b'u') => {
                            let hex = self.buf.get(at + 2..at + 6);
                            match hex {
                                Some(h) if h.iter().all(u8::is_ascii_hexdigit) => i = at + 6,
                                _ => {
                                    self.pos = at;
                                    return Err(
                                        self.error("invalid \\u escape: expected 4 hex digits")
                                    );
                                }
                            }
                        }
                        _ => {
                            self.pos = at;
                            return Err(self.error("invalid escape sequence in a string"));
                        }
                    }
                }
            }
        }
    }

    /// Skips a string that no key path reads, validating it as [`Scanner::string`] would
    /// (without building its value).
    #[inline]
    fn skip_value_string(&mut self) -> Result<(), ScanError> {
        let start = self.pos + 1;
        if self.skip_string()? || self.text.is_none() {
            // Escapes to check, or bytes whose UTF-8 is not known valid: the full read.
            self.pos = start - 1;
            return self.string().map(drop);
        }
        Ok(())
    }

    /// Reads a string and returns it unescaped (borrowed when it has no escapes).
    fn string(&mut self) -> Result<Cow<'a, str>, ScanError> {
        let start = self.pos + 1;
        let escaped = self.skip_string()?;
        let raw = &self.buf[start..self.pos - 1];
        if !escaped {
            // Between two quotes of valid UTF-8: a slice of the validated text.
            if let Some(t) = self.text.and_then(|t| t.get(start..self.pos - 1)) {
                return Ok(Cow::Borrowed(t));
            }
            return match std::str::from_utf8(raw) {
                Ok(s) => Ok(Cow::Borrowed(s)),
                Err(_) => Err(ScanError {
                    offset: start,
                    message: "string is not valid UTF-8",
                }),
            };
        }
        unescape(raw).map(Cow::Owned).ok_or(ScanError {
            offset: start,
            message: "invalid escape sequence or unpaired surrogate in a string",
        })
    }

    fn number(&mut self) -> Result<(), ScanError> {
        let b = self.buf;
        let mut i = self.pos;
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => i = digit_run(b, i + 1),
            _ => {
                self.pos = i;
                return Err(self.error("invalid number: expected a digit"));
            }
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            if !matches!(b.get(i), Some(b'0'..=b'9')) {
                self.pos = i;
                return Err(self.error("invalid number: expected a digit after `.`"));
            }
            i = digit_run(b, i + 1);
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            if !matches!(b.get(i), Some(b'0'..=b'9')) {
                self.pos = i;
                return Err(self.error("invalid number: expected a digit in the exponent"));
            }
            while matches!(b.get(i), Some(b'0'..=b'9')) {
                i += 1;
            }
        }
        self.pos = i;
        Ok(())
    }
}

/// Whether `text` is exactly one JSON number (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`).
pub fn is_json_number(text: &[u8]) -> bool {
    if text.is_empty() {
        return false;
    }
    // The number routine reads no path: an empty trie, which allocates nothing (this runs for
    // every number the field profile reads).
    let trie = PathTrie {
        nodes: Vec::new(),
        slots: 0,
    };
    let mut s = Scanner {
        buf: text,
        text: None,
        pos: 0,
        ws: 0,
        trie: &trie,
    };
    matches!(text[0], b'-' | b'0'..=b'9') && s.number().is_ok() && s.pos == text.len()
}

mod shape;
pub use shape::Shapes;

#[cfg(test)]
mod tests;
