//! `pkadvisor sql`: print the key-statistics query.

use std::io::Write;

use crate::sql::{generate, SqlRequest};

/// Writes the query for `req` to `out`.
pub fn run(req: &SqlRequest, out: &mut dyn Write) -> anyhow::Result<()> {
    out.write_all(generate(req)?.as_bytes())?;
    Ok(())
}
