//! The integration tests, in one binary: each file below is a module, run against the built
//! `pkadvisor` binary through one command builder (`util::Test`). One binary links the crate
//! once instead of once per file (15 links cost minutes on two cores).

mod util;

mod check;
mod cli;
#[cfg(feature = "parquet")]
mod columnar;
mod corpus;
mod decisions;
mod distinct;
mod ejson;
mod equivalence;
mod from_logs;
mod gate_safety;
mod headline;
mod hostile;
mod memory;
mod mistakes;
mod msrv;
mod observed;
mod provisioning;
mod recommend;
mod report;
mod scale;
mod scenarios;
mod schema;
mod search;
mod shell;
mod slice;
mod snapshots;
mod time_first;
mod traps;
mod trust;
mod ux;
mod worked;
