//! Deterministic generators for the high-cardinality benchmarks (issue #9). std only.
//!
//! ```text
//! cargo run --release --example gen_highcard -- --shape highcard --out bench-data/highcard.jsonl
//! cargo run --release --example gen_highcard -- --shape unique-id --out bench-data/unique.jsonl
//! cargo run --release --example gen_highcard -- --shape prefixed --order clustered --out p.jsonl
//! ```
//!
//! `highcard` (default 2,000,000 lines, ~500 bytes each, ~1 GB): `tenantId` Zipf(s = 1.1) over
//! 5,000 tenants, `userId` uniform over 200,000 users independent of the tenant (so
//! `/tenantId>/userId` has ~1.8 M distinct keys), `device.type` one of 4.
//! `unique-id` (default 10,000,000 lines, ~55 bytes each): a unique `id` per line (a bijective
//! mix of the line number), plus a small number.
//! `unique-id50` (default 10,000,000 lines, ~68 bytes each): the same ids with a key of 50
//! values beside them, `"k":"v07"`, and the line number in full (issue #28's own file: 10 M
//! UUIDs plus a 50-value key, 677 MB).
//! `prefixed` (default 2,000,000 lines, ~560 bytes each): the `highcard` population with long
//! shared prefixes (issue #28): `tenantId` `tenant-00000032`, `userId` `user-000123456`, a
//! `url` `https://api.example.com/v1/tenants/tenant-00000032/users/user-000123456/items/N`
//! (10 items per user), and a nested `ctx.org.unit.id` (`unit-00000032-N`, 8 units per tenant)
//! beside `device.type` and `device.os`: keys whose first 16 encoded bytes are shared by every
//! key of a tenant.
//! `kinds` (default 5,000,000 lines, ~210 bytes on average, ~1 GB): the `highcard` population's
//! tenants and users in four kinds of document in turn (line `n % 4`: an order with 1–3 line
//! items, a customer with an address, a payment whose `type` comes before its `id`, an event
//! with a device and some free text), each kind its own properties in its own order, as a
//! container holding several entity types stores them; every kind has `id`, `type`,
//! `tenantId` and `userId`.
//! `--order clustered` (`highcard` and `prefixed`) writes the same lines sorted by tenant, then
//! user (the default, `shuffled`, is the order drawn: every line a random tenant and user).
//! Same `--shape`, `--order`, `--docs` and `--seed` give identical bytes. All strings are ASCII,
//! no escapes.

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

/// One drawn line of the `highcard` and `prefixed` shapes: its tenant and user, and the rest
/// drawn with it (so the clustered order writes the same lines).
#[derive(Clone, Copy)]
struct Draw {
    tenant: u32,
    user: u32,
    n: u64,
    device: u8,
    os: u8,
    extra: u16,
    len: u16,
    off: u16,
}

fn draws(docs: u64, seed: u64) -> impl Iterator<Item = Draw> {
    let mut rng = Rng(mix(seed));
    let cdf = zipf_cdf(TENANTS, 1.1);
    (0..docs).map(move |n| {
        let tenant = (cdf.partition_point(|&c| c < rng.unit()).min(TENANTS - 1) + 1) as u32;
        let user = (rng.below(USERS) + 1) as u32;
        let device = rng.below(4) as u8;
        let os = rng.below(20) as u8;
        let len = 300 + rng.below(200) as u16;
        let off = rng.below(512) as u16;
        // Drawn after the `highcard` fields, so that shape's bytes are unchanged.
        let extra = (mix(n ^ seed) >> 48) as u16;
        Draw {
            tenant,
            user,
            n,
            device,
            os,
            extra,
            len,
            off,
        }
    })
}

fn write_line(
    line: &mut Vec<u8>,
    d: &Draw,
    seed: u64,
    prefixed: bool,
    filler: &[u8],
) -> io::Result<()> {
    line.clear();
    line.extend_from_slice(b"{\"id\":\"");
    push_id(line, d.n, seed);
    let (t, u) = (d.tenant, d.user);
    if prefixed {
        write!(
            line,
            "\",\"tenantId\":\"tenant-{t:08}\",\"userId\":\"user-{u:09}\",\
             \"url\":\"https://api.example.com/v1/tenants/tenant-{t:08}/users/user-{u:09}/items/{}\",\
             \"ctx\":{{\"org\":{{\"unit\":{{\"id\":\"unit-{t:08}-{}\"}}}}}},\"device\":{{\"type\":\"",
            d.extra % 10,
            d.extra % 8
        )?;
    } else {
        write!(
            line,
            "\",\"tenantId\":\"t{t}\",\"userId\":\"u{u}\",\"device\":{{\"type\":\""
        )?;
    }
    line.extend_from_slice(DEVICE_TYPES[d.device as usize].as_bytes());
    write!(
        line,
        "\",\"os\":\"v{}\"}},\"seq\":{},\"text\":\"",
        d.os, d.n
    )?;
    let (off, len) = (d.off as usize, d.len as usize);
    line.extend_from_slice(&filler[off..off + len]);
    line.extend_from_slice(b"\"}\n");
    Ok(())
}

fn highcard(
    w: &mut dyn Write,
    docs: u64,
    seed: u64,
    prefixed: bool,
    clustered: bool,
) -> io::Result<u64> {
    let filler: Vec<u8> = (0..1024).map(|i| b"abcdefghij klmnop"[i % 17]).collect();
    let mut line = Vec::with_capacity(1024);
    let mut written = 0;
    let mut emit = |d: &Draw| -> io::Result<()> {
        write_line(&mut line, d, seed, prefixed, &filler)?;
        w.write_all(&line)?;
        written += line.len() as u64;
        Ok(())
    };
    if clustered {
        let mut all: Vec<Draw> = draws(docs, seed).collect();
        all.sort_by_key(|d| (d.tenant, d.user, d.n));
        all.iter().try_for_each(&mut emit)?;
    } else {
        draws(docs, seed).try_for_each(|d| emit(&d))?;
    }
    w.flush()?;
    Ok(written)
}

/// One line of the `kinds` shape: line `n % 4` picks the kind of document (an order, a
/// customer, a payment, an event), each with its own properties in its own order, as a
/// container holding several entity types stores them.
fn write_kind(line: &mut Vec<u8>, d: &Draw, seed: u64, filler: &[u8]) -> io::Result<()> {
    line.clear();
    let (t, u, n, x) = (d.tenant, d.user, d.n, d.extra);
    let id = |line: &mut Vec<u8>| {
        line.extend_from_slice(b"\"id\":\"");
        push_id(line, n, seed);
        line.push(b'"');
    };
    match n % 4 {
        0 => {
            line.push(b'{');
            id(line);
            write!(
                line,
                ",\"type\":\"order\",\"tenantId\":\"t{t}\",\"userId\":\"u{u}\",\"total\":{}.{:02},\"status\":\"{}\",\"lines\":[",
                x % 1000,
                x % 100,
                ["placed", "shipped", "delivered"][x as usize % 3]
            )?;
            for i in 0..1 + x % 3 {
                let sep = if i > 0 { "," } else { "" };
                write!(
                    line,
                    "{sep}{{\"sku\":\"sku-{}\",\"qty\":{}}}",
                    (x + i) % 500,
                    1 + i
                )?;
            }
            line.extend_from_slice(b"]}\n");
        }
        1 => {
            line.push(b'{');
            id(line);
            writeln!(
                line,
                ",\"type\":\"customer\",\"tenantId\":\"t{t}\",\"userId\":\"u{u}\",\"name\":\"Customer {u}\",\"email\":\"u{u}@example.com\",\"address\":{{\"city\":\"city-{}\",\"country\":\"{}\"}}}}",
                x % 300,
                ["US", "DE", "FR", "JP", "BR"][x as usize % 5]
            )?;
        }
        2 => {
            write!(line, "{{\"type\":\"payment\",")?;
            id(line);
            writeln!(
                line,
                ",\"tenantId\":\"t{t}\",\"orderId\":\"o-{}\",\"userId\":\"u{u}\",\"amount\":{},\"method\":\"{}\"}}",
                n.saturating_sub(2),
                x % 5000,
                ["card", "transfer", "wallet"][x as usize % 3]
            )?;
        }
        _ => {
            line.push(b'{');
            id(line);
            write!(
                line,
                ",\"type\":\"event\",\"tenantId\":\"t{t}\",\"userId\":\"u{u}\",\"device\":{{\"type\":\"{}\",\"os\":\"v{}\"}},\"at\":\"2026-11-{:02}T{:02}:{:02}:00Z\",\"text\":\"",
                DEVICE_TYPES[d.device as usize],
                d.os,
                1 + x % 28,
                x % 24,
                x % 60
            )?;
            // A quarter of the `highcard` shape's free text.
            let (off, len) = (d.off as usize, d.len as usize / 4);
            line.extend_from_slice(&filler[off..off + len]);
            line.extend_from_slice(b"\"}\n");
        }
    }
    Ok(())
}

fn kinds(w: &mut dyn Write, docs: u64, seed: u64) -> io::Result<u64> {
    let filler: Vec<u8> = (0..1024).map(|i| b"abcdefghij klmnop"[i % 17]).collect();
    let mut line = Vec::with_capacity(1024);
    let mut written = 0;
    for d in draws(docs, seed) {
        write_kind(&mut line, &d, seed, &filler)?;
        w.write_all(&line)?;
        written += line.len() as u64;
    }
    w.flush()?;
    Ok(written)
}

fn unique_id(w: &mut dyn Write, docs: u64, seed: u64, key50: bool) -> io::Result<u64> {
    let mut line = Vec::with_capacity(128);
    let mut written = 0;
    for n in 0..docs {
        line.clear();
        line.extend_from_slice(b"{\"id\":\"");
        push_id(&mut line, n, seed);
        if key50 {
            // The line number in full, as the issue's file had it (its 677 MB).
            let k = (n ^ seed).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32;
            writeln!(line, "\",\"k\":\"v{:02}\",\"n\":{n}}}", k % 50)?;
        } else {
            writeln!(line, "\",\"n\":{}}}", n % 1000)?;
        }
        w.write_all(&line)?;
        written += line.len() as u64;
    }
    w.flush()?;
    Ok(written)
}

fn run() -> Result<(), String> {
    let (mut shape, mut out, mut docs, mut seed) = ("highcard".to_string(), None, None, 42u64);
    let mut clustered = false;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut val = || it.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--shape" => shape = val()?,
            "--out" => out = Some(val()?),
            "--docs" => docs = Some(val()?.replace('_', "").parse().map_err(|_| "bad --docs")?),
            "--seed" => seed = val()?.parse().map_err(|_| "bad --seed")?,
            "--order" => {
                clustered = match val()?.as_str() {
                    "clustered" => true,
                    "shuffled" => false,
                    o => return Err(format!("unknown --order {o} (shuffled or clustered)")),
                }
            }
            _ => {
                return Err(format!(
                    "unknown argument {a} (--shape highcard|prefixed|unique-id|unique-id50|kinds, --order shuffled|clustered, --out, --docs, --seed)"
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
        "highcard" => highcard(&mut w, docs.unwrap_or(2_000_000), seed, false, clustered),
        "prefixed" => highcard(&mut w, docs.unwrap_or(2_000_000), seed, true, clustered),
        "unique-id" => unique_id(&mut w, docs.unwrap_or(10_000_000), seed, false),
        "unique-id50" => unique_id(&mut w, docs.unwrap_or(10_000_000), seed, true),
        "kinds" => kinds(&mut w, docs.unwrap_or(5_000_000), seed),
        s => {
            return Err(format!(
                "unknown --shape {s} (highcard, prefixed, unique-id, unique-id50 or kinds)"
            ))
        }
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
