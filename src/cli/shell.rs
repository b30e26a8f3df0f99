//! `pkadvisor completions SHELL` and `pkadvisor man`: their arguments, and the script and page
//! generated from the same clap definition as the parser, so they cannot drift from it.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, CommandFactory};

/// `pkadvisor completions` arguments.
#[derive(Debug, Args)]
#[command(
    after_help = "Install (bash):  pkadvisor completions bash > ~/.local/share/bash-completion/completions/pkadvisor
Install (zsh):   pkadvisor completions zsh > ~/.zfunc/_pkadvisor   (with fpath+=~/.zfunc)
Install (fish):  pkadvisor completions fish > ~/.config/fish/completions/pkadvisor.fish"
)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Writes the completion script for `shell`.
pub fn completions(shell: clap_complete::Shell, out: &mut dyn Write) -> anyhow::Result<()> {
    let mut cmd = super::Args::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "pkadvisor", &mut buf);
    out.write_all(&buf)?;
    Ok(())
}

/// The subcommands with a page of their own, `pkadvisor-NAME(1)`: every subcommand (a unit test
/// compares the list with the parser's), so the top page names only pages that exist.
pub const MAN_PAGES: [&str; 9] = [
    "analyze",
    "check",
    "epk",
    "report",
    "fields",
    "completions",
    "man",
    "sql",
    "workload",
];

/// `pkadvisor man` arguments.
#[derive(Debug, Args)]
#[command(
    after_help = "Install every page:  pkadvisor man --dir ~/.local/share/man/man1   \
(then: man pkadvisor, man pkadvisor-check)"
)]
pub struct ManArgs {
    /// Print this subcommand's page, pkadvisor-SUBCOMMAND(1), instead of pkadvisor(1).
    #[arg(value_name = "SUBCOMMAND", value_parser = clap::builder::PossibleValuesParser::new(MAN_PAGES))]
    pub page: Option<String>,
    /// Write every page into DIR instead: pkadvisor.1 and pkadvisor-SUBCOMMAND.1 for each
    /// subcommand (files of those names are replaced).
    #[arg(long, value_name = "DIR", conflicts_with = "page")]
    pub dir: Option<PathBuf>,
}

/// What `pkadvisor man` does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ManRequest {
    /// Print pkadvisor(1) (`None`) or one subcommand's page.
    Print(Option<String>),
    /// Write every page into this folder.
    Dir(PathBuf),
}

/// The request behind [`ManArgs`].
pub fn man_config(args: ManArgs) -> ManRequest {
    match args.dir {
        Some(dir) => ManRequest::Dir(dir),
        None => ManRequest::Print(args.page),
    }
}

/// The parser's definition as the pages describe it: without clap's `help` subcommand, which
/// has no page, and built, so each subcommand is named `pkadvisor-NAME`.
fn man_command() -> clap::Command {
    let mut cmd = super::Args::command().disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// Prints one man page (roff), or writes every page into a folder (`ManRequest::Dir`). The top
/// page lists the subcommands as `pkadvisor-NAME(1)`, each a page of its own here.
pub fn man(req: &ManRequest, out: &mut dyn Write) -> anyhow::Result<()> {
    let cmd = man_command();
    match req {
        ManRequest::Dir(dir) => {
            for page in pages(&cmd) {
                let mut buf = Vec::new();
                page.render(&mut buf)?;
                let path = dir.join(page.get_filename());
                std::fs::write(&path, buf).map_err(|e| {
                    anyhow::anyhow!(
                        "{}: cannot write the man page ({e}); give an existing, writable --dir",
                        path.display()
                    )
                })?;
            }
            Ok(())
        }
        ManRequest::Print(name) => {
            let page = match name {
                None => clap_mangen::Man::new(cmd),
                Some(name) => {
                    let sub = cmd
                        .find_subcommand(name)
                        .ok_or_else(|| anyhow::anyhow!("no subcommand `{name}`"))?;
                    clap_mangen::Man::new(sub.clone())
                }
            };
            let mut buf = Vec::new();
            page.render(&mut buf)?;
            out.write_all(&buf)?;
            Ok(())
        }
    }
}

/// pkadvisor(1) and one page per subcommand.
fn pages(cmd: &clap::Command) -> Vec<clap_mangen::Man> {
    let mut pages = vec![clap_mangen::Man::new(cmd.clone())];
    pages.extend(
        cmd.get_subcommands()
            .filter(|s| !s.is_hide_set())
            .map(|s| clap_mangen::Man::new(s.clone())),
    );
    pages
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_subcommand_has_a_page_and_no_page_is_extra() {
        let cmd = man_command();
        let mut names: Vec<&str> = cmd.get_subcommands().map(|s| s.get_name()).collect();
        let mut listed = MAN_PAGES.to_vec();
        names.sort_unstable();
        listed.sort_unstable();
        assert_eq!(names, listed);
        let files: Vec<String> = pages(&cmd).iter().map(|p| p.get_filename()).collect();
        assert_eq!(files[0], "pkadvisor.1");
        assert!(
            files.contains(&"pkadvisor-check.1".to_string()),
            "{files:?}"
        );
        assert_eq!(files.len(), 10);
    }
}
