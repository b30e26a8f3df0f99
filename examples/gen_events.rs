//! Deterministic synthetic event generator for the pkadvisor benchmarks.
//!
//! std only (no dependencies). Writes JSON Lines to stdout or `--out FILE`:
//!
//! ```text
//! cargo run --release --example gen_events -- --bytes 1000000000 --seed 42 --out bench-data/events-1g.jsonl
//! ```
//!
//! Options:
//!   --out FILE    write to FILE instead of stdout
//!   --bytes N     approximate output size in bytes (default 1_000_000_000);
//!                 generation stops after the first line that reaches N
//!   --seed S      PRNG seed (default 42); same seed + bytes => identical output
//!
//! One line per document, ~350-700 bytes, e.g.
//! {"id":"…","tenantId":"t123","userId":"t123-u45","sessionId":"…",
//!  "ts":"2024-03-05T14:22:10Z","type":"click",
//!  "device":{"region":"westeurope","os":"ios"},
//!  "payload":{"page":"/a/b","durationMs":1234,"tags":["x","y"]},
//!  "amount":12.5,"text":"…"}
//!
//! Distributions: tenants Zipf(s=1.1) over 10,000 tenants; users Zipf(s=1.0)
//! within a tenant (a tenant of rank r has ~max(3, 50000/r^0.8) users);
//! sessions are 30-minute buckets per user; timestamps increase with the line
//! number over ~30 days (+-2 min jitter, never before 2024-03-01). All strings are ASCII without escapes.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

const N_TENANTS: usize = 10_000;
const TENANT_S: f64 = 1.1;
const MAX_USERS: usize = 50_000;
const USER_S: f64 = 1.0;
const START_EPOCH: i64 = 1_709_251_200; // 2024-03-01T00:00:00Z
const SPAN_SECS: i64 = 30 * 24 * 3600;
const AVG_LINE: u64 = 517;

const TYPES: [&str; 5] = ["click", "view", "purchase", "login", "logout"];
const TYPE_CDF: [u32; 5] = [40, 75, 83, 93, 100];
const REGIONS: [&str; 12] = [
    "westeurope",
    "northeurope",
    "eastus",
    "eastus2",
    "westus2",
    "centralus",
    "southeastasia",
    "japaneast",
    "australiaeast",
    "uksouth",
    "francecentral",
    "brazilsouth",
];
const OSES: [&str; 5] = ["ios", "android", "windows", "macos", "linux"];
const PAGE_SEGS: [&str; 12] = [
    "home", "cart", "checkout", "search", "product", "account", "help", "orders", "settings",
    "deals", "blog", "api",
];
const TAGS: [&str; 10] = [
    "new",
    "returning",
    "promo",
    "mobile",
    "beta",
    "ab-test",
    "vip",
    "trial",
    "bot",
    "organic",
];
const WORDS: [&str; 32] = [
    "lorem",
    "ipsum",
    "dolor",
    "sit",
    "amet",
    "consectetur",
    "adipiscing",
    "elit",
    "sed",
    "do",
    "eiusmod",
    "tempor",
    "incididunt",
    "ut",
    "labore",
    "et",
    "dolore",
    "magna",
    "aliqua",
    "enim",
    "ad",
    "minim",
    "veniam",
    "quis",
    "nostrud",
    "exercitation",
    "ullamco",
    "laboris",
    "nisi",
    "aliquip",
    "ex",
    "commodo",
];

/// splitmix64: seeds the main generator.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// xorshift64* PRNG.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        let mut s = seed;
        let mut x = splitmix64(&mut s);
        if x == 0 {
            x = 0x2545_F491_4F6C_DD1D;
        }
        Rng(x)
    }
    #[inline]
    fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [0, n).
    #[inline]
    fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() >> 32) * n) >> 32
    }
    /// Uniform f64 in [0, 1).
    #[inline]
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// Zipf sampler: precomputed CDF + binary search. Returns a 0-based rank.
struct Zipf {
    cdf: Vec<f64>,
}

impl Zipf {
    fn new(n: usize, s: f64) -> Self {
        let mut cdf = Vec::with_capacity(n);
        let mut acc = 0.0;
        for k in 1..=n {
            acc += 1.0 / (k as f64).powf(s);
            cdf.push(acc);
        }
        for c in cdf.iter_mut() {
            *c /= acc;
        }
        Zipf { cdf }
    }
    #[inline]
    fn sample(&self, rng: &mut Rng) -> usize {
        let u = rng.unit();
        self.cdf.partition_point(|&c| c < u).min(self.cdf.len() - 1)
    }
}

#[inline]
fn push_u64(buf: &mut Vec<u8>, mut v: u64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    buf.extend_from_slice(&tmp[i..]);
}

#[inline]
fn push_2(buf: &mut Vec<u8>, v: u32) {
    buf.push(b'0' + (v / 10) as u8);
    buf.push(b'0' + (v % 10) as u8);
}

const HEX: &[u8; 16] = b"0123456789abcdef";

#[inline]
fn push_hex(buf: &mut Vec<u8>, v: u64, digits: u32) {
    for i in (0..digits).rev() {
        buf.push(HEX[((v >> (i * 4)) & 0xF) as usize]);
    }
}

/// Days since 1970-01-01 -> (year, month, day). (H. Hinnant's civil_from_days.)
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn push_ts(buf: &mut Vec<u8>, epoch: i64) {
    let days = epoch.div_euclid(86_400);
    let secs = epoch.rem_euclid(86_400) as u32;
    let (y, m, d) = civil_from_days(days);
    push_u64(buf, y as u64);
    buf.push(b'-');
    push_2(buf, m);
    buf.push(b'-');
    push_2(buf, d);
    buf.push(b'T');
    push_2(buf, secs / 3600);
    buf.push(b':');
    push_2(buf, secs / 60 % 60);
    buf.push(b':');
    push_2(buf, secs % 60);
    buf.push(b'Z');
}

struct Args {
    out: Option<String>,
    bytes: u64,
    seed: u64,
}

fn parse_num(s: &str) -> Option<u64> {
    s.replace('_', "").parse().ok()
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        out: None,
        bytes: 1_000_000_000,
        seed: 42,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let val = |it: &mut std::iter::Skip<std::env::Args>| {
            inline
                .clone()
                .or_else(|| it.next())
                .ok_or(format!("{name} needs a value"))
        };
        match name.as_str() {
            "--out" | "-o" => a.out = Some(val(&mut it)?),
            "--bytes" => a.bytes = parse_num(&val(&mut it)?).ok_or("bad --bytes")?,
            "--seed" => a.seed = parse_num(&val(&mut it)?).ok_or("bad --seed")?,
            "-h" | "--help" => {
                println!("usage: gen_events [--out FILE] [--bytes N (default 1000000000)] [--seed S (default 42)]");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument: {other}")),
        }
    }
    Ok(a)
}

fn generate(w: &mut dyn Write, target: u64, seed: u64) -> io::Result<(u64, u64)> {
    let mut rng = Rng::new(seed);
    let tenants = Zipf::new(N_TENANTS, TENANT_S);
    let users = Zipf::new(MAX_USERS, USER_S);
    // users per tenant rank (0-based): big tenants have many users
    let n_users: Vec<u64> = (0..N_TENANTS)
        .map(|r| ((MAX_USERS as f64) / ((r + 1) as f64).powf(0.8)).max(3.0) as u64)
        .collect();
    // Tenant ids are a fixed permutation of ranks so "t1" is not always the biggest.
    let mut tenant_id: Vec<u32> = (1..=N_TENANTS as u32).collect();
    let mut prng = Rng::new(seed ^ 0x5EED);
    for i in (1..tenant_id.len()).rev() {
        let j = prng.below(i as u64 + 1) as usize;
        tenant_id.swap(i, j);
    }
    // Text corpus: random words; the text field is a slice of it.
    let mut corpus = Vec::with_capacity(1 << 16);
    while corpus.len() < (1 << 16) {
        corpus.extend_from_slice(WORDS[prng.below(WORDS.len() as u64) as usize].as_bytes());
        corpus.push(b' ');
    }

    let est_lines = (target / AVG_LINE).max(1) as i64;
    let mut line: Vec<u8> = Vec::with_capacity(2048);
    let mut written: u64 = 0;
    let mut n: u64 = 0;
    while written < target {
        line.clear();
        let r = tenants.sample(&mut rng);
        let tid = tenant_id[r] as u64;
        let uid = (users.sample(&mut rng) as u64 % n_users[r]) + 1;
        let ts =
            START_EPOCH + (n as i64).saturating_mul(SPAN_SECS) / est_lines + rng.below(241) as i64
                - 120;
        let ts = ts.max(START_EPOCH);

        line.extend_from_slice(b"{\"id\":\"");
        let a = rng.next_u64();
        let b = rng.next_u64();
        push_hex(&mut line, a >> 32, 8);
        line.push(b'-');
        push_hex(&mut line, a >> 16, 4);
        line.push(b'-');
        push_hex(&mut line, a, 4);
        line.push(b'-');
        push_hex(&mut line, b >> 48, 4);
        line.push(b'-');
        push_hex(&mut line, b, 12);
        line.extend_from_slice(b"\",\"tenantId\":\"t");
        push_u64(&mut line, tid);
        line.extend_from_slice(b"\",\"userId\":\"t");
        push_u64(&mut line, tid);
        line.extend_from_slice(b"-u");
        push_u64(&mut line, uid);
        line.extend_from_slice(b"\",\"sessionId\":\"s");
        // session = 30-minute bucket per (tenant, user)
        let mut h = tid.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ uid.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
            ^ ((ts / 1800) as u64).wrapping_mul(0x1656_67B1_9E37_79F9)
            ^ seed;
        push_hex(&mut line, splitmix64(&mut h), 16);
        line.extend_from_slice(b"\",\"ts\":\"");
        push_ts(&mut line, ts);
        line.extend_from_slice(b"\",\"type\":\"");
        let t = rng.below(100) as u32;
        let ti = TYPE_CDF.iter().position(|&c| t < c).unwrap();
        line.extend_from_slice(TYPES[ti].as_bytes());
        line.extend_from_slice(b"\",\"device\":{\"region\":\"");
        // tenants have a home region; 25% of events elsewhere
        let reg = if rng.below(4) == 0 {
            rng.below(REGIONS.len() as u64)
        } else {
            tid % REGIONS.len() as u64
        };
        line.extend_from_slice(REGIONS[reg as usize].as_bytes());
        line.extend_from_slice(b"\",\"os\":\"");
        line.extend_from_slice(OSES[rng.below(OSES.len() as u64) as usize].as_bytes());
        line.extend_from_slice(b"\"},\"payload\":{\"page\":\"");
        let depth = 1 + rng.below(3);
        for _ in 0..depth {
            line.push(b'/');
            line.extend_from_slice(
                PAGE_SEGS[rng.below(PAGE_SEGS.len() as u64) as usize].as_bytes(),
            );
        }
        line.extend_from_slice(b"\",\"durationMs\":");
        push_u64(&mut line, rng.below(30_000));
        line.extend_from_slice(b",\"tags\":[");
        let ntags = rng.below(4);
        for k in 0..ntags {
            if k > 0 {
                line.push(b',');
            }
            line.push(b'"');
            line.extend_from_slice(TAGS[rng.below(TAGS.len() as u64) as usize].as_bytes());
            line.push(b'"');
        }
        line.extend_from_slice(b"]},\"amount\":");
        let cents = if ti == 2 {
            rng.below(100_000)
        } else {
            rng.below(2_000)
        };
        push_u64(&mut line, cents / 100);
        if cents % 100 != 0 {
            line.push(b'.');
            let c = cents % 100;
            if c % 10 == 0 {
                line.push(b'0' + (c / 10) as u8);
            } else {
                push_2(&mut line, c as u32);
            }
        }
        line.extend_from_slice(b",\"text\":\"");
        // 72..=340 bytes of text, starting at a word boundary
        let len = 72 + rng.below(269) as usize;
        let mut off = rng.below((corpus.len() - 512) as u64) as usize;
        while corpus[off] != b' ' {
            off += 1;
        }
        let mut end = off + 1 + len;
        while corpus[end - 1] == b' ' {
            end -= 1;
        }
        line.extend_from_slice(&corpus[off + 1..end]);
        line.extend_from_slice(b"\"}\n");

        w.write_all(&line)?;
        written += line.len() as u64;
        n += 1;
    }
    w.flush()?;
    Ok((written, n))
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("gen_events: {e}");
            return ExitCode::from(2);
        }
    };
    let start = std::time::Instant::now();
    let res = match &args.out {
        Some(path) => match File::create(path) {
            Ok(f) => {
                let mut w = BufWriter::with_capacity(1 << 20, f);
                generate(&mut w, args.bytes, args.seed)
            }
            Err(e) => {
                eprintln!("gen_events: cannot create {path}: {e}");
                return ExitCode::from(1);
            }
        },
        None => {
            let stdout = io::stdout();
            let mut w = BufWriter::with_capacity(1 << 20, stdout.lock());
            generate(&mut w, args.bytes, args.seed)
        }
    };
    match res {
        Ok((bytes, lines)) => {
            let secs = start.elapsed().as_secs_f64();
            eprintln!(
                "gen_events: {lines} lines, {bytes} bytes in {secs:.2}s ({:.0} MB/s)",
                bytes as f64 / 1e6 / secs.max(1e-9)
            );
            ExitCode::SUCCESS
        }
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gen_events: {e}");
            ExitCode::from(1)
        }
    }
}
