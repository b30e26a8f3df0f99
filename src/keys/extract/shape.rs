//! Learnt layouts, tried before the full scanner: JSON Lines written by one program repeat one
//! layout per kind of document (the same property names in the same order, the same punctuation
//! and whitespace), only the values changing. [`Shapes`] keeps a few layouts (a container often
//! holds several kinds of document) and learns each from a record the full scanner has read: the
//! bytes between its values (*literals*) and, for each value (a *hole*), the trie node it sits at
//! and its depth. The literals are the record's structure down to the key paths: the root object's
//! names and punctuation, and those of the objects on the way to a nested key path. Every other
//! value is a hole: a key path's value, and any value no key path reads (an array of line items, a
//! nested object, free text), whatever its length. A record that repeats every literal byte for
//! byte is read by comparing the literals and reading each hole; anything else (another order,
//! another property, an invalid value) is read by [`scan_validated`], which gives every error.
//!
//! **Why the result is the full scanner's.** The scanner's actions follow the record's tokens:
//! names and punctuation decide which trie node each value sits at. A record matching the layout
//! has the layout record's tokens outside its holes, so the scanner would meet each hole at the
//! same node and depth; each hole is read by the scanner's own routine
//! ([`Scanner::member`]) at that node and depth, or, for a string without escapes, sliced as
//! that routine slices it. Layouts are only learnt from records that visit each trie node at
//! most once, so the values a hole writes (at its node and below it) are written nowhere else,
//! and no repeated property resets them. The whitespace of the literals is the layout
//! record's; that inside the holes is counted as they are read.

use super::{scan_validated, Extracted, PathTrie, ScanError, ScanSummary, Scanner};
use crate::keys::jstring::{digit_run, same_bytes, string_stop};
use std::borrow::Cow;

/// A hole's node or slot when it has none.
const NONE: u32 = u32::MAX;

/// A value read in a layout's record ([`Layout::read`]).
#[derive(Debug, Clone, Copy)]
struct Hole {
    /// The end of the literal before it, in [`Layout::lits`] (it starts where the previous
    /// literal ended).
    lit_end: u32,
    /// The trie node the value sits at ([`NONE`]: no key path reads it).
    node: u32,
    /// The slot a string without escapes is written to directly ([`NONE`]: none). (Were the
    /// node to have paths below it, the scanner's routine would reset them first: they are
    /// `Missing` already, as nothing else in the record reaches them.)
    slot: u32,
    /// The depth the scanner reads it at.
    depth: u32,
}

/// Misses (records no layout reads: of another layout, or with an invalid value) the layouts
/// may have before they are judged: poor when they have missed more records than they have read.
const MISSES_BEFORE_JUDGING: u32 = 8;
/// Poor judgements in a row after which records are read by the full scanner alone for a while:
/// [`FIRST_PAUSE`] records, doubled at each pause up to [`MAX_PAUSE`] (records of many layouts
/// would otherwise cost failed comparisons, and a learning pass every few records).
const POOR_IN_A_ROW: u32 = 2;
const FIRST_PAUSE: u32 = 256;
const MAX_PAUSE: u32 = 1 << 16;
/// Records read by one layout after which it is judged good (the pause and the poor streak
/// start again from nothing).
const GOOD_HITS: u32 = 64;
/// Layouts a worker keeps at once: a container holding several kinds of document (orders and
/// customers, a `type` property telling them apart) repeats one layout per kind.
const MAX_LAYOUTS: usize = 4;

/// One layout: literal bytes, each followed by a hole, then the last literal.
#[derive(Debug, Clone)]
struct Layout {
    /// Every literal, one after another.
    lits: Vec<u8>,
    holes: Vec<Hole>,
    /// The slots holding `Composite`: objects on the way to a nested key path that is also a
    /// key path itself.
    composite: Vec<u32>,
    /// The whitespace of the literals, outside strings.
    whitespace: usize,
}

/// A kept layout and the records it has read since it was learnt.
#[derive(Debug)]
struct Kept {
    layout: Layout,
    hits: u32,
}

/// A worker's learnt layouts with their record of hits and misses ([`Shapes::scan`]).
///
/// Each record is tried against the kept layouts, the last one to read a record first (a hit
/// moves a layout to the front). A record none reads (a *miss*) is read by the full scanner;
/// after `MISSES_BEFORE_JUDGING` misses since the last layout was learnt, the layouts are
/// judged:
///
/// - with fewer than `MAX_LAYOUTS` kept, the missed record's layout is learnt beside them;
/// - with all kept and **poor** (more misses than hits): a poor mark, and after
///   `POOR_IN_A_ROW` of them every layout is dropped and reading pauses; otherwise the
///   layout with the fewest hits makes room for the missed record's;
/// - with all kept and **not poor**: a layout that has read nothing since it was learnt makes
///   room for the missed record's; a full set of useful layouts is kept.
///
/// With one kind of record this is the single-layout scheme it extends: the layout is kept
/// while it reads most records, and replaced, then paused, when it does not.
#[derive(Debug, Default)]
pub struct Shapes {
    layouts: Vec<Kept>,
    /// Records read by a layout, and records none read, since the last layout was learnt.
    hits: u32,
    misses: u32,
    /// Poor judgements in a row.
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
    /// [`scan_validated`] of `doc`, trying the learnt layouts first (learnt from records
    /// scanned with the same `trie`: a worker keeps one [`Shapes`] for its one trie).
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
        if let (Some(first), Some(text)) = (self.layouts.first(), text) {
            // The front layout first, inline: with one kind of record it reads them all.
            let read = match first.layout.read(doc, text, trie, values) {
                Some(summary) => Some((0, summary)),
                None => self.read_by_others(doc, text, trie, values),
            };
            if let Some((i, summary)) = read {
                self.hit(i);
                return Ok(summary);
            }
            self.misses = self.misses.saturating_add(1);
        }
        let summary = scan_validated(doc, text, trie, values)?;
        if let Some(text) = text {
            self.relearn(doc, text, trie, summary.whitespace_bytes);
        }
        Ok(summary)
    }

    /// `doc` read by a kept layout other than the front one: its index and the summary.
    #[inline(never)]
    fn read_by_others<'a>(
        &self,
        doc: &'a [u8],
        text: &'a str,
        trie: &PathTrie,
        values: &mut Vec<Extracted<'a>>,
    ) -> Option<(usize, ScanSummary)> {
        (self.layouts.iter().enumerate().skip(1))
            .find_map(|(i, k)| Some((i, k.layout.read(doc, text, trie, values)?)))
    }

    /// Counts a record read by the layout at `i`, and moves that layout to the front.
    #[inline]
    fn hit(&mut self, i: usize) {
        let kept = &mut self.layouts[i];
        kept.hits = kept.hits.saturating_add(1);
        if kept.hits == GOOD_HITS {
            (self.poor, self.pause) = (0, 0);
        }
        if i > 0 {
            self.layouts.swap(0, i);
        }
        self.hits = self.hits.saturating_add(1);
        self.read += 1;
    }

    /// [`scan_document`](super::scan_document) of `doc` (its UTF-8 validated here), trying the
    /// learnt layouts first.
    pub fn scan_document<'a>(
        &mut self,
        doc: &'a [u8],
        trie: &PathTrie,
        values: &mut Vec<Extracted<'a>>,
    ) -> Result<ScanSummary, ScanError> {
        self.scan(doc, simdutf8::basic::from_utf8(doc).ok(), trie, values)
    }

    /// Records read by a layout, and records scanned, in all.
    pub fn counts(&self) -> (u64, u64) {
        (self.read, self.records)
    }

    /// After a miss (or with no layout yet): judges the layouts and learns the layout of `doc`
    /// (valid JSON, with `whitespace` bytes outside strings) where the judgement allows
    /// ([`Shapes`]), or pauses after [`POOR_IN_A_ROW`] poor judgements.
    fn relearn(&mut self, doc: &[u8], text: &str, trie: &PathTrie, whitespace: usize) {
        let mut poor = false;
        if !self.layouts.is_empty() {
            if self.misses < MISSES_BEFORE_JUDGING {
                return;
            }
            if self.layouts.len() == MAX_LAYOUTS {
                poor = self.misses > self.hits;
                if poor && self.poor_one() {
                    return;
                }
                let (i, least) = (self.layouts.iter().enumerate())
                    .map(|(i, k)| (i, k.hits))
                    .min_by_key(|&(_, hits)| hits)
                    .expect("a full set of layouts");
                if !poor && least > 0 {
                    return;
                }
                self.layouts.swap_remove(i);
            }
        }
        (self.hits, self.misses) = (0, 0);
        match Layout::learn(doc, text, trie, whitespace) {
            Some(layout) => self.layouts.push(Kept { layout, hits: 0 }),
            // No layout to learn from this record (a property repeated, an escaped name on
            // the way to a key path): as poor as layouts that miss when nothing else reads
            // records, or records of that kind would pay a learning pass each.
            None if poor || self.layouts.is_empty() => {
                self.poor_one();
            }
            None => {}
        }
    }

    /// Counts a poor judgement; after [`POOR_IN_A_ROW`], drops every layout and pauses
    /// (returns `true`).
    fn poor_one(&mut self) -> bool {
        self.poor += 1;
        if self.poor < POOR_IN_A_ROW {
            return false;
        }
        self.pause = (self.pause * 2).clamp(FIRST_PAUSE, MAX_PAUSE);
        self.paused = self.pause;
        self.poor = 0;
        self.layouts.clear();
        (self.hits, self.misses) = (0, 0);
        true
    }
}

impl Layout {
    /// The layout of `doc` (valid JSON, `text` as text, already read by [`scan_validated`]
    /// with `trie`, which counted `whitespace` bytes outside its strings), or `None` when a
    /// trie node is visited twice, a name on the way to a key path has an escape, or the trie
    /// holds no path.
    fn learn(doc: &[u8], text: &str, trie: &PathTrie, whitespace: usize) -> Option<Layout> {
        if trie.nodes[0].children.is_empty() {
            return None;
        }
        let mut l = Learner {
            s: Scanner {
                buf: doc,
                text: Some(text),
                pos: 0,
                ws: 0,
                trie,
            },
            values: vec![Extracted::Missing; trie.slot_count()],
            visited: vec![false; trie.nodes.len()],
            holes: Vec::new(),
            composite: Vec::new(),
        };
        l.ws();
        l.value(Some(0), 0)?;
        let mut lits = Vec::with_capacity(doc.len());
        let mut holes = Vec::with_capacity(l.holes.len());
        let mut at = 0;
        for &(start, end, mut hole) in &l.holes {
            lits.extend_from_slice(&doc[at..start]);
            hole.lit_end = lits.len() as u32;
            holes.push(hole);
            at = end;
        }
        lits.extend_from_slice(&doc[at..]);
        Some(Layout {
            lits,
            holes,
            composite: l.composite,
            whitespace: whitespace - l.s.ws,
        })
    }

    /// `doc` read by this layout, or `None` when it does not follow it (`values` then holds
    /// anything: the caller reads the record again with [`scan_validated`], which resets them).
    // Always inline: one copy in `Shapes::scan`'s path for the front layout (a call there cost
    // a tenth of a scan of short records), one in `read_by_others`.
    #[inline(always)]
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
        for h in &self.holes {
            let lit = &self.lits[from..h.lit_end as usize];
            if !doc
                .get(s.pos..s.pos + lit.len())
                .is_some_and(|d| same_bytes(d, lit))
            {
                return None;
            }
            s.pos += lit.len();
            from = h.lit_end as usize;
            if doc.get(s.pos) == Some(&b'"') && (h.node == NONE || h.slot != NONE) {
                // A string without escapes, sliced as the scanner would (ids, names, text).
                let start = s.pos + 1;
                let end = start + string_stop(&doc[start..])?;
                if doc[end] == b'"' {
                    if h.slot != NONE {
                        values[h.slot as usize] =
                            Extracted::Str(Cow::Borrowed(text.get(start..end)?));
                    }
                    s.pos = end + 1;
                    continue;
                }
            }
            if h.node == NONE {
                // An integer no key path reads (a sequence number, a count), skipped here
                // without the scanner's routine.
                if let Some(end) = plain_integer(doc, s.pos) {
                    s.pos = end;
                    continue;
                }
            }
            let node = (h.node != NONE).then_some(h.node as usize);
            s.member(node, values, h.depth as usize).ok()?;
        }
        let last = &self.lits[from..];
        (doc.get(s.pos..).is_some_and(|d| same_bytes(d, last))).then_some(ScanSummary {
            whitespace_bytes: self.whitespace + s.ws,
        })
    }
}

/// The end of the integer at `at` (`-`, then `0` or a digit 1–9 and more digits) when nothing
/// after it continues a number (`.`, an exponent, a digit after a leading `0`); `None` for
/// anything else, which the scanner's own routine reads or refuses.
#[inline]
fn plain_integer(doc: &[u8], at: usize) -> Option<usize> {
    let i = at + usize::from(doc.get(at) == Some(&b'-'));
    let end = match doc.get(i)? {
        b'0' => i + 1,
        b'1'..=b'9' => digit_run(doc, i + 1),
        _ => return None,
    };
    (!matches!(doc.get(end), Some(b'.' | b'e' | b'E' | b'0'..=b'9'))).then_some(end)
}

/// Walks a valid record as the scanner does, noting its holes (start, end, and what to read
/// them with) and the slots of objects it descends into.
struct Learner<'d, 't> {
    /// The scanner that reads the holes (its `ws`: the whitespace inside them).
    s: Scanner<'d, 't>,
    values: Vec<Extracted<'d>>,
    visited: Vec<bool>,
    holes: Vec<(usize, usize, Hole)>,
    composite: Vec<u32>,
}

impl Learner<'_, '_> {
    fn ws(&mut self) {
        let b = self.s.buf;
        while matches!(b.get(self.s.pos), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            self.s.pos += 1;
        }
    }

    /// The value at the position, at trie node `node` and `depth` (as [`Scanner::member`]
    /// takes them): an object with key paths below is walked, anything else is a hole. `None`:
    /// no layout (a node visited twice, or a name with an escape).
    fn value(&mut self, node: Option<usize>, depth: usize) -> Option<()> {
        let trie = self.s.trie;
        if let Some(n) = node {
            if std::mem::replace(&mut self.visited[n], true) {
                return None;
            }
            if !trie.nodes[n].children.is_empty() && self.s.peek() == Some(b'{') {
                self.composite.extend(trie.nodes[n].slot);
                return self.object(n, depth + 1);
            }
        }
        let start = self.s.pos;
        self.s.member(node, &mut self.values, depth).ok()?;
        let slot = node.and_then(|n| trie.nodes[n].slot);
        let hole = Hole {
            lit_end: 0,
            node: node.map_or(NONE, |n| n as u32),
            slot: slot.unwrap_or(NONE),
            depth: depth as u32,
        };
        self.holes.push((start, self.s.pos, hole));
        Some(())
    }

    /// Past a valid string; whether it had an escape.
    fn string(&mut self) -> bool {
        let b = self.s.buf;
        let mut escaped = false;
        self.s.pos += 1;
        loop {
            match b.get(self.s.pos) {
                Some(b'"') => {
                    self.s.pos += 1;
                    return escaped;
                }
                Some(b'\\') => {
                    escaped = true;
                    self.s.pos += 2;
                }
                Some(_) => self.s.pos += 1,
                None => return escaped,
            }
        }
    }

    /// The object at the position, at `node` (which has key paths below), its members at
    /// `depth`.
    fn object(&mut self, node: usize, depth: usize) -> Option<()> {
        self.s.pos += 1;
        loop {
            self.ws();
            match self.s.peek()? {
                b'}' => {
                    self.s.pos += 1;
                    return Some(());
                }
                b',' => self.s.pos += 1,
                _ => {
                    let start = self.s.pos + 1;
                    if self.string() {
                        return None;
                    }
                    let name = &self.s.buf[start..self.s.pos - 1];
                    let child = self.s.trie.child(node, name);
                    self.ws();
                    self.s.pos += 1; // ':'
                    self.ws();
                    self.value(child, depth)?;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
