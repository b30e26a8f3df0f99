//! `pkadvisor completions SHELL` and `pkadvisor man`: their arguments, and the script and page
//! generated from the same clap definition as the parser, so they cannot drift from it.

use std::io::Write;

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

/// Writes the man page (roff) of `pkadvisor`: options, the subcommands, version and exit
/// codes; each subcommand's full options are in `pkadvisor help SUBCOMMAND`.
pub fn man(out: &mut dyn Write) -> anyhow::Result<()> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(super::Args::command()).render(&mut buf)?;
    out.write_all(&buf)?;
    Ok(())
}
