//! A tiny command builder for the `pkadvisor` binary, in the style of just's `tests/test.rs`:
//! `Test::new().args([...]).stdin(...).run()` returns stdout, stderr and the exit code.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The crate root: fixtures are addressed relative to it (`fixtures/tiny.jsonl`).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Absolute path of a fixture file.
pub fn fixture(name: &str) -> PathBuf {
    root().join("fixtures").join(name)
}

/// The candidate with this spec in a JSON report.
pub fn candidate<'a>(report: &'a serde_json::Value, spec: &str) -> &'a serde_json::Value {
    report["candidates"]
        .as_array()
        .expect("candidates array")
        .iter()
        .find(|c| c["spec"] == spec)
        .unwrap_or_else(|| panic!("no candidate `{spec}` in the report"))
}

/// One invocation of the binary.
#[must_use]
pub struct Test {
    args: Vec<OsString>,
    stdin: Option<Vec<u8>>,
    current_dir: PathBuf,
    /// Environment changes: a value to set, or `None` to remove the variable.
    env: Vec<(OsString, Option<OsString>)>,
}

/// What the binary did.
#[derive(Debug)]
pub struct Output {
    pub stdout: String,
    pub stderr: String,
    pub status: i32,
}

impl Test {
    /// Runs in the crate root, so relative fixture paths show up as given in messages.
    pub fn new() -> Self {
        Test {
            args: Vec::new(),
            stdin: None,
            current_dir: root(),
            // Colour is decided by the environment, and so is whether the run is a CI job
            // (which reads no configuration file it is not named): tests start from none of
            // these variables, so they behave the same in a CI job; the CI tests set them.
            env: [
                "NO_COLOR",
                "CLICOLOR",
                "CLICOLOR_FORCE",
                "CI",
                "GITHUB_ACTIONS",
                "TF_BUILD",
            ]
            .into_iter()
            .map(|k| (k.into(), None))
            .collect(),
        }
    }

    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(bytes.into());
        self
    }

    /// Sets an environment variable for the run.
    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.env.push((key.into(), Some(value.into())));
        self
    }

    /// Removes an environment variable for the run.
    pub fn env_remove(mut self, key: &str) -> Self {
        self.env.push((key.into(), None));
        self
    }

    pub fn current_dir(mut self, dir: &Path) -> Self {
        self.current_dir = dir.to_path_buf();
        self
    }

    /// Runs and returns what the process wrote as bytes, with its status (for output that need
    /// not be UTF-8, or an exit by a signal).
    pub fn output(self) -> std::process::Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_pkadvisor"));
        for (k, v) in &self.env {
            match v {
                Some(v) => cmd.env(k, v),
                None => cmd.env_remove(k),
            };
        }
        let mut child = cmd
            .args(&self.args)
            .current_dir(&self.current_dir)
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn pkadvisor");
        // Feed stdin from a thread so a large input cannot deadlock against a full stdout pipe.
        let feeder = self.stdin.map(|bytes| {
            let mut pipe = child.stdin.take().expect("stdin is piped");
            std::thread::spawn(move || {
                // The binary may exit before reading everything (e.g. on a usage error).
                let _ = pipe.write_all(&bytes);
            })
        });
        let out = child.wait_with_output().expect("wait for pkadvisor");
        if let Some(f) = feeder {
            f.join().expect("stdin feeder");
        }
        out
    }

    /// Runs; stdout and stderr must be UTF-8 and the process must exit normally.
    pub fn run(self) -> Output {
        let out = self.output();
        Output {
            stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
            status: out.status.code().expect("exited normally, not by a signal"),
        }
    }

    /// Runs, asserts exit code 0 and parses stdout as JSON.
    pub fn json(self) -> serde_json::Value {
        self.run().success().json()
    }
}

impl Output {
    /// Asserts exit code 0 (showing stderr otherwise).
    pub fn success(self) -> Self {
        assert_eq!(
            self.status, 0,
            "expected success; stderr:\n{}\nstdout:\n{}",
            self.stderr, self.stdout
        );
        self
    }

    /// Asserts exit code 1 (a gate that fails its policy).
    pub fn failure(self) -> Self {
        assert_eq!(
            self.status, 1,
            "expected exit code 1; stderr:\n{}\nstdout:\n{}",
            self.stderr, self.stdout
        );
        self
    }

    /// Asserts exit code 2 (bad input / usage) and an empty stdout.
    pub fn bad_input(self) -> Self {
        assert_eq!(
            self.status, 2,
            "expected exit code 2; stderr:\n{}\nstdout:\n{}",
            self.stderr, self.stdout
        );
        assert_eq!(self.stdout, "", "nothing may be printed on stdout on error");
        self
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }
}
