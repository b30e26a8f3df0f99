//! A `pkadvisor.toml` is data a pull request can change, like the sample: the paths it names
//! (`sample`, `output`, `baseline`, `workload`, `ops`, `from_iac`) must resolve inside the
//! folder that holds it, symbolic links resolved, or `check` could read any file into its report
//! (`sample = ["/etc/passwd"]`) or write anywhere (`output = "../x"`). Files reached by walking
//! a sample folder are held to the same rule. `--allow-outside-config-dir` lifts it; paths given
//! as flags are the workflow's own and are not confined.

use std::path::{Path, PathBuf};

use crate::ingest::InputSource;

/// Where a configuration file's paths must stay.
#[derive(Debug, Clone)]
pub struct Confinement {
    /// The configuration file, as named (for messages).
    pub config: PathBuf,
    /// The canonical folder that holds it.
    pub root: PathBuf,
}

impl Confinement {
    /// The confinement of the configuration file `config`.
    pub fn of(config: &Path) -> std::io::Result<Confinement> {
        let folder = match config.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        Ok(Confinement {
            config: config.to_path_buf(),
            root: std::fs::canonicalize(folder)?,
        })
    }

    /// An error unless `path` (the file's `field`) resolves inside the folder.
    pub fn check(&self, field: &str, path: &Path) -> Result<(), String> {
        match resolve(path) {
            Some(p) if p.starts_with(&self.root) => Ok(()),
            _ => Err(format!(
                "{}: {field} `{}` is outside the folder that holds pkadvisor.toml ({}), symbolic links resolved; a pull request can change that file, so its paths must stay in its folder: move the file into it, or pass --allow-outside-config-dir to allow it",
                crate::small_file::quote(&self.config.display().to_string(), 1000),
                crate::small_file::quote(&path.display().to_string(), 1000),
                crate::small_file::quote(&self.root.display().to_string(), 1000)
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
                "{}: ops `{}` is outside the folder that holds pkadvisor.toml",
                root.join("pkadvisor.toml").display(),
                root.join("link").display()
            )),
            "{e}"
        );
    }
}
