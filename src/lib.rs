//! pkadvisor: choose an Azure Cosmos DB partition key from sample documents, before you create
//! the container, and keep checking it in CI.
//!
//! Data flows one way, and the modules are its stages (`docs/architecture.md`): [`ingest`]
//! frames records → [`keys`] extracts key values → [`stats`] accumulates per logical partition
//! (in parallel, mergeable) → [`estimate`] projects the sample to production → [`cosmos`] models
//! the service and [`workload`] the traffic → [`advise`] turns the numbers into findings,
//! verdicts, a ranking and a recommendation, all held in [`model`] → [`report`] renders them.
//! [`analysis`] runs those stages for `analyze`, [`ci`] judges the gate for `check`,
//! [`commands`] holds one runner per subcommand and [`cli`] turns arguments into their options.

#![deny(missing_docs)]

pub mod advise;
pub mod analysis;
pub mod ci;
pub mod cli;
pub mod commands;
pub mod cosmos;
pub mod estimate;
pub mod fmt;
pub mod ingest;
pub mod keys;
pub mod model;
pub mod neutralise;
pub mod observed;
pub mod ops;
pub mod pipeline;
pub mod profile;
pub mod progress;
pub mod report;
pub mod small_file;
pub mod sql;
pub mod stats;
#[cfg(test)]
pub(crate) mod testing;
pub mod timing;
pub mod workload;

use std::io::Write;

/// Exit code: success.
pub const EXIT_OK: i32 = 0;
/// Exit code: `pkadvisor check` found a policy failure.
pub const EXIT_POLICY: i32 = 1;
/// Exit code: bad input, bad usage or configuration.
pub const EXIT_BAD_INPUT: i32 = 2;

/// Runs a validated configuration, writing results to stdout; returns the exit code.
pub fn run(config: cli::Config) -> anyhow::Result<i32> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let code = match config {
        cli::Config::Analyze(cfg) => {
            commands::analyze::run(&cfg, &mut out)?;
            EXIT_OK
        }
        // The gate's code is its verdict's, whatever happened to stdout (commands::check).
        cli::Config::Check(cfg) => return commands::check::run(&cfg, &mut out),
        cli::Config::Epk(cfg) => {
            commands::epk::run(&cfg, &mut out)?;
            EXIT_OK
        }
        cli::Config::Completions(shell) => {
            cli::shell::completions(shell, &mut out)?;
            EXIT_OK
        }
        cli::Config::Man(req) => {
            cli::shell::man(&req, &mut out)?;
            EXIT_OK
        }
        cli::Config::Fields(cfg) => {
            commands::fields::run(&cfg, &mut out)?;
            EXIT_OK
        }
        cli::Config::Sql(req) => {
            commands::sql::run(&req, &mut out)?;
            EXIT_OK
        }
        cli::Config::Report(cfg) => {
            commands::report::run(&cfg, &mut out)?;
            EXIT_OK
        }
        cli::Config::WorkloadFromLogs(opts) => {
            commands::workload::run(&opts, &mut out)?;
            EXIT_OK
        }
    };
    out.flush()?;
    Ok(code)
}

/// True when an error chain ends in a broken pipe (e.g. `pkadvisor ... | head`): every
/// subcommand but `check` exits quietly with 0, as ripgrep does; `check` keeps its verdict.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
