//! Terraform, read with hcl-edit: every top-level `resource "azurerm_cosmosdb_sql_container"`
//! block, its `name`, `partition_key_paths` (or the older `partition_key_path`),
//! `partition_key_kind` and `partition_key_version` attributes, matched by exact name (a
//! `name_prefix` is not the `name`). hcl-edit keeps each expression's byte span: its line, and
//! the text a refusal shows.

use hcl_edit::expr::Expression;
use hcl_edit::structure::Body;
use hcl_edit::Span;

use super::{shown, Declared, Field, IacError, Lines, Lit, Paths};

const CONTAINER: &str = "azurerm_cosmosdb_sql_container";

struct Reader<'t> {
    text: &'t str,
    lines: Lines,
}

impl Reader<'_> {
    fn start(&self, e: &Expression) -> usize {
        e.span().map_or(0, |s| s.start)
    }

    fn field(&self, e: &Expression) -> Field {
        let span = e.span().unwrap_or(0..0);
        let text = self.text.get(span.clone()).unwrap_or("").to_string();
        let lit = match e {
            Expression::String(s) => Lit::Str(s.value().to_string()),
            Expression::Number(_)
                if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) =>
            {
                Lit::Int(text.clone())
            }
            _ => Lit::Expr,
        };
        Field {
            lit,
            text,
            line: self.lines.line(span.start),
        }
    }

    /// What one container block declares, when it declares a key.
    fn container(&self, body: &Body) -> Result<Option<Declared>, String> {
        let attr = |key: &str| body.get_attribute(key).map(|a| &a.value);
        let (paths, legacy) = (attr("partition_key_paths"), attr("partition_key_path"));
        let (at, paths) = match (paths, legacy) {
            (Some(_), Some(_)) => {
                return Err(
                    "declares both partition_key_paths and partition_key_path; keep one".into(),
                )
            }
            (None, None) => return Ok(None),
            (None, Some(p)) => (p, Paths::List(vec![self.field(p)])),
            (Some(p), None) => match p {
                Expression::Array(items) => (
                    p,
                    Paths::List(items.iter().map(|i| self.field(i)).collect()),
                ),
                _ => (
                    p,
                    Paths::Expr {
                        what: "the partition key paths are",
                        text: self.field(p).text,
                    },
                ),
            },
        };
        let container = attr("name").and_then(|n| match n {
            Expression::String(s) => Some(s.value().to_string()),
            _ => None,
        });
        let version = attr("partition_key_version").map(|v| {
            let mut f = self.field(v);
            // Terraform converts the string "2" to the number the attribute takes.
            if let Lit::Str(s) = &f.lit {
                if s == "1" || s == "2" {
                    f.lit = Lit::Int(s.clone());
                }
            }
            f
        });
        Ok(Some(Declared {
            container,
            line: self.lines.line(self.start(at)),
            paths,
            kind: attr("partition_key_kind").map(|k| self.field(k)),
            version,
        }))
    }
}

/// Every `azurerm_cosmosdb_sql_container` of a Terraform file.
pub(super) fn read(text: &str, file: &str) -> Result<Vec<Declared>, IacError> {
    let body = hcl_edit::parser::parse_body(text).map_err(|e| {
        IacError::Invalid(
            file.to_string(),
            e.location().line() as u64,
            format!("not valid HCL: {}", shown(e.message())),
        )
    })?;
    let reader = Reader {
        text,
        lines: Lines::new(text),
    };
    let mut out = Vec::new();
    for block in body.blocks() {
        let is_container = block.ident.as_str() == "resource"
            && block
                .labels
                .first()
                .is_some_and(|l| l.as_str() == CONTAINER);
        if !is_container {
            continue;
        }
        let at = reader.lines.line(block.span().map_or(0, |s| s.start));
        match reader.container(&block.body) {
            Ok(Some(d)) => out.push(d),
            Ok(None) => {}
            Err(msg) => return Err(IacError::Invalid(file.to_string(), at, msg)),
        }
    }
    Ok(out)
}
