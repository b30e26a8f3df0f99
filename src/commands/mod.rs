//! One module per subcommand: each takes its validated config and writes to the given output.

pub mod analyze;
pub mod check;
pub mod epk;
pub mod fields;
pub mod report;
pub mod sql;
