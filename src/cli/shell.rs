//! Arguments of `pkadvisor completions` (and `pkadvisor man`, which takes none).

use clap::Args;

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
