//! `rust-version` in Cargo.toml is a claim: no older compiler can build pkadvisor with the
//! locked dependencies. Only stable and nightly toolchains are at hand, so the claim is checked
//! against what the locked dependencies declare: the highest `rust-version` among the packages
//! the binary builds (dev-dependencies excluded) must be ours. Clippy's `incompatible_msrv`
//! checks our own use of the standard library against it. (On this host's platform: the one
//! the tests run on.)

use std::collections::{HashMap, HashSet};
use std::process::Command;

fn version(v: &str) -> (u64, u64) {
    let mut parts = v.split('.').map(|p| p.parse::<u64>().unwrap());
    (parts.next().unwrap(), parts.next().unwrap_or(0))
}

#[test]
fn rust_version_is_the_locked_dependencies_floor() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    // The packages this host builds: a fresh machine's registry cache holds only those (a
    // build downloads no Windows-only crate), and `--offline` metadata for every platform
    // would fail on the first one missing.
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let vv = Command::new(rustc)
        .arg("-vV")
        .output()
        .expect("run rustc -vV");
    let vv = String::from_utf8(vv.stdout).unwrap();
    let host = vv
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc -vV names the host");
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .args(["--filter-platform", host])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let m: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let packages: HashMap<&str, &serde_json::Value> = m["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p))
        .collect();
    let nodes: HashMap<&str, &serde_json::Value> = m["resolve"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["id"].as_str().unwrap(), n))
        .collect();
    let root = m["resolve"]["root"].as_str().unwrap();
    let (mut seen, mut stack) = (HashSet::new(), vec![root]);
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        for d in nodes[id]["deps"].as_array().unwrap() {
            let dev_only = d["dep_kinds"]
                .as_array()
                .unwrap()
                .iter()
                .all(|k| k["kind"] == "dev");
            if !(id == root && dev_only) {
                stack.push(d["pkg"].as_str().unwrap());
            }
        }
    }
    let (floor, by) = seen
        .iter()
        .filter(|id| **id != root)
        .filter_map(|id| {
            let p = packages[id];
            let rv = p["rust_version"].as_str()?;
            Some((version(rv), format!("{} {}", p["name"], p["version"])))
        })
        .max()
        .unwrap();
    let ours = version(packages[root]["rust_version"].as_str().unwrap());
    assert_eq!(
        ours, floor,
        "Cargo.toml says rust-version {ours:?}, but {by} needs {floor:?}: set it to that"
    );
}
