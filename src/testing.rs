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

/// A small generator of JSON records: objects, arrays, strings with and without escapes,
/// numbers of every form, literals, and whitespace between tokens.
pub struct JsonGen(pub XorShift);

impl JsonGen {
    /// The next number of the generator's sequence.
    pub fn next(&mut self) -> u64 {
        self.0.next()
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.next() as usize % from.len()]
    }

    fn ws(&mut self, out: &mut String) {
        out.push_str(self.pick(&["", "", "", " ", "\t", "\n ", "\r\n"]));
    }

    /// Appends one value of at most `4 - depth` levels of nesting to `out`.
    pub fn value(&mut self, out: &mut String, depth: usize) {
        self.ws(out);
        match self.next() % 8 {
            0 | 1 if depth < 4 => {
                out.push('{');
                for i in 0..self.next() % 5 {
                    if i > 0 {
                        out.push(',');
                    }
                    self.ws(out);
                    out.push_str(self.pick(&[r#""a""#, r#""b""#, r#""id""#, r#""é""#, r#""a\n""#]));
                    self.ws(out);
                    out.push(':');
                    self.value(out, depth + 1);
                }
                self.ws(out);
                out.push('}');
            }
            2 if depth < 4 => {
                out.push('[');
                for i in 0..self.next() % 4 {
                    if i > 0 {
                        out.push(',');
                    }
                    self.value(out, depth + 1);
                }
                out.push(']');
            }
            3 => out.push_str(self.pick(&[
                r#""plain""#,
                r#""""#,
                r#""with \"quote\" and \\""#,
                r#""\u00e9\ud83d\ude00""#,
                r#""tenant-0000000000000000000000000000000000000000000000000000000000000001""#,
            ])),
            4 | 5 => out.push_str(self.pick(&[
                "0",
                "-0",
                "7",
                "-12",
                "1.25",
                "1e5",
                "-2.5E-3",
                "18446744073709551615",
                "18446744073709551616",
                "99999999999999999999999",
                "0.30000000000000004",
            ])),
            _ => out.push_str(self.pick(&["true", "false", "null"])),
        }
        self.ws(out);
    }

    /// `n` generated texts, each handed to `f` with `false`, then (when not empty) a one-byte
    /// mutant of it ([`JsonGen::mutate`]) handed with `true`.
    pub fn texts_and_mutants(&mut self, n: usize, mut f: impl FnMut(&[u8], bool)) {
        for _ in 0..n {
            let mut text = String::new();
            self.value(&mut text, 0);
            let mut bytes = text.into_bytes();
            f(&bytes, false);
            if !bytes.is_empty() {
                self.mutate(&mut bytes);
                f(&bytes, true);
            }
        }
    }

    /// One byte of non-empty `bytes` replaced, dropped or doubled: mostly invalid JSON, some
    /// still valid.
    pub fn mutate(&mut self, bytes: &mut Vec<u8>) {
        let at = self.next() as usize % bytes.len();
        match self.next() % 3 {
            0 => {
                let from = b"{}[]\",:\\0e-. x\x01";
                bytes[at] = from[self.next() as usize % from.len()];
            }
            1 => {
                bytes.remove(at);
            }
            _ => bytes.insert(at, bytes[at]),
        }
    }
}
