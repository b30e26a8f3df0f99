//! DuckDB: the document is a JSON value; paths are JSON pointers (`/a/b`, `~0` for `~`, `~1` for
//! `/`), `json_type` tells a missing property (SQL NULL) from a JSON null ('NULL').

use super::{double_form, epoch_from_number, Dialect, SqlError};
use crate::keys::spec::KeyPath;

pub(super) struct DuckDb;

fn quote_ident(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

impl Dialect for DuckDb {
    fn doc(&self, json_column: Option<&str>) -> String {
        match json_column {
            Some(c) => format!("CAST(src.{} AS JSON)", quote_ident(c)),
            // The row as a struct: every column, NULL columns as JSON null.
            None => "CAST(to_json(src) AS JSON)".into(),
        }
    }

    fn bytes(&self, json_column: bool) -> String {
        if json_column {
            // Each match is a string literal (kept) or a whitespace run (dropped); RE2 is linear.
            r#"strlen(regexp_replace(CAST(doc AS VARCHAR), '("(?:[^"\\]|\\.)*")|[ \t\r\n]+', '\1', 'g'))"#.into()
        } else {
            "strlen(CAST(doc AS VARCHAR))".into()
        }
    }

    fn path_columns(&self, p: usize, path: &KeyPath) -> Result<Vec<(String, String)>, SqlError> {
        let pointer: String = path
            .segments
            .iter()
            .map(|s| format!("/{}", s.replace('~', "~0").replace('/', "~1")))
            .collect();
        Ok(vec![(
            format!("x{p}"),
            format!("json_extract(doc, {})", self.literal(&pointer)),
        )])
    }

    fn kind(&self, p: usize, _path: &KeyPath) -> String {
        format!(
            "(CASE WHEN x{p} IS NULL THEN 'u' ELSE CASE json_type(x{p}) WHEN 'NULL' THEN 'n' WHEN 'BOOLEAN' THEN 'b' WHEN 'VARCHAR' THEN 's' WHEN 'OBJECT' THEN 'c' WHEN 'ARRAY' THEN 'c' ELSE 'd' END END)"
        )
    }

    fn json_text(&self, p: usize) -> String {
        format!("CAST(x{p} AS VARCHAR)")
    }

    fn string_form(&self, p: usize) -> String {
        let d = format!("TRY_CAST(x{p} AS DOUBLE)");
        format!(
            "(CASE WHEN t{p} IN ('s', 'b') THEN json_extract_string(x{p}, '$') WHEN json_type(x{p}) IN ('BIGINT', 'UBIGINT') THEN CAST(x{p} AS VARCHAR) ELSE {} END)",
            double_form(&d, &format!("CAST({d} AS VARCHAR)"))
        )
    }

    fn epoch_seconds(&self, p: usize) -> String {
        let s = format!("json_extract_string(x{p}, '$')");
        let ts = format!(
            "TRY_CAST(CASE WHEN length({s}) = 10 THEN {s} || 'T00:00:00+00:00' WHEN regexp_matches({s}, '([Zz]|[+-][0-9][0-9]:?[0-9][0-9])$') THEN {s} ELSE {s} || '+00:00' END AS TIMESTAMPTZ)"
        );
        format!(
            "(CASE WHEN t{p} = 'd' THEN {} WHEN t{p} = 's' THEN CAST(FLOOR(epoch({ts})) AS BIGINT) END)",
            epoch_from_number(&format!("TRY_CAST(x{p} AS DOUBLE)"))
        )
    }

    fn literal(&self, s: &str) -> String {
        format!("'{}'", s.replace('\'', "''"))
    }

    fn json_quote(&self, e: &str) -> String {
        format!("CAST(to_json({e}) AS VARCHAR)")
    }

    fn explode(&self, specs: &[String]) -> String {
        let items: Vec<String> = specs
            .iter()
            .enumerate()
            .map(|(i, s)| {
                format!(
                    "{{'candidate': {}, 'key': k{i}, 'error': e{i}}}",
                    self.literal(s)
                )
            })
            .collect();
        format!(
            "FROM (\n  SELECT pk_bytes, pk_time, u.candidate AS candidate, u.key AS key, u.error AS error\n  FROM (SELECT pk_bytes, pk_time, UNNEST([{}]) AS u FROM keyed) AS per_doc\n) AS exploded",
            items.join(", ")
        )
    }

    fn date_from_days(&self, days: &str) -> String {
        format!("(DATE '1970-01-01' + {days})")
    }
}
