//! `pkadvisor completions SHELL` and `pkadvisor man`: generated from the same clap definition
//! as the parser, so they cannot drift from it.

use std::io::Write;

use clap::CommandFactory;

use crate::cli::Args;

/// Writes the completion script for `shell`.
pub fn completions(shell: clap_complete::Shell, out: &mut dyn Write) -> anyhow::Result<()> {
    let mut cmd = Args::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "pkadvisor", &mut buf);
    out.write_all(&buf)?;
    Ok(())
}

/// Writes the man page (roff) of `pkadvisor`: options, the subcommands, version and exit
/// codes; each subcommand's full options are in `pkadvisor help SUBCOMMAND`.
pub fn man(out: &mut dyn Write) -> anyhow::Result<()> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(Args::command()).render(&mut buf)?;
    out.write_all(&buf)?;
    Ok(())
}
