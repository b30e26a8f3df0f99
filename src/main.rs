//! The `pkadvisor` binary: parse arguments → validate into a Config → run → exit code.

use clap::Parser;
use pkadvisor::{cli, is_broken_pipe, run, EXIT_BAD_INPUT, EXIT_OK};

fn main() {
    let args = cli::Args::parse();
    let code = match cli::Config::try_from(args) {
        Err(e) => {
            eprintln!(
                "pkadvisor: {}",
                pkadvisor::neutralise::terminal_lines(&e.to_string())
            );
            EXIT_BAD_INPUT
        }
        Ok(config) => {
            // A broken pipe ends other subcommands quietly; check answers with its verdict
            // (commands::check), so one that ends here had none: an error.
            let gate = matches!(config, cli::Config::Check(_));
            match run(config) {
                Ok(code) => code,
                Err(e) if is_broken_pipe(&e) && !gate => EXIT_OK,
                Err(e) => {
                    eprintln!(
                        "pkadvisor: {}",
                        pkadvisor::neutralise::terminal_lines(&format!("{e:#}"))
                    );
                    EXIT_BAD_INPUT
                }
            }
        }
    };
    std::process::exit(code);
}
