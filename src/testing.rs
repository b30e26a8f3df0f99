//! Helpers shared by the unit tests (compiled for tests only).

/// A deterministic xorshift64 generator: no dependency, the same sequence on every machine.
/// The seed must not be 0 (it would stay 0).
pub struct XorShift(pub u64);

impl XorShift {
    /// The next number of the sequence.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}
