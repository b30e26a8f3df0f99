//! A `pkadvisor.toml` is data a pull request can change, like the sample: the paths it names
//! (`sample`, `output`, `baseline`, `workload`, `ops`, `observed`, `from_iac`) must resolve
//! inside the repository that holds it (the nearest folder above it with a `.git`, else its own
//! folder), symbolic links resolved, and never inside `.git/`, or `check` could read any file
//! into its report (`sample = ["/etc/passwd"]`, `.git/config` and its credentials) or write
//! anywhere (`output = "../x"`). Files reached by walking a sample folder are held to the same
//! rule. `--allow-outside-config-dir` lifts it; paths given as flags are the workflow's own and
//! are not confined.
//!
//! Under CI ([`under_ci`]) the checkout itself is the pull request's: a path the workflow names
//! inside the working tree must not lead out of it (or into `.git/`) through a link the pull
//! request committed ([`output_in_ci`], [`inputs_in_ci`]).

use std::path::{Path, PathBuf};

use crate::ingest::InputSource;

/// Where a configuration file's paths must stay.
#[derive(Debug, Clone)]
pub struct Confinement {
    /// The configuration file, as named (for messages).
    pub config: PathBuf,
    /// The canonical folder its paths must stay in: the repository's (the nearest folder with
    /// a `.git` above the file), else the file's own.
    pub root: PathBuf,
}

impl Confinement {
    /// The confinement of the configuration file `config`.
    pub fn of(config: &Path) -> std::io::Result<Confinement> {
        let folder = match config.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let folder = std::fs::canonicalize(folder)?;
        Ok(Confinement {
            config: config.to_path_buf(),
            root: repository_root(&folder).unwrap_or(folder),
        })
    }

    /// An error unless `path` (the file's `field`) resolves inside the repository, outside its
    /// `.git`.
    pub fn check(&self, field: &str, path: &Path) -> Result<(), String> {
        let quoted = |p: &Path| crate::small_file::quote(&p.display().to_string(), 1000);
        match resolve(path) {
            Some(p) if p.starts_with(&self.root) && !in_git(&self.root, &p) => Ok(()),
            Some(p) if p.starts_with(&self.root) => Err(format!(
                "{}: {field} `{}` is inside the repository's .git folder, which holds its configuration and credentials; a pull request can change pkadvisor.toml, so its paths never reach .git: name a file of the working tree",
                quoted(&self.config),
                quoted(path)
            )),
            _ => Err(format!(
                "{}: {field} `{}` is outside the repository that holds pkadvisor.toml ({}), symbolic links resolved; a pull request can change that file, so its paths must stay in the repository: move the file into it, or pass --allow-outside-config-dir to allow it",
                quoted(&self.config),
                quoted(path),
                quoted(&self.root)
            )),
        }
    }

    /// An error unless every input file (folders walked) resolves inside the folder.
    pub fn inputs(&self, inputs: &[InputSource]) -> anyhow::Result<()> {
        for i in inputs {
            if let Some(p) = &i.path {
                self.check("sample", p).map_err(anyhow::Error::msg)?;
            }
        }
        Ok(())
    }
}

/// The repository holding the canonical folder `dir`: the nearest folder from `dir` up that
/// holds a `.git` (a folder, or a worktree's file). `None` outside a repository.
pub fn repository_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
}

/// Whether the canonical `path` lies in a `.git` folder below the canonical `root`.
fn in_git(root: &Path, path: &Path) -> bool {
    path.strip_prefix(root)
        .is_ok_and(|rest| rest.components().any(|c| c.as_os_str() == ".git"))
}

/// Whether the run is a CI job, whose checkout a pull request may control: `GITHUB_ACTIONS`
/// is `true`, `TF_BUILD` (Azure Pipelines) is set, or `CI` is `true` or `1` (GitLab, most
/// others).
pub fn under_ci() -> bool {
    let var = |n: &str| std::env::var(n).unwrap_or_default();
    var("GITHUB_ACTIONS") == "true"
        || !var("TF_BUILD").is_empty()
        || matches!(var("CI").to_ascii_lowercase().as_str(), "true" | "1")
}

/// `path` made absolute against the working directory as named, `.` and `..` taken lexically
/// (no link followed), with the canonical working directory.
fn lexical(path: &Path) -> Option<(PathBuf, PathBuf)> {
    let cwd = std::env::current_dir().ok()?;
    let mut out = PathBuf::new();
    for c in cwd.join(path).components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    let canonical = std::fs::canonicalize(&cwd).ok()?;
    Some(if out.starts_with(&canonical) {
        (out, canonical)
    } else {
        // The working directory as named may hold a link (`/tmp` on macOS): compare in its
        // canonical form.
        match out.strip_prefix(&cwd) {
            Ok(rest) => (canonical.join(rest), canonical),
            Err(_) => (out, canonical),
        }
    })
}

/// Under CI, an error when the output `path` is named inside the working tree but its folder
/// leads out of it through a symbolic link, or into `.git/`. A path named outside the tree
/// (`$RUNNER_TEMP/…`) is the workflow's choice and is written.
pub fn output_in_ci(path: &Path) -> Result<(), String> {
    let Some((named, tree)) = lexical(path) else {
        return Ok(());
    };
    if !named.starts_with(&tree) {
        return Ok(());
    }
    let folder = named.parent().unwrap_or(&tree);
    let resolved = resolve(folder).map(|f| f.join(named.file_name().unwrap_or_default()));
    escape_message(path, &tree, resolved, "write")
}

/// The error for `path`, named inside the working tree `tree`, that `resolved` takes out of it
/// or into `.git/` (None: fine).
fn escape_message(
    path: &Path,
    tree: &Path,
    resolved: Option<PathBuf>,
    verb: &str,
) -> Result<(), String> {
    let quoted = |p: &Path| crate::small_file::quote(&p.display().to_string(), 1000);
    match resolved {
        Some(r) if r.starts_with(tree) && !in_git(tree, &r) => Ok(()),
        Some(r) if r.starts_with(tree) => Err(format!(
            "{}: under CI pkadvisor does not {verb} inside .git/ (it resolves to {}): the checkout may be a pull request's, and .git holds the job's credentials",
            quoted(path),
            quoted(&r)
        )),
        other => Err(format!(
            "{}: under CI pkadvisor does not {verb} through a symbolic link out of the working tree (it resolves to {}): the checkout may be a pull request's; name a path outside the checkout (such as $RUNNER_TEMP) or remove the link",
            quoted(path),
            other.map_or_else(|| "a path that climbs out of it".into(), |r| quoted(&r))
        )),
    }
}

/// Under CI, an error when an input file named inside the working tree (or found in a folder
/// there) resolves out of it or into `.git/` through a symbolic link: a pull request that turns
/// `samples/orders.jsonl` into a link to a runner's file would have its values in the report.
pub fn inputs_in_ci(inputs: &[InputSource]) -> anyhow::Result<()> {
    if !under_ci() {
        return Ok(());
    }
    for p in inputs.iter().filter_map(|i| i.path.as_deref()) {
        let Some((named, tree)) = lexical(p) else {
            continue;
        };
        if named.starts_with(&tree) {
            escape_message(p, &tree, std::fs::canonicalize(p).ok(), "read")
                .map_err(anyhow::Error::msg)?;
        }
    }
    Ok(())
}

/// The canonical form of `path`, which need not exist: its longest existing ancestor resolved
/// (symbolic links included), the missing names appended. `None` when a missing part climbs
/// (`..`), which cannot be resolved.
pub fn resolve(path: &Path) -> Option<PathBuf> {
    let mut missing = Vec::new();
    let mut cur = path;
    loop {
        let probe = if cur.as_os_str().is_empty() {
            Path::new(".")
        } else {
            cur
        };
        if let Ok(mut out) = std::fs::canonicalize(probe) {
            out.extend(missing.iter().rev());
            return Some(out);
        }
        if cur.ends_with("..") {
            return None;
        }
        missing.push(cur.file_name()?.to_owned());
        cur = cur.parent()?;
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_through_links_and_missing_names() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let out = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(out.path(), root.join("link")).unwrap();
        let c = Confinement::of(&root.join("pkadvisor.toml")).unwrap();
        assert_eq!(c.root, root);
        assert!(c.check("output", &root.join("new/report.md")).is_ok());
        assert!(
            c.check("output", &root.join("sub/../x.md")).is_err(),
            "sub is missing"
        );
        assert!(c.check("output", &root.join("../x.md")).is_err());
        assert!(c.check("sample", &root.join("link/a.jsonl")).is_err());
        assert!(c.check("sample", Path::new("/etc/passwd")).is_err());
        std::fs::create_dir(root.join("sub")).unwrap();
        assert!(c.check("output", &root.join("sub/../x.md")).is_ok());
        let e = c.check("ops", &root.join("link")).unwrap_err();
        assert!(
            e.starts_with(&format!(
                "{}: ops `{}` is outside the repository that holds pkadvisor.toml",
                root.join("pkadvisor.toml").display(),
                root.join("link").display()
            )),
            "{e}"
        );
        // In a repository: a config in a subfolder may name any of its files but `.git/`.
        std::fs::create_dir(root.join(".git")).unwrap();
        std::fs::create_dir(root.join("ci")).unwrap();
        let c = Confinement::of(&root.join("ci/pkadvisor.toml")).unwrap();
        assert_eq!(c.root, root);
        assert!(c.check("sample", &root.join("ci/../sub/a.jsonl")).is_ok());
        for p in [".git/config", ".git", "sub/.git/x"] {
            let e = c.check("sample", &root.join(p)).unwrap_err();
            assert!(
                e.contains("inside the repository's .git folder"),
                "{p}: {e}"
            );
        }
    }
}
