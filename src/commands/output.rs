//! The one output writer of every subcommand: the rendered text to `-o FILE`, or to the output
//! stream (standard output). Files are replaced whole: the text goes to a temporary file in the
//! same folder, which is renamed over the target, so a failed write (a full disk, a killed run)
//! leaves the old file or none, never a truncated report.

use std::io::Write;
use std::path::Path;

use anyhow::Context;

/// Writes `text` to `path` when given (`what` names it in the error: "report", "profile"),
/// else to `out`.
pub fn write(
    path: Option<&Path>,
    text: &str,
    what: &str,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    match path {
        Some(path) => replace_file(path, text.as_bytes())
            .with_context(|| format!("cannot write the {what} to {}", path.display()))?,
        None => {
            out.write_all(text.as_bytes())?;
            out.flush()?;
        }
    }
    Ok(())
}

/// Whether `a` is one of `others` as a file: the same (device, inode) on Unix, so a symbolic
/// or hard link is the file under another name; else the same canonical path. Files that do not
/// exist are no file.
pub fn same_file<'a>(a: &Path, mut others: impl Iterator<Item = &'a Path>) -> bool {
    #[cfg(unix)]
    let id = |p: &Path| {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()))
    };
    #[cfg(not(unix))]
    let id = |p: &Path| std::fs::canonicalize(p).ok();
    id(a).is_some_and(|target| others.any(|o| id(o).as_ref() == Some(&target)))
}

/// An error when `path` (written by `flag`) is one of the files the run reads, those found by
/// walking a folder included: the command line check (`cli`) sees only the names given.
pub fn refuse_input(
    flag: &str,
    path: Option<&Path>,
    inputs: &[crate::ingest::InputSource],
) -> anyhow::Result<()> {
    if let Some(p) = path {
        if let Some(i) = inputs.iter().find(|i| {
            i.path
                .as_deref()
                .is_some_and(|q| same_file(p, std::iter::once(q)))
        }) {
            anyhow::bail!(
                "{flag} {}: that is the input {}; writing there would destroy it",
                crate::small_file::quote(&p.display().to_string(), 1000),
                crate::small_file::quote(&i.display, 1000)
            );
        }
    }
    Ok(())
}

/// The mode of every file written: read-write for the owner, readable by others (less the
/// umask), never executable, whatever file or link was there before.
#[cfg(unix)]
pub const FILE_MODE: u32 = 0o644;

/// Replaces `path` with `bytes` through a temporary file in the target's folder and a rename,
/// so a new file with [`FILE_MODE`] takes the name: a symbolic link at `path` is replaced, never
/// written through (a link committed as `pkadvisor.sarif` pointing at an executable on `PATH`
/// used to have the executable overwritten and kept executable). A device or FIFO named as such
/// (`/dev/null`, `/dev/stdout`, `/dev/fd/1`, a named pipe) is written in place: renaming over it
/// would replace the device itself. Under CI a path in the working tree whose folder leads out of
/// it through a link, or into `.git/`, is refused ([`crate::ci::confine::output_in_ci`]).
pub fn replace_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if crate::ci::confine::under_ci() {
        crate::ci::confine::output_in_ci(path)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::PermissionDenied, e))?;
    }
    let special = std::fs::symlink_metadata(path).is_ok_and(|m| {
        let t = m.file_type();
        !t.is_file() && !t.is_dir() && !t.is_symlink()
    });
    if special || names_a_device(path) {
        return std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(path)?
            .write_all(bytes);
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".pkadvisor-").suffix(".tmp");
    // tempfile's own default, 0600, would hide a published report from the web server.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(FILE_MODE));
    let mut tmp = builder.tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Whether `path` is the system's name of a device or stream (`/dev/stdout`, `/dev/fd/1`,
/// `/proc/self/fd/1`): links the system owns, which a pull request cannot plant.
fn names_a_device(path: &Path) -> bool {
    path.starts_with("/dev") || path.starts_with("/proc/self/fd")
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_link_is_replaced_not_written_through_and_a_device_written_in_place() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        // The victim: an executable a pull request links `pkadvisor.sarif` to.
        let victim = dir.path().join("pip");
        std::fs::write(&victim, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o755)).unwrap();
        let link = dir.path().join("pkadvisor.sarif");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        replace_file(&link, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "#!/bin/sh\n");
        let mode = std::fs::metadata(&victim).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o755, "the victim untouched");
        let m = std::fs::symlink_metadata(&link).unwrap();
        assert!(m.is_file(), "the link replaced by a file");
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "new");
        // A fixed mode, whatever was there: never executable, never group- or world-writable.
        assert_eq!(
            m.permissions().mode() & 0o133,
            0,
            "{:o}",
            m.permissions().mode()
        );
        std::fs::set_permissions(&link, std::fs::Permissions::from_mode(0o777)).unwrap();
        replace_file(&link, b"again").unwrap();
        let mode = std::fs::metadata(&link).unwrap().permissions().mode();
        assert_eq!(mode & 0o133, 0, "{mode:o}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
        // Renaming onto a folder fails; the temporary file is gone, the folder untouched.
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        assert!(replace_file(&sub, b"x").is_err());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
        // A device: written, not replaced.
        replace_file(Path::new("/dev/null"), b"x").unwrap();
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device());
    }
}
