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
        Ok(config) => match run(config) {
            Ok(code) => code,
            Err(e) if is_broken_pipe(&e) => EXIT_OK,
            Err(e) => {
                eprintln!(
                    "pkadvisor: {}",
                    pkadvisor::neutralise::terminal_lines(&format!("{e:#}"))
                );
                EXIT_BAD_INPUT
            }
        },
    };
    std::process::exit(code);
}
