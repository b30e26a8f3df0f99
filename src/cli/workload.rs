//! Arguments of `pkadvisor workload`: derive a workload file from the service's logs.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::ConfigError;
use crate::commands::workload::FromLogsOptions;
use crate::observed::ObservedFilter;
use crate::workload::logs::LogsOptions;

/// `pkadvisor workload` subcommands.
#[derive(Debug, Args)]
pub struct WorkloadArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: WorkloadCommand,
}

/// `pkadvisor workload …`.
#[derive(Debug, Subcommand)]
pub enum WorkloadCommand {
    /// Derive a workload file from exports of CDBDataPlaneRequests and CDBQueryRuntimeStatistics.
    #[command(after_help = "Examples:
  pkadvisor workload from-logs requests.json queries.json -o workload.yaml
  pkadvisor workload from-logs export.csv --container shop/orders --region 'West Europe' -o w.yaml
  pkadvisor analyze sample.jsonl -c /customerId --workload workload.yaml

Exports: JSON from `az monitor log-analytics query -o json`, the portal's CSV, or the REST
API's {\"tables\": [...]}; resource-specific tables or AzureDiagnostics. The KQL, the settings to
turn on and what is inferred: docs/workload-from-logs.md.

Exit codes: 0 success; 2 bad input or usage (file, row and fix in the message).")]
    FromLogs(FromLogsArgs),
}

/// `pkadvisor workload from-logs` arguments.
#[derive(Debug, Args)]
pub struct FromLogsArgs {
    /// Export files (JSON, CSV or the REST shape; requests and queries in any mix of files).
    #[arg(value_name = "EXPORT", required = true, num_args = 1..)]
    pub files: Vec<PathBuf>,
    /// The container to read, as DATABASE/CONTAINER (needed when the exports hold several).
    #[arg(long, value_name = "DB/NAME")]
    pub container: Option<String>,
    /// The region to read (needed when the container's requests come from several).
    #[arg(long, value_name = "NAME")]
    pub region: Option<String>,
    /// Write the workload file here instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Validates `workload` arguments.
pub fn workload_config(a: WorkloadArgs) -> Result<FromLogsOptions, ConfigError> {
    let WorkloadCommand::FromLogs(a) = a.command;
    let container = a
        .container
        .as_deref()
        .map(super::container_arg)
        .transpose()?;
    if let Some(o) = &a.output {
        if super::is_an_input(o, &a.files) {
            return Err(ConfigError::Invalid(format!(
                "-o {}: that is one of the exports; writing there would destroy it",
                o.display()
            )));
        }
    }
    Ok(FromLogsOptions {
        logs: LogsOptions {
            files: a.files,
            filter: ObservedFilter {
                container,
                region: a.region,
            },
        },
        output: a.output,
    })
}
