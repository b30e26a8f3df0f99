//! Deterministic generators for the high-cardinality benchmarks (issue #9). std only.
//!
//! ```text
//! cargo run --release --example gen_highcard -- --shape highcard --out bench-data/highcard.jsonl
//! cargo run --release --example gen_highcard -- --shape unique-id --out bench-data/unique.jsonl
//! ```
//!
//! `highcard` (default 2,000,000 lines, ~500 bytes each, ~1 GB): `tenantId` Zipf(s = 1.1) over
//! 5,000 tenants, `userId` uniform over 200,000 users independent of the tenant (so
//! `/tenantId>/userId` has ~1.8 M distinct keys), `device.type` one of 4.
//! `unique-id` (default 10,000,000 lines, ~55 bytes each): a unique `id` per line (a bijective
//! mix of the line number), plus a small number.
//! Same `--shape`, `--docs` and `--seed` give identical bytes. All strings are ASCII, no escapes.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

const TENANTS: usize = 5_000;
const USERS: u64 = 200_000;
const DEVICE_TYPES: [&str; 4] = ["phone", "tablet", "desktop", "tv"];

/// splitmix64's finalizer: a bijection on u64, so distinct inputs give distinct outputs.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(1);
        mix(self.0)
    }
    fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() >> 32) * n) >> 32
    }
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

fn zipf_cdf(n: usize, s: f64) -> Vec<f64> {
    let mut acc = 0.0;
    let mut cdf: Vec<f64> = (1..=n)
        .map(|k| {
            acc += 1.0 / (k as f64).powf(s);
            acc
        })
        .collect();
    cdf.iter_mut().for_each(|c| *c /= acc);
    cdf
}

fn push_hex(buf: &mut Vec<u8>, v: u64, digits: u32) {
    for i in (0..digits).rev() {
        buf.push(b"0123456789abcdef"[((v >> (i * 4)) & 0xF) as usize]);
    }
}

/// A UUID-shaped id: 128 bits, the first 64 a bijection of `n`, so ids never repeat.
fn push_id(buf: &mut Vec<u8>, n: u64, seed: u64) {
    let a = mix(n ^ seed.rotate_left(32));
    let b = mix(a ^ seed);
    push_hex(buf, a >> 32, 8);
    buf.push(b'-');
    push_hex(buf, a >> 16, 4);
    buf.push(b'-');
    push_hex(buf, a, 4);
    buf.push(b'-');
    push_hex(buf, b >> 48, 4);
    buf.push(b'-');
    push_hex(buf, b, 12);
}

fn highcard(w: &mut dyn Write, docs: u64, seed: u64) -> io::Result<u64> {
    let mut rng = Rng(mix(seed));
    let cdf = zipf_cdf(TENANTS, 1.1);
    let filler: Vec<u8> = (0..1024).map(|i| b"abcdefghij klmnop"[i % 17]).collect();
    let mut line = Vec::with_capacity(1024);
    let mut written = 0;
    for n in 0..docs {
        line.clear();
        let t = cdf.partition_point(|&c| c < rng.unit()).min(TENANTS - 1) + 1;
        let u = rng.below(USERS) + 1;
        line.extend_from_slice(b"{\"id\":\"");
        push_id(&mut line, n, seed);
        write!(
            line,
            "\",\"tenantId\":\"t{t}\",\"userId\":\"u{u}\",\"device\":{{\"type\":\""
        )?;
        line.extend_from_slice(DEVICE_TYPES[rng.below(4) as usize].as_bytes());
        write!(
            line,
            "\",\"os\":\"v{}\"}},\"seq\":{n},\"text\":\"",
            rng.below(20)
        )?;
        let len = 300 + rng.below(200) as usize;
        let off = rng.below(512) as usize;
        line.extend_from_slice(&filler[off..off + len]);
        line.extend_from_slice(b"\"}\n");
        w.write_all(&line)?;
        written += line.len() as u64;
    }
    w.flush()?;
    Ok(written)
}

fn unique_id(w: &mut dyn Write, docs: u64, seed: u64) -> io::Result<u64> {
    let mut line = Vec::with_capacity(128);
    let mut written = 0;
    for n in 0..docs {
        line.clear();
        line.extend_from_slice(b"{\"id\":\"");
        push_id(&mut line, n, seed);
        writeln!(line, "\",\"n\":{}}}", n % 1000)?;
        w.write_all(&line)?;
        written += line.len() as u64;
    }
    w.flush()?;
    Ok(written)
}

fn run() -> Result<(), String> {
    let (mut shape, mut out, mut docs, mut seed) = ("highcard".to_string(), None, None, 42u64);
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut val = || it.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--shape" => shape = val()?,
            "--out" => out = Some(val()?),
            "--docs" => docs = Some(val()?.replace('_', "").parse().map_err(|_| "bad --docs")?),
            "--seed" => seed = val()?.parse().map_err(|_| "bad --seed")?,
            _ => {
                return Err(format!(
                    "unknown argument {a} (--shape highcard|unique-id, --out, --docs, --seed)"
                ))
            }
        }
    }
    let mut w: Box<dyn Write> = match &out {
        Some(p) => Box::new(BufWriter::with_capacity(
            1 << 20,
            File::create(p).map_err(|e| format!("{p}: {e}"))?,
        )),
        None => Box::new(BufWriter::with_capacity(1 << 20, io::stdout().lock())),
    };
    let res = match shape.as_str() {
        "highcard" => highcard(&mut w, docs.unwrap_or(2_000_000), seed),
        "unique-id" => unique_id(&mut w, docs.unwrap_or(10_000_000), seed),
        s => return Err(format!("unknown --shape {s} (highcard or unique-id)")),
    };
    let bytes = res.map_err(|e| e.to_string())?;
    eprintln!("gen_highcard: {shape}, {bytes} bytes");
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gen_highcard: {e}");
            ExitCode::from(2)
        }
    }
}
