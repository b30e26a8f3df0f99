//! Bounds on what a compressed input may decompress to: a few hundred kilobytes of zstd can
//! hold 20 GB of blank lines (each an empty record, so no record bound applies), which took
//! 210 s to read through. Past [`CHECK_FROM_BYTES`] of output, an input that has grown more than
//! [`MAX_RATIO`] times its compressed bytes read is refused, and none may pass
//! [`MAX_DECOMPRESSED_BYTES`] (docs/hardening.md).

use std::io::{self, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The most one compressed input may decompress to: 1 TiB (hours of reading at any speed).
pub const MAX_DECOMPRESSED_BYTES: u64 = 1 << 40;

/// The largest ratio of decompressed to compressed bytes accepted. JSON exports compress 5 to
/// 20 times with gzip, up to about 50 with zstd's highest levels; 1,000 leaves room for very
/// repetitive data and refuses a bomb (33,000 times) after its first [`CHECK_FROM_BYTES`].
pub const MAX_RATIO: u64 = 1_000;

/// The output below which the ratio is not judged (a small file's header and dictionary
/// would skew it).
pub const CHECK_FROM_BYTES: u64 = 64 << 20;

/// Counts the compressed bytes read into `read`.
pub struct Compressed<R> {
    /// The compressed stream.
    pub inner: R,
    /// Bytes read from it so far.
    pub read: Arc<AtomicU64>,
}

impl<R: Read> Read for Compressed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// The decompressed stream, refused once it passes the bounds.
pub struct Bounded<R> {
    /// The decompressor.
    pub inner: R,
    /// Compressed bytes read so far (shared with [`Compressed`]).
    pub compressed: Arc<AtomicU64>,
    /// Decompressed bytes given so far.
    pub out: u64,
    /// The most bytes given ([`MAX_DECOMPRESSED_BYTES`]; tests use small bounds).
    pub max_bytes: u64,
    /// The output from which the ratio is judged ([`CHECK_FROM_BYTES`]).
    pub check_from: u64,
}

impl<R> Bounded<R> {
    /// `inner` under the default bounds.
    pub fn new(inner: R, compressed: Arc<AtomicU64>) -> Self {
        Bounded {
            inner,
            compressed,
            out: 0,
            max_bytes: MAX_DECOMPRESSED_BYTES,
            check_from: CHECK_FROM_BYTES,
        }
    }
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.out += n as u64;
        let compressed = self.compressed.load(Ordering::Relaxed).max(1);
        if self.out > self.max_bytes {
            return Err(io::Error::other(format!(
                "decompresses to more than {} bytes, the most one input may: split the export into smaller files",
                self.max_bytes
            )));
        }
        if self.out > self.check_from && self.out / compressed > MAX_RATIO {
            return Err(io::Error::other(format!(
                "decompresses to more than {MAX_RATIO} times its size ({} bytes from the first {compressed} compressed): a decompression bomb, or data far more repetitive than any export; if it is genuine, decompress it and pass the file",
                self.out
            )));
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compressed(text: &[u8]) -> Vec<u8> {
        zstd::stream::encode_all(text, 19).unwrap()
    }

    fn read_all(bytes: &[u8], max_bytes: u64, check_from: u64) -> io::Result<u64> {
        let count = Arc::new(AtomicU64::new(0));
        let src = Compressed {
            inner: bytes,
            read: Arc::clone(&count),
        };
        let mut r = Bounded {
            inner: zstd::stream::read::Decoder::new(src)?,
            compressed: count,
            out: 0,
            max_bytes,
            check_from,
        };
        io::copy(&mut r, &mut io::sink())
    }

    #[test]
    fn a_bomb_is_refused_and_ordinary_json_read() {
        // 64 MiB of blank lines: zstd makes them a few kilobytes, a ratio in the thousands.
        let bomb = compressed(&vec![b'\n'; 64 << 20]);
        assert!(bomb.len() < 64 << 10, "{}", bomb.len());
        let e = read_all(&bomb, 1 << 40, 1 << 20).unwrap_err().to_string();
        assert!(e.contains("more than 1000 times its size"), "{e}");
        // Records with varied values compress far less: read whole under the same bounds.
        let text: String = (0..200_000)
            .map(|i| format!("{{\"id\":\"{i}\",\"t\":{}}}\n", i * 7919 % 100_003))
            .collect();
        let json = compressed(text.as_bytes());
        assert_eq!(
            read_all(&json, 1 << 40, 1 << 20).unwrap(),
            text.len() as u64
        );
        // And the total bound, whatever the ratio.
        let e = read_all(&json, 1 << 20, u64::MAX).unwrap_err().to_string();
        assert!(e.contains("more than 1048576 bytes"), "{e}");
    }
}
