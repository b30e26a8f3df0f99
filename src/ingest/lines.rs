//! Line numbers counted by the workers rather than by the reader.
//!
//! Numbering a block's lines as it is read means counting its newlines on the reader's thread
//! before any worker sees it: a whole extra pass over the input, which on a mapped file is also
//! the pass that faults its pages in. On the 1 GB benchmark file it was a tenth of the scan's CPU
//! (`docs/benchmarks-history.md`, "Ninth round"). A mapped file opened with
//! [`open_numbered_later`](super::open_numbered_later) therefore hands out blocks whose first
//! line is *provisional*: the block's sequence number in its file, flagged. The worker that
//! frames a block's lines counts them anyway, so it records that count ([`BlockLines`]); after
//! the scan, every block's first line is the sum of the counts before it ([`LineTable`]), and
//! each position kept during the scan (a bad record, a key error, the largest document) gets
//! its real line ([`LineTable::number`]).
//!
//! A provisional line is `FLAG | block << 32 | line within the block`: provisional lines of one
//! file order as the real ones do, so keeping "the earliest" during the scan picks the same
//! positions.

use super::Position;

/// Marks a provisional line.
const FLAG: u64 = 1 << 63;
/// Block numbers a provisional line can hold (31 bits; the reader counts past them).
pub const MAX_BLOCKS: u64 = 1 << 31;

/// The provisional first line of block `block` of a file (below [`MAX_BLOCKS`]).
pub fn provisional(block: u64) -> u64 {
    debug_assert!(block < MAX_BLOCKS);
    FLAG | block << 32
}

/// Whether `line` is provisional, and if so its block.
fn block_of(line: u64) -> Option<u64> {
    (line & FLAG != 0).then_some((line & !FLAG) >> 32)
}

/// The lines workers counted in blocks with provisional first lines: (file, block, lines).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlockLines(Vec<(u32, u64, u64)>);

impl BlockLines {
    /// Notes that the block of `file` whose first line is `first_line` holds `lines` lines
    /// (records and blank lines, a newline each except the file's last); exact first lines
    /// need no note and are passed over.
    pub fn record(&mut self, file: u32, first_line: u64, lines: u64) {
        if let Some(block) = block_of(first_line) {
            self.0.push((file, block, lines));
        }
    }

    /// Adds another worker's notes.
    pub fn merge(&mut self, mut o: BlockLines) {
        self.0.append(&mut o.0);
    }

    /// The first line of every noted block.
    pub fn table(mut self) -> LineTable {
        self.0.sort_unstable();
        let mut first = Vec::with_capacity(self.0.len());
        let mut prev: Option<(u32, u64)> = None;
        let mut line = 1;
        for (file, block, lines) in self.0 {
            if prev.map(|p| p.0) != Some(file) {
                line = 1;
            }
            // Every block a reader handed out is noted, each once, in order.
            debug_assert_eq!(
                prev.map_or(0, |(f, b)| if f == file { b + 1 } else { 0 }),
                block,
                "blocks of file {file} noted once each, in order"
            );
            first.push(((file, block), line));
            line += lines;
            prev = Some((file, block));
        }
        LineTable(first)
    }
}

/// Real first lines of blocks read with provisional ones.
#[derive(Debug, Clone, Default)]
pub struct LineTable(Vec<((u32, u64), u64)>);

impl LineTable {
    /// `pos` with its real line (unchanged when its line was exact).
    pub fn number(&self, pos: Position) -> Position {
        let Some(block) = block_of(pos.line) else {
            return pos;
        };
        let within = pos.line & 0xFFFF_FFFF;
        let first = match self.0.binary_search_by_key(&(pos.file, block), |e| e.0) {
            Ok(i) => self.0[i].1,
            // A position in a block nobody counted cannot be: each block's worker counts it.
            Err(_) => {
                debug_assert!(false, "block {block} of file {} not counted", pos.file);
                1
            }
        };
        Position {
            line: first + within,
            ..pos
        }
    }
}

/// How many lines a worker's loop over newline-separated `data` steps through: one per
/// newline, and one more for a last line without one.
pub fn lines_in(data: &[u8]) -> u64 {
    let newlines = memchr::memchr_iter(b'\n', data).count() as u64;
    newlines + u64::from(data.last().is_some_and(|&b| b != b'\n'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(file: u32, line: u64) -> Position {
        Position {
            file,
            line,
            column: 3,
        }
    }

    #[test]
    fn provisional_lines_number_by_the_counts_before_them() {
        // Two files; file 0's blocks hold 5, 7 and 2 lines, file 1's 4 and 9, noted by two
        // workers out of order.
        let mut a = BlockLines::default();
        let mut b = BlockLines::default();
        a.record(0, provisional(2), 2);
        b.record(0, provisional(0), 5);
        a.record(1, provisional(1), 9);
        b.record(0, provisional(1), 7);
        a.record(1, provisional(0), 4);
        a.record(0, 12, 100); // an exact block: no note
        a.merge(b);
        let t = a.table();
        // Block 1 of file 0 starts at line 1 + 5 = 6; its third line (index 2) is line 8.
        assert_eq!(t.number(at(0, provisional(1) + 2)), at(0, 8));
        assert_eq!(t.number(at(0, provisional(0))), at(0, 1));
        // Block 2 of file 0 starts at 1 + 5 + 7 = 13.
        assert_eq!(t.number(at(0, provisional(2) + 1)), at(0, 14));
        // File 1 counts from 1 again: block 1 starts at 5.
        assert_eq!(t.number(at(1, provisional(1))), at(1, 5));
        // Exact lines stay.
        assert_eq!(t.number(at(0, 42)), at(0, 42));
    }

    #[test]
    fn provisional_lines_order_as_real_ones() {
        // Line 3 of block 1 comes after the 70,000th line of block 0.
        assert!(provisional(1) + 3 > provisional(0) + 70_000);
        assert!(at(0, provisional(5)) < at(1, provisional(0)));
    }

    #[test]
    fn a_block_counts_its_last_line_without_a_newline() {
        assert_eq!(lines_in(b"a\nb\n"), 2);
        assert_eq!(lines_in(b"a\n\nb"), 3);
        assert_eq!(lines_in(b""), 0);
        assert_eq!(lines_in(b"\n"), 1);
    }
}
