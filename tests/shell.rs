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
            out.contains(&format!("pkadvisor\\-{sub}")),
            "man page lacks {sub}"
        );
    }
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
