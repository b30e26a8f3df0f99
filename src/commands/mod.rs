//! One thin runner per subcommand: each takes its validated options, runs its stage and writes
//! through the one output writer ([`output`]).

pub mod analyze;
pub mod check;
pub mod epk;
pub mod fields;
pub mod output;
pub mod report;
pub mod spool;
pub mod sql;
pub mod workload;
