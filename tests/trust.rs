//! Issue 67: the files a pull request controls beyond the sample's text. A checkout holding a
//! link where an output goes, a `pkadvisor.toml` nobody named, a config reaching into `.git/`,
//! sample folders and files linked out of the checkout: none changes the gate or a file outside
//! the run's own folders, and none puts an outside file's values in the report.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::util::{root, Test};

/// A pull request's checkout: a repository (`.git/config` holding a credential) with the
/// failing sample (20 of 600 documents lack `/customerId`: exit 1 under the default policy)
/// at `orders.jsonl`.
fn checkout() -> tempfile::TempDir {
    let repo = tempfile::tempdir().unwrap();
    std::fs::create_dir(repo.path().join(".git")).unwrap();
    std::fs::write(
        repo.path().join(".git/config"),
        "[http]\n\textraheader = AUTHORIZATION: basic c2VjcmV0LXRva2Vu\n",
    )
    .unwrap();
    std::fs::copy(
        root().join("fixtures/ci/renamed.jsonl"),
        repo.path().join("orders.jsonl"),
    )
    .unwrap();
    repo
}

/// A policy that passes the failing sample.
const LAX: &str = "[policy]\nmax_undefined_share = 1.0\n";

fn check(dir: &Path) -> Test {
    Test::new()
        .current_dir(dir)
        .args(["check", "-q"])
        .env_remove("GITHUB_STEP_SUMMARY")
}

#[test]
fn outputs_replace_a_link_instead_of_writing_through_it() {
    let repo = checkout();
    let victims = tempfile::tempdir().unwrap();
    // Two executables (one file under two links would be refused as the same output).
    let names = [("pkadvisor.sarif", "pip"), ("baseline.json", "python")];
    for (link, victim) in names {
        let v = victims.path().join(victim);
        std::fs::write(&v, "#!/bin/sh\necho hi\n").unwrap();
        std::fs::set_permissions(&v, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::os::unix::fs::symlink(&v, repo.path().join(link)).unwrap();
    }
    check(repo.path())
        .args([
            "orders.jsonl",
            "--key",
            "/customerId",
            "-o",
            "pkadvisor.sarif",
        ])
        .args(["--write-baseline", "baseline.json"])
        .run()
        .failure();
    for (link, victim) in names {
        let v = victims.path().join(victim);
        assert_eq!(std::fs::read_to_string(&v).unwrap(), "#!/bin/sh\necho hi\n");
        let m = std::fs::symlink_metadata(repo.path().join(link)).unwrap();
        assert!(m.is_file(), "{link}: the link is replaced by a file");
        assert_eq!(m.permissions().mode() & 0o111, 0, "{link}: not executable");
    }
    let sarif = std::fs::read_to_string(repo.path().join("pkadvisor.sarif")).unwrap();
    assert!(sarif.contains("SCHEMA_KEY_MISSING"), "{sarif}");
}

#[test]
fn under_ci_an_output_whose_folder_links_out_of_the_checkout_is_refused() {
    let repo = checkout();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), repo.path().join("out")).unwrap();
    std::fs::create_dir(repo.path().join("reports")).unwrap();
    let run = |ci: bool, to: &str| {
        let t = check(repo.path()).args(["orders.jsonl", "--key", "/customerId", "-o", to]);
        if ci { t.env("CI", "true") } else { t }.run()
    };
    // The verdict stands (exit 1) and the refusal follows the gate's line; nothing is written.
    let o = run(true, "out/r.md");
    assert_eq!(o.status, 1, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("does not write through a symbolic link out of the working tree"),
        "{}",
        o.stderr
    );
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    let o = run(true, ".git/hooks-pre-commit");
    assert!(
        o.stderr.contains("does not write inside .git/"),
        "{}",
        o.stderr
    );
    assert!(!repo.path().join(".git/hooks-pre-commit").exists());
    // Inside the tree, or a path named outside it ($RUNNER_TEMP), is written.
    assert_eq!(run(true, "reports/r.md").status, 1);
    assert!(repo.path().join("reports/r.md").is_file());
    let temp = outside.path().join("r.md");
    assert_eq!(run(true, temp.to_str().unwrap()).status, 1);
    assert!(temp.is_file());
    // Outside CI the user's own links are theirs to follow.
    std::fs::remove_file(&temp).unwrap();
    assert_eq!(run(false, "out/r.md").status, 1);
    assert!(temp.is_file());
}

#[test]
fn under_ci_a_config_is_read_only_when_named() {
    let repo = checkout();
    std::fs::write(repo.path().join("pkadvisor.toml"), LAX).unwrap();
    let run = |env: Option<(&str, &str)>, extra: &[&str]| {
        let mut t = check(repo.path())
            .args(["orders.jsonl", "--key", "/customerId"])
            .args(extra);
        if let Some((k, v)) = env {
            t = t.env(k, v);
        }
        t.run()
    };
    // Locally the nearby file is read: its policy passes the sample.
    run(None, &[]).success();
    for ci in [
        ("CI", "true"),
        ("GITHUB_ACTIONS", "true"),
        ("TF_BUILD", "True"),
    ] {
        let o = run(Some(ci), &[]).failure();
        assert!(
            o.stderr.contains("pkadvisor.toml not read: under CI a configuration file is read only when the workflow names it"),
            "{ci:?}: {}",
            o.stderr
        );
        run(Some(ci), &["--config", "pkadvisor.toml"]).success();
    }
    let o = run(None, &["--no-config"]).failure();
    assert!(!o.stderr.contains("not read"), "{}", o.stderr);
    let o = run(None, &["--no-config", "--config", "pkadvisor.toml"]).bad_input();
    assert!(o.stderr.contains("cannot be used with"), "{}", o.stderr);
}

#[test]
fn the_config_is_found_up_to_the_repository_root_never_above() {
    let outer = tempfile::tempdir().unwrap();
    std::fs::write(outer.path().join("pkadvisor.toml"), LAX).unwrap();
    let repo = outer.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("services/orders")).unwrap();
    std::fs::copy(
        root().join("fixtures/ci/renamed.jsonl"),
        repo.join("services/orders/orders.jsonl"),
    )
    .unwrap();
    let run = || {
        check(&repo.join("services/orders"))
            .args(["orders.jsonl", "--key", "/customerId"])
            .run()
    };
    // The file above the repository is not the repository's.
    run().failure();
    // The repository root's file is found from two folders down, its paths relative to it.
    std::fs::write(
        repo.join("pkadvisor.toml"),
        format!("output = \"reports/gate.md\"\n{LAX}"),
    )
    .unwrap();
    std::fs::create_dir(repo.join("reports")).unwrap();
    run().success();
    assert!(repo.join("reports/gate.md").is_file());
    // A nearer one wins.
    std::fs::write(repo.join("services/pkadvisor.toml"), "").unwrap();
    run().failure();
}

#[test]
fn config_paths_never_reach_git_and_may_use_the_whole_repository() {
    let repo = checkout();
    std::fs::create_dir(repo.path().join("ci")).unwrap();
    let toml = repo.path().join("ci/pkadvisor.toml");
    for sample in ["../.git/config", "../.git"] {
        std::fs::write(
            &toml,
            format!("key = \"/customerId\"\nsample = [\"{sample}\"]\ninput_format = \"csv\"\n"),
        )
        .unwrap();
        let o = check(repo.path())
            .args(["--config", "ci/pkadvisor.toml"])
            .run()
            .bad_input();
        assert!(
            o.stderr.contains("is inside the repository's .git folder"),
            "{sample}: {}",
            o.stderr
        );
        assert!(!o.stderr.contains("c2VjcmV0"), "{}", o.stderr);
    }
    // A config in a subfolder may name the repository's other files.
    std::fs::write(
        &toml,
        "key = \"/customerId\"\nsample = [\"../orders.jsonl\"]\n",
    )
    .unwrap();
    check(repo.path())
        .args(["--config", "ci/pkadvisor.toml"])
        .run()
        .failure();
}

#[test]
fn sample_folders_do_not_follow_links_out_of_the_folder_named() {
    let repo = checkout();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("secret.jsonl"),
        "{\"customerId\":\"outside-secret\"}\n".repeat(50),
    )
    .unwrap();
    let samples = repo.path().join("samples");
    std::fs::create_dir_all(samples.join("2026")).unwrap();
    std::fs::rename(
        repo.path().join("orders.jsonl"),
        samples.join("2026/orders.jsonl"),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path(), samples.join("linked")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.jsonl"),
        samples.join("file.jsonl"),
    )
    .unwrap();
    // A link that stays inside the folder is followed (the file is read once).
    std::os::unix::fs::symlink(samples.join("2026"), samples.join("latest")).unwrap();
    let o = check(repo.path())
        .args(["samples", "--key", "/customerId", "--format", "json"])
        .run()
        .failure();
    assert!(!o.stdout.contains("outside-secret"));
    for name in ["samples/linked", "samples/file.jsonl"] {
        assert!(
            o.stderr
                .contains(&format!("{name}: a symbolic link out of the folder named")),
            "{name}: {}",
            o.stderr
        );
    }
    let report: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(report["input"]["records_read"], 600, "{}", report["input"]);
}

#[test]
fn under_ci_a_sample_linked_out_of_the_checkout_is_refused() {
    let repo = checkout();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.jsonl");
    std::fs::write(&secret, "{\"customerId\":\"outside-secret\"}\n").unwrap();
    std::os::unix::fs::symlink(&secret, repo.path().join("linked.jsonl")).unwrap();
    std::os::unix::fs::symlink(".git/config", repo.path().join("config.csv")).unwrap();
    for name in ["linked.jsonl", "config.csv"] {
        let o = check(repo.path())
            .args([name, "--key", "/customerId", "--format", "json"])
            .env("GITHUB_ACTIONS", "true")
            .run()
            .bad_input();
        assert!(
            o.stderr.contains("under CI pkadvisor does not read"),
            "{name}: {}",
            o.stderr
        );
        assert!(!o.stdout.contains("outside-secret") && !o.stderr.contains("c2VjcmV0"));
    }
    // Named outside the checkout, it is the workflow's choice.
    check(repo.path())
        .arg(&secret)
        .args(["--key", "/customerId"])
        .env("GITHUB_ACTIONS", "true")
        .run()
        .success();
}

#[test]
fn a_sample_named_like_a_flag_after_double_dash_is_a_file() {
    let repo = checkout();
    for name in ["--help", "-V"] {
        let o = check(repo.path())
            .args(["--key", "/customerId", "--", name])
            .run()
            .bad_input();
        assert!(
            o.stderr.contains("No such file") || o.stderr.contains("cannot tell the format"),
            "{name}: {}",
            o.stderr
        );
        assert!(!o.stdout.contains("Usage"));
    }
}
