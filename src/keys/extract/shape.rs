//! The last record's layout, tried first: JSON Lines written by one program repeat one layout
//! (the same property names in the same order, the same punctuation and whitespace), only the
//! scalar values changing. [`Shapes`] learns that layout from a record the full scanner has
//! read: the bytes between its scalar values (*literals*) and, for each scalar (a *hole*), the
//! key path it fills. A record that repeats every literal byte for byte, with a scalar in each
//! hole, is read by comparing the literals and reading the scalars alone; anything else (a
//! different layout, an escape, an object where a scalar was, an invalid value) is read by
//! [`scan_validated`], which gives every error.
//!
//! **Why the result is the full scanner's.** The scanner's actions follow the record's tokens:
//! property names and punctuation decide which trie node each value sits at, and a scalar
//! decides nothing after it. A record matching the layout has the layout record's tokens,
//! except for its scalars (each read as the scanner reads one: a string up to its first quote,
//! with no escape or control byte before it; a number by the scanner's own grammar; `true`,
//! `false` or `null`), so the scanner would visit the same nodes in the same order. Layouts are
//! only learnt from records that visit each trie node at most once, so each slot ends with the
//! one value written to it (the scalar of its hole, `Composite` for an object or array, or
//! `Missing`), and no repeated property resets a subtree. The whitespace outside strings is all
//! in the literals, so the record has the layout record's count.

use super::{scan_validated, Extracted, PathTrie, ScanError, ScanSummary, Scanner};
use crate::keys::jstring::string_stop;
use std::borrow::Cow;

/// No slot: the hole's value is read and validated, and kept by no key path.
const NO_SLOT: u32 = u32::MAX;

/// Misses (records of another layout, or with an escape or an invalid value) a layout may have
/// before it is judged: it is poor when it has missed more records than it has read.
const MISSES_BEFORE_JUDGING: u32 = 8;
/// Poor layouts in a row after which records are read by the full scanner alone for a while:
/// [`FIRST_PAUSE`] records, doubled at each pause up to [`MAX_PAUSE`] (records of many layouts
/// would otherwise cost a failed comparison, and a learning pass every few records).
const POOR_IN_A_ROW: u32 = 2;
const FIRST_PAUSE: u32 = 256;
const MAX_PAUSE: u32 = 1 << 16;
/// Records read by a layout after which it is judged good (the pause and the poor streak
/// start again from nothing).
const GOOD_HITS: u32 = 64;

/// One layout: literal bytes, each followed by a hole, then the last literal.
#[derive(Debug, Clone)]
struct Layout {
    /// Every literal, one after another.
    lits: Vec<u8>,
    /// Each hole: its literal's end in `lits` (the literal starts where the previous ended)
    /// and the slot its scalar fills ([`NO_SLOT`]: none).
    holes: Vec<(u32, u32)>,
    /// The slots holding `Composite` (an object or array at a key path).
    composite: Vec<u32>,
    /// The layout record's whitespace outside strings, all of it in the literals.
    whitespace: usize,
}

/// A worker's learnt layout with its record of hits and misses ([`Shapes::scan`]).
#[derive(Debug, Default)]
pub struct Shapes {
    layout: Option<Layout>,
    hits: u32,
    misses: u32,
    /// Poor layouts in a row.
    poor: u32,
    /// Records still to read without trying a layout.
    paused: u32,
    /// The last pause (0: none since the last good layout).
    pause: u32,
    /// Records scanned, and read by a layout, in all.
    records: u64,
    read: u64,
}

impl Shapes {
    /// [`scan_validated`] of `doc`, trying the learnt layout first (learnt from records scanned
    /// with the same `trie`: a worker keeps one [`Shapes`] for its one trie).
    pub fn scan<'a>(
        &mut self,
        doc: &'a [u8],
        text: Option<&'a str>,
        trie: &PathTrie,
        values: &mut Vec<Extracted<'a>>,
    ) -> Result<ScanSummary, ScanError> {
        self.records += 1;
        if self.paused > 0 {
            self.paused -= 1;
            return scan_validated(doc, text, trie, values);
        }
        if let (Some(layout), Some(text)) = (&self.layout, text) {
            if let Some(summary) = layout.read(doc, text, trie, values) {
                self.hits += 1;
                self.read += 1;
                if self.hits == GOOD_HITS {
                    (self.poor, self.pause) = (0, 0);
                }
                return Ok(summary);
            }
            self.misses += 1;
        }
        let summary = scan_validated(doc, text, trie, values)?;
        self.relearn(doc, trie, summary.whitespace_bytes);
        Ok(summary)
    }

    /// Records read by a layout, and records scanned, in all.
    pub fn counts(&self) -> (u64, u64) {
        (self.read, self.records)
    }

    /// After a miss (or with no layout yet): learns the layout of `doc` (valid JSON, with
    /// `whitespace` bytes outside strings) when there is none or the current one is poor, or
    /// pauses after [`POOR_IN_A_ROW`] poor ones.
    fn relearn(&mut self, doc: &[u8], trie: &PathTrie, whitespace: usize) {
        if self.layout.is_some() {
            if self.misses < MISSES_BEFORE_JUDGING || self.misses <= self.hits {
                return;
            }
            self.poor += 1;
            if self.poor >= POOR_IN_A_ROW {
                self.pause = (self.pause * 2).clamp(FIRST_PAUSE, MAX_PAUSE);
                self.paused = self.pause;
                self.poor = 0;
                self.layout = None;
                (self.hits, self.misses) = (0, 0);
                return;
            }
        }
        self.layout = Layout::learn(doc, trie, whitespace);
        (self.hits, self.misses) = (0, 0);
    }
}

impl Layout {
    /// The layout of `doc` (valid JSON, already read by [`scan_validated`] with `trie`, which
    /// counted `whitespace` bytes outside its strings), or `None` when a trie node is visited
    /// twice or a property name has an escape.
    fn learn(doc: &[u8], trie: &PathTrie, whitespace: usize) -> Option<Layout> {
        let mut l = Learner {
            doc,
            pos: 0,
            trie,
            visited: vec![false; trie.nodes.len()],
            holes: Vec::new(),
            composite: Vec::new(),
        };
        l.value(Some(0))?;
        let mut lits = Vec::with_capacity(doc.len());
        let mut holes = Vec::with_capacity(l.holes.len());
        let mut at = 0;
        for &(start, end, slot) in &l.holes {
            lits.extend_from_slice(&doc[at..start]);
            holes.push((lits.len() as u32, slot));
            at = end;
        }
        lits.extend_from_slice(&doc[at..]);
        Some(Layout {
            lits,
            holes,
            composite: l.composite,
            whitespace,
        })
    }

    /// `doc` read by this layout, or `None` when it does not follow it (`values` then holds
    /// anything: the caller reads the record again with [`scan_validated`], which resets them).
    #[inline]
    fn read<'a>(
        &self,
        doc: &'a [u8],
        text: &'a str,
        trie: &PathTrie,
        values: &mut Vec<Extracted<'a>>,
    ) -> Option<ScanSummary> {
        let n = trie.slot_count();
        if values.len() == n {
            for v in values.iter_mut() {
                *v = Extracted::Missing;
            }
        } else {
            values.clear();
            values.resize(n, Extracted::Missing);
        }
        for &s in &self.composite {
            values[s as usize] = Extracted::Composite;
        }
        let mut s = Scanner {
            buf: doc,
            text: Some(text),
            pos: 0,
            ws: 0,
            trie,
        };
        let mut from = 0usize;
        for &(to, slot) in &self.holes {
            let lit = &self.lits[from..to as usize];
            if doc.get(s.pos..s.pos + lit.len()) != Some(lit) {
                return None;
            }
            s.pos += lit.len();
            from = to as usize;
            let v = match doc.get(s.pos)? {
                b'"' => {
                    let start = s.pos + 1;
                    let end = start + string_stop(&doc[start..])?;
                    if doc[end] != b'"' {
                        return None;
                    }
                    s.pos = end + 1;
                    Extracted::Str(Cow::Borrowed(text.get(start..end)?))
                }
                b'-' | b'0'..=b'9' => {
                    let start = s.pos;
                    s.number().ok()?;
                    Extracted::Number(&doc[start..s.pos])
                }
                b't' => word(&mut s, b"true", Extracted::Bool(true))?,
                b'f' => word(&mut s, b"false", Extracted::Bool(false))?,
                b'n' => word(&mut s, b"null", Extracted::Null)?,
                _ => return None,
            };
            if slot != NO_SLOT {
                values[slot as usize] = v;
            }
        }
        let last = &self.lits[from..];
        (doc.get(s.pos..) == Some(last)).then_some(ScanSummary {
            whitespace_bytes: self.whitespace,
        })
    }
}

/// The literal `w` at the scanner's position, as `v`.
#[inline]
fn word<'a>(s: &mut Scanner<'a, '_>, w: &[u8], v: Extracted<'a>) -> Option<Extracted<'a>> {
    if !s.buf[s.pos..].starts_with(w) {
        return None;
    }
    s.pos += w.len();
    Some(v)
}

/// Walks a valid record as the scanner does, noting its holes (start, end, slot) and the
/// slots that hold an object or array.
struct Learner<'d, 't> {
    doc: &'d [u8],
    pos: usize,
    trie: &'t PathTrie,
    visited: Vec<bool>,
    holes: Vec<(usize, usize, u32)>,
    composite: Vec<u32>,
}

impl Learner<'_, '_> {
    fn ws(&mut self) {
        while matches!(self.doc.get(self.pos), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            self.pos += 1;
        }
    }

    /// The value at the position, at trie node `node`; `None`: no layout (a node visited
    /// twice, or a name with an escape).
    fn value(&mut self, node: Option<usize>) -> Option<()> {
        if let Some(n) = node {
            if std::mem::replace(&mut self.visited[n], true) {
                return None;
            }
        }
        let slot = node.and_then(|n| self.trie.nodes[n].slot);
        self.ws();
        match *self.doc.get(self.pos)? {
            b'{' => {
                self.composite.extend(slot);
                let descend = node.filter(|&n| !self.trie.nodes[n].children.is_empty());
                self.object(descend)
            }
            b'[' => {
                self.composite.extend(slot);
                self.array()
            }
            b'"' => {
                let start = self.pos;
                self.string();
                self.holes.push((start, self.pos, slot.unwrap_or(NO_SLOT)));
                Some(())
            }
            _ => {
                // A number or a literal: valid JSON, so it runs to the next delimiter.
                let start = self.pos;
                while self
                    .doc
                    .get(self.pos)
                    .is_some_and(|&b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.'))
                {
                    self.pos += 1;
                }
                self.holes.push((start, self.pos, slot.unwrap_or(NO_SLOT)));
                Some(())
            }
        }
    }

    /// Past a valid string; whether it had an escape.
    fn string(&mut self) -> bool {
        let mut escaped = false;
        self.pos += 1;
        loop {
            match self.doc.get(self.pos) {
                Some(b'"') => {
                    self.pos += 1;
                    return escaped;
                }
                Some(b'\\') => {
                    escaped = true;
                    self.pos += 2;
                }
                Some(_) => self.pos += 1,
                None => return escaped,
            }
        }
    }

    fn object(&mut self, node: Option<usize>) -> Option<()> {
        self.pos += 1;
        loop {
            self.ws();
            match *self.doc.get(self.pos)? {
                b'}' => {
                    self.pos += 1;
                    return Some(());
                }
                b',' => self.pos += 1,
                _ => {
                    let start = self.pos + 1;
                    if self.string() {
                        return None;
                    }
                    let name = &self.doc[start..self.pos - 1];
                    let child = node.and_then(|n| self.trie.child(n, name));
                    self.ws();
                    self.pos += 1; // ':'
                    self.value(child)?;
                }
            }
        }
    }

    fn array(&mut self) -> Option<()> {
        self.pos += 1;
        loop {
            self.ws();
            match *self.doc.get(self.pos)? {
                b']' => {
                    self.pos += 1;
                    return Some(());
                }
                b',' => self.pos += 1,
                _ => self.value(None)?,
            }
        }
    }
}

#[cfg(test)]
mod tests;
