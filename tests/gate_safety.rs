//! `pkadvisor check` as a gate on untrusted data (issue 27): its exit status is the verdict's
//! whatever happens to its outputs, baselines compare the gated key, outputs never overwrite an
//! input under any name (hard links included) and replace files whole, pipes and FIFOs get the
//! same schema checks as files, and a `pkadvisor.toml` cannot reach outside its folder.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::check::codes;
use crate::util::{root, Test};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pkadvisor"));
    c.current_dir(root())
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("CI")
        .env_remove("TF_BUILD");
    c
}

/// Waits for `child` at most `secs` seconds (a hang is a failure, not a stuck test run); returns
/// its exit code and stderr.
fn wait(mut child: Child, secs: u64) -> (i32, String) {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                e.read_to_string(&mut err).unwrap();
            }
            return (status.code().expect("exited, not killed by a signal"), err);
        }
        if start.elapsed() > Duration::from_secs(secs) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("pkadvisor still running after {secs} s (hung on its input?)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// 2,000 customers of one order each, and 5 orders without `customerId` (a schema failure);
/// with `--top 2000` the JSON report is far larger than a pipe's 64 KiB buffer.
fn large_failing_sample(dir: &Path) -> PathBuf {
    let mut s = String::new();
    for i in 0..2000 {
        s.push_str(&format!("{{\"id\":\"o{i}\",\"customerId\":\"c{i:05}\"}}\n"));
    }
    for i in 0..5 {
        s.push_str(&format!("{{\"id\":\"x{i}\",\"customer\":\"c{i}\"}}\n"));
    }
    let p = dir.join("orders.jsonl");
    std::fs::write(&p, s).unwrap();
    p
}

/// Runs `args` with stdout a pipe whose reading end is closed at once (`| head -c0`): returns
/// the exit code and stderr.
fn with_stdout_closed(args: &[&str]) -> (i32, String) {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    wait(child, 120)
}

#[test]
fn a_failing_check_exits_1_when_its_stdout_closes_early() {
    let dir = tempfile::tempdir().unwrap();
    let sample = large_failing_sample(dir.path());
    let sample = sample.to_str().unwrap();
    let args = [
        "check",
        sample,
        "--key",
        "/customerId",
        "--format",
        "json",
        "--top",
        "2000",
        "-q",
    ];
    // The report written whole: 1, and larger than a pipe buffer.
    let full = bin().args(args).output().unwrap();
    assert_eq!(full.status.code(), Some(1));
    assert!(full.stdout.len() > 256 << 10, "{} bytes", full.stdout.len());
    // The reader goes away: the verdict stands, and is still printed.
    let (code, err) = with_stdout_closed(&args);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("pkadvisor check: FAIL (1 failure, 0 warnings)"),
        "{err}"
    );
    // A passing check on a closed pipe lost its report: 2, after its verdict's line.
    let (code, err) = with_stdout_closed(&[
        "check", sample, "--key", "/id", "--format", "json", "--top", "2000", "-q",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("pkadvisor check: PASS"), "{err}");
    assert!(err.contains("the report is lost"), "{err}");
    // Other subcommands stop quietly, as ripgrep does.
    let (code, err) = with_stdout_closed(&["analyze", sample, "--top", "2000", "-q"]);
    assert_eq!((code, err.as_str()), (0, ""));
}

/// `--compare` with a key that ranks above the gated one (`/id`, unique): an unchanged rerun
/// against its own baseline passes, and the baseline is judged on the gated key.
#[test]
fn a_baseline_compares_the_gated_key_not_the_top_ranked() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base.json");
    let base = base.to_str().unwrap();
    let run = |extra: &[&str]| {
        Test::new()
            .args([
                "check",
                "fixtures/ci/sample.jsonl",
                "--key",
                "/customerId",
                "--compare",
                "/id",
                "--total-size",
                "50GB",
                "--format",
                "json",
                "-q",
            ])
            .args(extra)
            .env_remove("GITHUB_STEP_SUMMARY")
            .run()
    };
    let first = run(&["--write-baseline", base]).success().json();
    assert_eq!(first["candidates"][0]["spec"], "/id", "/id ranks first");
    assert_eq!(first["check"]["key"], "/customerId");
    let again = run(&["--baseline", base]);
    assert_eq!(again.status, 0, "{}", again.stderr);
    assert_eq!(codes(&again.json()), Vec::<String>::new());
    // The gated key compared with the gated key: growth is still caught.
    let grown = Test::new()
        .args([
            "check",
            "fixtures/ci/growth.jsonl",
            "--key",
            "/customerId",
            "--compare",
            "/id",
            "--total-size",
            "50GB",
            "--baseline",
            base,
            "--format",
            "json",
            "-q",
        ])
        .env_remove("GITHUB_STEP_SUMMARY")
        .run();
    assert_eq!(grown.status, 1);
    let c = codes(&grown.json());
    assert!(c.contains(&"BASELINE_PARTITION_GREW".to_string()), "{c:?}");
    assert!(!c.contains(&"BASELINE_KEY_CHANGED".to_string()), "{c:?}");
    // A different key is still a key change, named with the baseline's gated key.
    let other = Test::new()
        .args([
            "check",
            "fixtures/ci/sample.jsonl",
            "--key",
            "/status",
            "--compare",
            "/id",
            "--baseline",
            base,
            "--format",
            "json",
            "-q",
        ])
        .env_remove("GITHUB_STEP_SUMMARY")
        .run();
    assert_eq!(other.status, 1);
    let r = other.json();
    let v = &r["check"]["violations"].as_array().unwrap();
    let changed = v
        .iter()
        .find(|v| v["code"] == "BASELINE_KEY_CHANGED")
        .expect("BASELINE_KEY_CHANGED");
    assert!(
        changed["message"]
            .as_str()
            .unwrap()
            .starts_with("the key was `/customerId` in the baseline and is `/status` now"),
        "{changed}"
    );
}

#[test]
fn a_baseline_of_another_schema_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base.json");
    let o = Test::new()
        .args(["check", "fixtures/ci/sample.jsonl", "--key", "/customerId"])
        .args(["--format", "json", "-q", "--write-baseline"])
        .arg(&base)
        .env_remove("GITHUB_STEP_SUMMARY")
        .run();
    assert_eq!(o.status, 0, "{}", o.stderr);
    let text = std::fs::read_to_string(&base).unwrap();
    std::fs::write(
        &base,
        text.replacen(
            &format!("\"schema_version\": {}", pkadvisor::model::SCHEMA_VERSION),
            "\"schema_version\": 99",
            1,
        ),
    )
    .unwrap();
    let o = Test::new()
        .args(["check", "fixtures/ci/sample.jsonl", "--key", "/customerId"])
        .args(["-q", "--baseline"])
        .arg(&base)
        .env_remove("GITHUB_STEP_SUMMARY")
        .run()
        .bad_input();
    assert!(
        o.stderr.contains(&format!(
            "baseline {}: schema_version 99 is not {}, the version this pkadvisor reads; write a new baseline with --write-baseline",
            base.display(),
            pkadvisor::model::SCHEMA_VERSION
        )),
        "{}",
        o.stderr
    );
}

/// A hard link is the input under another name: `-o` and `--write-baseline` there are refused
/// and the input kept; `-o` and `--write-baseline` naming one file are refused.
#[test]
fn outputs_never_overwrite_an_input_through_a_hard_link() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("sample.jsonl");
    let content = "{\"t\":\"a\"}\n{\"t\":\"b\"}\n";
    std::fs::write(&data, content).unwrap();
    let link = dir.path().join("link.json");
    std::fs::hard_link(&data, &link).unwrap();
    for args in [
        vec!["check", "--key", "/t", "-q", "--write-baseline"],
        vec!["check", "--key", "/t", "-q", "-o"],
        vec!["analyze", "-q", "-o"],
    ] {
        let o = Test::new()
            .args(&args)
            .arg(&link)
            .arg(&data)
            .env_remove("GITHUB_STEP_SUMMARY")
            .run()
            .bad_input();
        assert!(
            o.stderr.contains("that is one of the inputs"),
            "{args:?}: {}",
            o.stderr
        );
        assert_eq!(std::fs::read_to_string(&data).unwrap(), content);
    }
    // A file found by walking an input folder is an input too.
    for args in [
        vec!["check", "--key", "/t", "-q", "--write-baseline"],
        vec!["check", "--key", "/t", "-q", "-o"],
        vec!["analyze", "-q", "-o"],
    ] {
        let o = Test::new()
            .args(&args)
            .arg(&link)
            .arg(dir.path())
            .env_remove("GITHUB_STEP_SUMMARY")
            .run()
            .bad_input();
        assert!(
            o.stderr
                .contains(&format!("{}: that is the input", link.display())),
            "{args:?}: {}",
            o.stderr
        );
        assert_eq!(std::fs::read_to_string(&data).unwrap(), content);
    }
    // The same file for the report and the baseline, under two names.
    let out = dir.path().join("out.json");
    let same = dir.path().join(".").join("out.json");
    let o = Test::new()
        .args(["check", "--key", "/t", "-q", "-o"])
        .arg(&out)
        .arg("--write-baseline")
        .arg(&same)
        .arg(&data)
        .env_remove("GITHUB_STEP_SUMMARY")
        .run()
        .bad_input();
    assert!(o.stderr.contains("is the same file as -o"), "{}", o.stderr);
    assert!(!out.exists(), "nothing written");
}

/// Reports replace the old file whole (a temporary file renamed over it): a hard link to the
/// old report keeps the old text, the name gets the new one.
#[test]
fn a_report_replaces_the_old_file_instead_of_rewriting_it() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        vec![
            "analyze",
            "fixtures/ci/sample.jsonl",
            "-q",
            "--format",
            "json",
            "-o",
        ],
        vec![
            "check",
            "fixtures/ci/sample.jsonl",
            "--key",
            "/customerId",
            "-q",
            "-o",
        ],
        vec![
            "check",
            "fixtures/ci/sample.jsonl",
            "--key",
            "/customerId",
            "-q",
            "--write-baseline",
        ],
    ] {
        let out = dir.path().join("report.json");
        let old = dir.path().join("old.json");
        std::fs::write(&out, "old report\n").unwrap();
        std::fs::hard_link(&out, &old).unwrap();
        Test::new()
            .args(&args)
            .arg(&out)
            .env_remove("GITHUB_STEP_SUMMARY")
            .run()
            .success();
        assert_eq!(
            std::fs::read_to_string(&old).unwrap(),
            "old report\n",
            "{args:?}"
        );
        let new = std::fs::read_to_string(&out).unwrap();
        assert!(new.contains("customerId"), "{args:?}: {new}");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            2,
            "no temporary file left"
        );
        std::fs::remove_file(&out).unwrap();
        std::fs::remove_file(&old).unwrap();
    }
}

/// The gate's verdict on a sample read from a regular file: exit code and violation codes.
fn verdict(input: &str, cwd: &Path, extra: &[&str]) -> (i32, Vec<String>, String) {
    let out = bin()
        .current_dir(cwd)
        .args([
            "check",
            input,
            "--key",
            "/customerId",
            "--format",
            "json",
            "-q",
        ])
        .args(extra)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let r: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {err}"));
    (out.status.code().unwrap(), codes(&r), err)
}

/// A named FIFO, `<(cat file)` and standard input get the schema checks a file gets: the same
/// exit code and the same violations (the FIFO used to hang, the pipe to pass with exit 0).
#[test]
fn pipes_and_fifos_get_the_same_checks_as_the_file() {
    let sample = root().join("fixtures/ci/renamed.jsonl");
    let (code, file_codes, _) = verdict(sample.to_str().unwrap(), &root(), &[]);
    assert_eq!(code, 1);
    assert_eq!(file_codes, ["SCHEMA_KEY_MISSING"]);
    let bytes = std::fs::read(&sample).unwrap();

    // A named FIFO, fed once by a writer thread.
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.jsonl");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let (f, b) = (fifo.clone(), bytes.clone());
    let writer = std::thread::spawn(move || {
        let mut w = std::fs::OpenOptions::new().write(true).open(&f).unwrap();
        let _ = w.write_all(&b);
    });
    let child = bin()
        .args(["check", fifo.to_str().unwrap(), "--key", "/customerId"])
        .args(["--format", "json", "-q"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = child;
    let mut pipe = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = pipe.read_to_string(&mut s);
        s
    });
    let (code, err) = wait(child, 60);
    let stdout = reader.join().unwrap();
    writer.join().unwrap();
    let r: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {err}"));
    assert_eq!((code, codes(&r)), (1, file_codes.clone()), "{err}");
    let msg = r["check"]["violations"][0]["message"].as_str().unwrap();
    assert!(
        msg.contains(&format!("First: {}:581", fifo.display())),
        "the FIFO's own name at the record's line: {msg}"
    );

    // analyze on a FIFO whose key path is missing peeks at the records again to explain it:
    // that peek passes over the FIFO instead of waiting for a second writer, and the mistake is
    // refused (exit 2) without the suggestions the peek would have given.
    let (f, b) = (fifo.clone(), bytes.clone());
    let writer = std::thread::spawn(move || {
        let mut w = std::fs::OpenOptions::new().write(true).open(&f).unwrap();
        let _ = w.write_all(&b);
    });
    let child = bin()
        .args([
            "analyze",
            fifo.to_str().unwrap(),
            "--candidates",
            "/nope",
            "-q",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (code, err) = wait(child, 60);
    writer.join().unwrap();
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("holds /nope"), "{err}");

    // Process substitution: `/dev/fd/N`, a pipe.
    let out = Command::new("bash")
        .current_dir(root())
        .env_remove("GITHUB_STEP_SUMMARY")
        .arg("-c")
        .arg(format!(
            "exec '{}' check <(cat fixtures/ci/renamed.jsonl) --input-format jsonl --key /customerId --format json -q",
            env!("CARGO_BIN_EXE_pkadvisor")
        ))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let r: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {err}"));
    assert_eq!(
        (out.status.code(), codes(&r)),
        (Some(1), file_codes.clone()),
        "{err}"
    );

    // A key that became a number: the file fails, the pipe used to pass with exit 0.
    let (code, number_codes, _) = verdict("fixtures/ci/number.jsonl", &root(), &[]);
    assert_eq!(
        (code, number_codes.as_slice()),
        (1, &["SCHEMA_KEY_TYPE_CHANGED".to_string()][..])
    );
    let out = Command::new("bash")
        .current_dir(root())
        .env_remove("GITHUB_STEP_SUMMARY")
        .arg("-c")
        .arg(format!(
            "exec '{}' check <(cat fixtures/ci/number.jsonl) --input-format jsonl --key /customerId --format json -q",
            env!("CARGO_BIN_EXE_pkadvisor")
        ))
        .output()
        .unwrap();
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((out.status.code(), codes(&r)), (Some(1), number_codes));

    // Standard input.
    let o = Test::new()
        .args([
            "check",
            "-",
            "--input-format",
            "jsonl",
            "--key",
            "/customerId",
        ])
        .args(["--format", "json", "-q"])
        .stdin(bytes)
        .env_remove("GITHUB_STEP_SUMMARY")
        .run();
    assert_eq!(
        (o.status, codes(&o.json())),
        (1, file_codes),
        "{}",
        o.stderr
    );
    let msg = o.json()["check"]["violations"][0]["message"].clone();
    assert!(
        msg.as_str().unwrap().contains("First: <stdin>:581"),
        "{msg}"
    );
}

/// An unwritable `GITHUB_STEP_SUMMARY` is reported after the gate's line, which still says
/// PASS or FAIL: a failing gate exits 1, a passing one 2 (its summary is lost).
#[test]
fn an_unwritable_step_summary_keeps_the_gate_line_and_the_failure() {
    let dir = tempfile::tempdir().unwrap();
    let nowhere = dir.path().join("missing-dir").join("summary.md");
    let run = |sample: &str| {
        Test::new()
            .args(["check", sample, "--key", "/customerId", "-q"])
            .env("GITHUB_STEP_SUMMARY", nowhere.to_str().unwrap())
            .run()
    };
    let o = run("fixtures/ci/renamed.jsonl");
    assert_eq!(o.status, 1, "{}", o.stderr);
    let gate = o
        .stderr
        .find("pkadvisor check: FAIL (1 failure, 0 warnings)")
        .expect(&o.stderr);
    let error = o
        .stderr
        .find("cannot append to GITHUB_STEP_SUMMARY")
        .expect(&o.stderr);
    assert!(gate < error, "the gate's line first: {}", o.stderr);
    assert!(o.stdout.contains("Gate for key /customerId: FAIL"));
    let o = run("fixtures/ci/sample.jsonl");
    assert_eq!(o.status, 2, "{}", o.stderr);
    let gate = o.stderr.find("pkadvisor check: PASS").expect(&o.stderr);
    let error = o
        .stderr
        .find("cannot append to GITHUB_STEP_SUMMARY")
        .expect(&o.stderr);
    assert!(gate < error, "{}", o.stderr);
}

/// A TOML error quotes at most 200 characters of its line, not a 1 MB line.
#[test]
fn a_toml_error_does_not_echo_a_huge_line() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("pkadvisor.toml");
    std::fs::write(
        &cfg,
        format!("key = \"/a\"\nsample = [\"{}\" 1]\n", "x".repeat(1 << 20)),
    )
    .unwrap();
    let o = Test::new()
        .args(["check", "--config"])
        .arg(&cfg)
        .run()
        .bad_input();
    assert!(o.stderr.len() < 1000, "{} bytes on stderr", o.stderr.len());
    assert!(
        o.stderr.contains(&format!("{}:2:", cfg.display())),
        "file:line: {}",
        o.stderr
    );
}

/// A `pkadvisor.toml` (found in the working directory or named by `--config`) is data a pull
/// request can change: its paths stay inside its repository (here, with no `.git`, its folder),
/// symbolic links resolved.
#[test]
fn config_paths_stay_inside_the_config_folder() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.jsonl");
    std::fs::write(&secret, "{\"customerId\":\"hunter2\"}\n").unwrap();
    let repo = tempfile::tempdir().unwrap();
    std::fs::copy(
        root().join("fixtures/ci/sample.jsonl"),
        repo.path().join("sample.jsonl"),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path(), repo.path().join("link")).unwrap();
    let toml = |body: &str| {
        std::fs::write(
            repo.path().join("pkadvisor.toml"),
            format!("key = \"/customerId\"\n{body}\n"),
        )
        .unwrap();
    };
    let run = |extra: &[&str]| {
        Test::new()
            .current_dir(repo.path())
            .args(["check", "-q"])
            .args(extra)
            .env_remove("GITHUB_STEP_SUMMARY")
            .run()
    };
    let cases = [
        (format!("sample = [\"{}\"]", secret.display()), "sample"),
        ("sample = [\"link/secret.jsonl\"]".to_string(), "sample"),
        ("sample = [\"link\"]".to_string(), "sample"),
        (
            "sample = [\"sample.jsonl\"]\noutput = \"../x.md\"".to_string(),
            "output",
        ),
        (
            "sample = [\"sample.jsonl\"]\noutput = \"link/x.md\"".to_string(),
            "output",
        ),
        (
            "sample = [\"sample.jsonl\"]\nbaseline = \"/etc/passwd\"".to_string(),
            "baseline",
        ),
        (
            "sample = [\"sample.jsonl\"]\nworkload = \"../w.yaml\"".to_string(),
            "workload",
        ),
        (
            "sample = [\"sample.jsonl\"]\nops = \"link/ops.jsonl\"".to_string(),
            "ops",
        ),
        (
            "sample = [\"sample.jsonl\"]\nfrom_iac = \"../main.bicep\"".to_string(),
            "from_iac",
        ),
    ];
    for (body, field) in &cases {
        toml(body);
        for extra in [&[][..], &["--config", "pkadvisor.toml"][..]] {
            let o = run(extra).bad_input();
            assert!(
                o.stderr.contains(&format!("pkadvisor.toml: {field} `"))
                    && o.stderr
                        .contains("is outside the repository that holds pkadvisor.toml")
                    && o.stderr.contains("--allow-outside-config-dir"),
                "{body} {extra:?}: {}",
                o.stderr
            );
            assert!(!o.stderr.contains("hunter2"));
        }
    }
    assert!(!repo.path().join("../x.md").exists());
    // The refused path is quoted inert: an escape sequence in it is shown, not sent.
    toml("sample = [\"/x\\u001b[31m\"]");
    let o = run(&[]).bad_input();
    assert!(
        o.stderr.contains("sample `/x\\u{1b}[31m` is outside") && !o.stderr.contains('\u{1b}'),
        "{}",
        o.stderr
    );
    // A folder inside whose link leads out: the walk passes the link over, with a note.
    std::fs::create_dir(repo.path().join("samples")).unwrap();
    std::fs::copy(
        root().join("fixtures/ci/sample.jsonl"),
        repo.path().join("samples/a.jsonl"),
    )
    .unwrap();
    std::os::unix::fs::symlink(&secret, repo.path().join("samples/b.jsonl")).unwrap();
    toml("sample = [\"samples\"]");
    let o = run(&["--format", "json"]).success();
    assert!(
        o.stderr
            .contains("samples/b.jsonl: a symbolic link out of the folder named"),
        "{}",
        o.stderr
    );
    assert!(!o.stdout.contains("hunter2"));
    // Inside is fine; outside with the explicit flag is read.
    toml("sample = [\"sample.jsonl\"]\noutput = \"report.md\"");
    run(&[]).success();
    assert!(repo.path().join("report.md").is_file());
    toml(&format!("sample = [\"{}\"]", secret.display()));
    let o = run(&["--allow-outside-config-dir", "--format", "json"]).success();
    assert!(o.stdout.contains("hunter2"));
    // Flags are the workflow's own: not confined.
    toml("");
    run(&[secret.to_str().unwrap()]).success();
}
