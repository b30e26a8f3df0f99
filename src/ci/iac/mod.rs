//! Reads a container's partition key from infrastructure code: Bicep, ARM templates (JSON) and
//! Terraform's `azurerm_cosmosdb_sql_container`. Returns the key as a candidate spec with the
//! file and line it was declared at, so findings can point there.
//!
//! Each format has a real reader (arm.rs: serde_json; terraform.rs: hcl-edit; bicep.rs: a
//! tokenizer that knows strings, comments and expressions), each one pass over the text. They
//! report what a container declares as written (`Declared`); this module chooses the
//! container and reads the key literally: a path, kind or version that is a parameter, variable
//! or any other expression is refused with the file, line and the `--key` fix, never guessed.

mod arm;
mod bicep;
mod bicep_tokens;
mod paths;
mod terraform;

use std::path::Path;

/// A partition key found in infrastructure code.
#[derive(Debug, Clone, PartialEq)]
pub struct IacKey {
    /// The key as a candidate spec (`/a`, or `/a>/b` for MultiHash; segments the candidate
    /// grammar would read as operators are quoted: `/"a+"/b`).
    pub spec: String,
    /// The paths as declared.
    pub paths: Vec<String>,
    /// `Hash` or `MultiHash`.
    pub kind: String,
    /// Hash version (1 or 2).
    pub version: u8,
    /// The file.
    pub file: String,
    /// 1-based line of the paths.
    pub line: u64,
    /// The container's name, when the file says it.
    pub container: Option<String>,
}

/// What went wrong reading the key.
#[derive(Debug, thiserror::Error)]
pub enum IacError {
    /// The file cannot be read.
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
    /// No container with a partition key.
    #[error("{0}: no Cosmos DB container partition key found (looked for Bicep and ARM resources of type Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers with a partitionKey, Terraform azurerm_cosmosdb_sql_container with partition_key_paths / partition_key_path)")]
    NotFound(String),
    /// Several containers and no `--container`.
    #[error("{file}: {count} containers declare a partition key ({names}); choose one with --container NAME")]
    Ambiguous {
        /// The file.
        file: String,
        /// How many.
        count: usize,
        /// Their names.
        names: String,
    },
    /// `--container` names none of them.
    #[error("{file}: no container named `{name}` (found: {names})")]
    NoSuchContainer {
        /// The file.
        file: String,
        /// The name asked for.
        name: String,
        /// The names found.
        names: String,
    },
    /// The declaration is not usable.
    #[error("{0}:{1}: {2}")]
    Invalid(String, u64, String),
}

/// A value as the file writes it.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Lit {
    /// A string literal, unescaped.
    Str(String),
    /// An integer literal as written (digits only).
    Int(String),
    /// Anything else: a parameter, variable, function call, interpolated string, a number
    /// that is not an integer...
    Expr,
}

/// One value of a declaration: what it is, how it is written, and where.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Field {
    pub lit: Lit,
    /// The value as written (shown in refusals).
    pub text: String,
    /// 1-based line.
    pub line: u64,
}

/// A container's paths as declared.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Paths {
    /// A list, each element as written.
    List(Vec<Field>),
    /// Not a list pkadvisor can read: `what` names it ("the partition key paths are").
    Expr { what: &'static str, text: String },
}

/// What one container resource declares, before it is checked.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Declared {
    pub container: Option<String>,
    /// 1-based line of the paths (or of what stands for them).
    pub line: u64,
    pub paths: Paths,
    pub kind: Option<Field>,
    pub version: Option<Field>,
}

/// Byte offsets of the line ends of a text, to turn offsets into line numbers by binary search
/// (one pass to build, so a file of many containers stays linear).
pub(super) struct Lines(Vec<usize>);

impl Lines {
    pub fn new(text: &str) -> Lines {
        Lines(memchr::memchr_iter(b'\n', text.as_bytes()).collect())
    }

    /// The 1-based line holding byte `offset`.
    pub fn line(&self, offset: usize) -> u64 {
        self.0.partition_point(|&n| n < offset) as u64 + 1
    }
}

/// A string from the file, made safe and short for an error message: control characters (and
/// bidi overrides) escaped, at most 80 characters.
pub(super) fn shown(text: &str) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == 80 {
            out.push('…');
            break;
        }
        if c.is_control()
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

const KEY_FIX: &str =
    "which pkadvisor cannot evaluate; pass the key with --key (e.g. --key /tenantId)";

/// The declared partition key kind (`Hash` when none is declared), or the line and message of
/// what is wrong with it.
fn declared_kind(kind: Option<&Field>) -> Result<String, (u64, String)> {
    let Some(f) = kind else {
        return Ok("Hash".to_string());
    };
    match &f.lit {
        Lit::Str(k) if k == "Hash" || k == "MultiHash" => Ok(k.clone()),
        _ => {
            let range = matches!(&f.lit, Lit::Str(k) if k.eq_ignore_ascii_case("range"));
            Err((
                f.line,
                format!(
                    "the partition key kind must be Hash or MultiHash, found `{}`{}",
                    shown(&f.text),
                    if range {
                        " (Range partitioning is not a Cosmos DB NoSQL container key)"
                    } else {
                        ""
                    }
                ),
            ))
        }
    }
}

/// The declared hash version (2 when none is declared), or the line and message of what is
/// wrong with it.
fn declared_version(version: Option<&Field>) -> Result<u8, (u64, String)> {
    let Some(f) = version else {
        return Ok(2);
    };
    match &f.lit {
        Lit::Int(v) if v == "1" => Ok(1),
        Lit::Int(v) if v == "2" => Ok(2),
        _ => Err((
            f.line,
            format!(
                "the hash version must be 1 or 2 (an integer), found `{}`",
                shown(&f.text)
            ),
        )),
    }
}

/// Checks one declaration and reads its key.
fn finish(d: Declared, file: &str) -> Result<IacKey, IacError> {
    let invalid = |line: u64, msg: String| IacError::Invalid(file.to_string(), line, msg);
    let fields = match d.paths {
        Paths::Expr { what, text } => {
            return Err(invalid(
                d.line,
                format!("{what} the expression `{}`, {KEY_FIX}", shown(&text)),
            ))
        }
        Paths::List(fields) => fields,
    };
    let mut declared = Vec::with_capacity(fields.len());
    for f in &fields {
        match &f.lit {
            Lit::Str(s) => declared.push(s.clone()),
            _ => {
                return Err(invalid(
                    f.line,
                    format!(
                        "the partition key path is the expression `{}`, {KEY_FIX}",
                        shown(&f.text)
                    ),
                ))
            }
        }
    }
    if declared.is_empty() || declared.len() > 3 {
        return Err(invalid(
            d.line,
            format!(
                "a partition key needs 1 to 3 paths, found {}",
                declared.len()
            ),
        ));
    }
    let kind = declared_kind(d.kind.as_ref()).map_err(|(line, msg)| invalid(line, msg))?;
    let version = declared_version(d.version.as_ref()).map_err(|(line, msg)| invalid(line, msg))?;
    if declared.len() > 1 && kind != "MultiHash" {
        return Err(invalid(
            d.line,
            format!("{} paths need kind MultiHash, found {kind}", declared.len()),
        ));
    }
    if kind == "MultiHash" && version != 2 {
        let line = d.version.as_ref().map_or(d.line, |f| f.line);
        return Err(invalid(
            line,
            format!("kind MultiHash needs hash version 2, found {version}"),
        ));
    }
    let spec = paths::spec(&declared).map_err(|msg| invalid(d.line, msg))?;
    Ok(IacKey {
        spec,
        paths: declared,
        kind,
        version,
        file: file.to_string(),
        line: d.line,
        container: d.container,
    })
}

/// Finds the container's key in `path` (format from the extension: `.json` ARM, `.tf`
/// Terraform, anything else Bicep), choosing by `container` name when several are declared.
pub fn read_key(path: &Path, container: Option<&str>) -> Result<IacKey, IacError> {
    let file = path.display().to_string();
    let text =
        crate::small_file::read_to_string(path).map_err(|e| IacError::Io(file.clone(), e))?;
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    key_in(&text, file, ext, container)
}

/// [`read_key`] on the text of `file`, whose extension is `ext`.
fn key_in(
    text: &str,
    file: String,
    ext: &str,
    container: Option<&str>,
) -> Result<IacKey, IacError> {
    // A byte order mark (Windows editors write one) is not part of the text.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let found = match ext {
        "json" => arm::read(text, &file)?,
        "tf" => terraform::read(text, &file)?,
        _ => bicep::read(text, &file)?,
    };
    let names = || {
        found
            .iter()
            .map(|d| d.container.as_deref().map_or("?".into(), shown))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let chosen = match (container, found.len()) {
        (_, 0) => return Err(IacError::NotFound(file)),
        (None, 1) => found[0].clone(),
        (None, n) => {
            return Err(IacError::Ambiguous {
                file,
                count: n,
                names: names(),
            })
        }
        (Some(name), _) => found
            .iter()
            .find(|d| d.container.as_deref() == Some(name))
            .cloned()
            .ok_or_else(|| IacError::NoSuchContainer {
                file: file.clone(),
                name: shown(name),
                names: names(),
            })?,
    };
    finish(chosen, &file)
}

#[cfg(test)]
mod tests;
