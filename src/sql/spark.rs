//! Spark SQL (3.4+, ANSI mode on or off): the document is JSON text. `get_json_object` cannot
//! tell a missing property from a null one, so presence comes from `json_object_keys` of the
//! parent object, and the type from which `from_json` schema accepts the value.

use super::{double_form, epoch_from_number, Dialect, SqlError};
use crate::keys::spec::KeyPath;

pub(super) struct Spark;

fn backtick(s: &str) -> String {
    format!("`{}`", s.replace('`', "``"))
}

impl Spark {
    /// `$['a']['b']` for the first `n` segments.
    fn json_path(&self, path: &KeyPath, n: usize) -> String {
        let mut p = String::from("$");
        for s in &path.segments[..n] {
            p.push_str(&format!("['{s}']"));
        }
        self.literal(&p)
    }

    fn field_is(&self, p: usize, path: &KeyPath, ty: &str) -> String {
        let name = backtick(path.segments.last().expect("a path has a segment"));
        format!(
            "from_json(a{p}, {}).{name} IS NOT NULL",
            self.literal(&format!("struct<{name}:{ty}>"))
        )
    }
}

impl Dialect for Spark {
    fn doc(&self, json_column: Option<&str>) -> String {
        match json_column {
            Some(c) => format!("CAST(src.{} AS STRING)", backtick(c)),
            // NULL columns are left out, as Spark writes JSON: they are missing (Undefined).
            None => "to_json(struct(*))".into(),
        }
    }

    fn bytes(&self, json_column: bool) -> String {
        if json_column {
            // Each match is a string literal (kept) or a whitespace run (dropped); possessive
            // quantifiers keep Java's regex from recursing over long strings.
            format!(
                "octet_length(regexp_replace(doc, {}, '$1'))",
                self.literal(r#"("[^"\\]*+(?:\\.[^"\\]*+)*+")|[ \t\r\n]+"#)
            )
        } else {
            "octet_length(doc)".into()
        }
    }

    fn path_columns(&self, p: usize, path: &KeyPath) -> Result<Vec<(String, String)>, SqlError> {
        if let Some(bad) = path
            .segments
            .iter()
            .find(|s| s.contains(['\'', '[', ']', '\\']))
        {
            return Err(SqlError(format!(
                "path `{}`: Spark's JSON paths cannot address the property `{bad}` (it contains ' [ ] or \\); rename it in a view, or use --engine duckdb",
                path.text
            )));
        }
        let n = path.segments.len();
        let parent = if n == 1 {
            "doc".to_string()
        } else {
            format!("get_json_object(doc, {})", self.json_path(path, n - 1))
        };
        let name = path.segments.last().expect("a path has a segment");
        Ok(vec![
            (
                format!("x{p}"),
                format!("get_json_object(doc, {})", self.json_path(path, n)),
            ),
            (format!("a{p}"), parent.clone()),
            (
                format!("h{p}"),
                format!(
                    "COALESCE(array_contains(json_object_keys({parent}), {}), false)",
                    self.literal(name)
                ),
            ),
        ])
    }

    fn kind(&self, p: usize, path: &KeyPath) -> String {
        format!(
            "(CASE WHEN NOT h{p} THEN 'u' WHEN x{p} IS NULL THEN 'n' WHEN {} THEN 'b' WHEN {} AND x{p} RLIKE '^-?[0-9]' THEN 'd' WHEN {} OR {} THEN 'c' ELSE 's' END)",
            self.field_is(p, path, "boolean"),
            self.field_is(p, path, "double"),
            self.field_is(p, path, "map<string,string>"),
            self.field_is(p, path, "array<string>"),
        )
    }

    fn json_text(&self, p: usize) -> String {
        format!(
            "(CASE WHEN t{p} = 's' THEN {} WHEN t{p} = 'n' THEN 'null' ELSE x{p} END)",
            self.json_quote(&format!("x{p}"))
        )
    }

    fn string_form(&self, p: usize) -> String {
        let d = format!("TRY_CAST(x{p} AS DOUBLE)");
        format!(
            "(CASE WHEN t{p} IN ('s', 'b') THEN x{p} WHEN x{p} RLIKE '^-?[0-9]+$' THEN x{p} ELSE {} END)",
            double_form(&d, &format!("CAST({d} AS STRING)"))
        )
    }

    fn epoch_seconds(&self, p: usize) -> String {
        let s = format!("x{p}");
        let ts = format!(
            "TRY_CAST(CASE WHEN length({s}) = 10 THEN {s} || 'T00:00:00Z' WHEN {s} RLIKE '([Zz]|[+-][0-9][0-9]:?[0-9][0-9])$' THEN {s} ELSE {s} || 'Z' END AS TIMESTAMP)"
        );
        format!(
            "(CASE WHEN t{p} = 'd' THEN {} WHEN t{p} = 's' THEN unix_timestamp({ts}) END)",
            epoch_from_number(&format!("TRY_CAST(x{p} AS DOUBLE)"))
        )
    }

    fn literal(&self, s: &str) -> String {
        format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
    }

    fn json_quote(&self, e: &str) -> String {
        // to_json(array(s)) is `["…"]`; keep what is inside the brackets.
        format!("regexp_extract(to_json(array({e})), '^.(.*).$', 1)")
    }

    fn explode(&self, specs: &[String]) -> String {
        let items: Vec<String> = specs
            .iter()
            .enumerate()
            .map(|(i, s)| {
                format!(
                    "named_struct('candidate', {}, 'key', k{i}, 'error', e{i})",
                    self.literal(s)
                )
            })
            .collect();
        format!(
            "FROM keyed\nLATERAL VIEW inline(array({})) u AS candidate, key, error",
            items.join(", ")
        )
    }

    fn date_from_days(&self, days: &str) -> String {
        format!("date_add(DATE '1970-01-01', {days})")
    }
}
