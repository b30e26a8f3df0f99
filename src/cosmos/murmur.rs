//! MurmurHash3, hand-written (epk.md §2).
//!
//! Cosmos DB hashes partition keys with MurmurHash3 using seed 0 and little-endian block loads:
//! V1 containers use the 32-bit x86 variant, V2 and MultiHash containers the 128-bit x64 variant.
//! Third-party crates differ in seed width and in the order of the returned halves, so both are
//! written here and checked against the SDKs' conformance vectors.

/// MurmurHash3_x86_32 of `data` with the given `seed`.
pub fn murmur3_x86_32(data: &[u8], seed: u32) -> u32 {
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;

    let mut h1 = seed;
    let mut blocks = data.chunks_exact(4);
    for block in &mut blocks {
        let mut k1 = u32::from_le_bytes([block[0], block[1], block[2], block[3]]);
        k1 = k1.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
        h1 ^= k1;
        h1 = h1.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    }

    let tail = blocks.remainder();
    if !tail.is_empty() {
        let mut k1 = 0u32;
        for (i, &b) in tail.iter().enumerate() {
            k1 ^= u32::from(b) << (8 * i);
        }
        k1 = k1.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
        h1 ^= k1;
    }

    // The length is mixed in modulo 2^32, as in the reference implementation.
    h1 ^= data.len() as u32;
    fmix32(h1)
}

/// MurmurHash3_x64_128 of `data` with the given `seed`, returned as `(h1, h2)`.
///
/// Both halves start from `seed` (the reference takes a 32-bit seed; Cosmos DB always uses 0).
pub fn murmur3_x64_128(data: &[u8], seed: u64) -> (u64, u64) {
    const C1: u64 = 0x87c3_7b91_1142_53d5;
    const C2: u64 = 0x4cf5_ad43_2745_937f;

    let mut h1 = seed;
    let mut h2 = seed;
    let mut blocks = data.chunks_exact(16);
    for block in &mut blocks {
        let mut k1 = le_u64(&block[..8]);
        let mut k2 = le_u64(&block[8..]);

        k1 = k1.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2);
        h1 ^= k1;
        h1 = h1
            .rotate_left(27)
            .wrapping_add(h2)
            .wrapping_mul(5)
            .wrapping_add(0x52dc_e729);

        k2 = k2.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1);
        h2 ^= k2;
        h2 = h2
            .rotate_left(31)
            .wrapping_add(h1)
            .wrapping_mul(5)
            .wrapping_add(0x3849_5ab5);
    }

    let tail = blocks.remainder();
    if tail.len() > 8 {
        let k2 = le_u64(&tail[8..]);
        h2 ^= k2.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1);
    }
    if !tail.is_empty() {
        let k1 = le_u64(&tail[..tail.len().min(8)]);
        h1 ^= k1.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2);
    }

    let len = data.len() as u64;
    h1 ^= len;
    h2 ^= len;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    (h1, h2)
}

/// Little-endian load of up to 8 bytes (missing high bytes are zero).
fn le_u64(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .enumerate()
        .fold(0u64, |acc, (i, &b)| acc | (u64::from(b) << (8 * i)))
}

fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h
}

fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^= k >> 33;
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x86_32_self_tests() {
        assert_eq!(murmur3_x86_32(b"hello", 0), 613_153_351);
        assert_eq!(murmur3_x86_32(b"afdgdd", 0), 1_099_701_186);
        assert_eq!(murmur3_x86_32(b"", 0), 0);
    }

    #[test]
    fn x64_128_self_test() {
        assert_eq!(
            murmur3_x64_128(b"sample-test", 0),
            (9_863_137_013_172_825_203, 15_859_947_107_521_786_564)
        );
        assert_eq!(murmur3_x64_128(b"", 0), (0, 0));
    }

    #[test]
    fn x64_128_all_tail_lengths_are_distinct() {
        let data: Vec<u8> = (0u8..40).collect();
        let hashes: std::collections::HashSet<_> = (0..=data.len())
            .map(|n| murmur3_x64_128(&data[..n], 0))
            .collect();
        assert_eq!(hashes.len(), data.len() + 1);
    }
}
