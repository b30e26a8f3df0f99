//! `pkadvisor completions`, `pkadvisor man` and `--version`: generated from the parser, so they
//! offer exactly its subcommands and flags.

use std::process::Command;

use crate::util::Test;

fn run(args: &[&str]) -> (i32, String, String) {
    let o = Test::new().args(args).output();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn completions_offer_the_subcommands_and_their_flags() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let (status, out, err) = run(&["completions", shell]);
        assert_eq!(status, 0, "{shell}: {err}");
        for word in [
            "analyze",
            "check",
            "report",
            "epk",
            "--candidates",
            "--hash-version",
        ] {
            assert!(out.contains(word), "{shell} completions lack {word}");
        }
    }
    let (status, _, err) = run(&["completions", "tcsh"]);
    assert_eq!(status, 2);
    assert!(err.contains("invalid value 'tcsh'"), "{err}");
}

#[test]
fn man_page_is_roff_with_the_subcommands() {
    let (status, out, err) = run(&["man"]);
    assert_eq!(status, 0, "{err}");
    assert!(out.contains(".TH pkadvisor 1"), "{out}");
    assert!(out.contains(&format!("pkadvisor {}", env!("CARGO_PKG_VERSION"))));
    for sub in ["analyze", "check", "report", "epk", "completions"] {
        assert!(
            out.contains(&format!("pkadvisor\\-{sub}(1)")),
            "man page lacks {sub}"
        );
    }
    // clap's `help` subcommand has no page, so the top page does not name one.
    assert!(!out.contains("pkadvisor\\-help"), "{out}");
}

/// The `pkadvisor\-NAME(1)` pages a page names.
fn named_pages(roff: &str) -> Vec<String> {
    roff.lines()
        .filter_map(|l| l.strip_prefix("pkadvisor\\-")?.strip_suffix("(1)"))
        .map(|name| format!("pkadvisor-{name}.1"))
        .collect()
}

#[test]
fn every_page_the_man_page_names_exists() {
    // The top page listed pkadvisor-analyze(1)… and no such page existed.
    let dir = tempfile::tempdir().unwrap();
    let (status, out, err) = run(&["man", "--dir", dir.path().to_str().unwrap()]);
    assert_eq!((status, out.as_str(), err.as_str()), (0, "", ""));
    let mut written: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    let top = std::fs::read_to_string(dir.path().join("pkadvisor.1")).unwrap();
    assert_eq!(top, run(&["man"]).1, "--dir writes what `man` prints");
    let mut named = named_pages(&top);
    assert_eq!(named.len(), 9, "{named:?}");
    named.push("pkadvisor.1".into());
    named.sort();
    assert_eq!(written, named);
    let check = std::fs::read_to_string(dir.path().join("pkadvisor-check.1")).unwrap();
    assert!(check.contains("\n.TH pkadvisor-check 1 "), "{check}");
    assert!(
        check.contains("\\-\\-from\\-iac"),
        "check's page has its flags"
    );
    assert_eq!(check, run(&["man", "check"]).1, "one page printed alone");
    let (status, _, err) = run(&["man", "help"]);
    assert_eq!(status, 2);
    assert!(err.contains("invalid value 'help'"), "{err}");
}

#[test]
fn version_is_the_programs_everywhere() {
    let want = env!("CARGO_PKG_VERSION");
    let (status, out, _) = run(&["--version"]);
    assert_eq!(
        (status, out.trim()),
        (0, format!("pkadvisor {want}").as_str())
    );
    // `epk --version` once meant the hash version; now it is the program's.
    let (status, out, _) = run(&["epk", "--version"]);
    assert_eq!(
        (status, out.trim()),
        (0, format!("pkadvisor-epk {want}").as_str())
    );
    let (status, out, err) = run(&["epk", "--hash-version", "1", "\"redmond\""]);
    assert_eq!(status, 0, "{err}");
    let (_, v2, _) = run(&["epk", "--hash-version", "2", "\"redmond\""]);
    assert_ne!(out, v2, "the hash version changes the EPK");
}

#[test]
fn a_closed_pipe_ends_quietly_with_0() {
    use std::process::Stdio;
    for args in [
        &["epk", "--ranges", "100000"][..],
        &["completions", "bash"][..],
        &["man"][..],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pkadvisor"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("runs");
        drop(child.stdout.take());
        let o = child.wait_with_output().expect("ends");
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&o.stderr), "", "{args:?}");
    }
}
