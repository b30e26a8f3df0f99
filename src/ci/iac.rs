//! Reads a container's partition key from infrastructure code: Bicep, ARM templates (JSON) and
//! Terraform's `azurerm_cosmosdb_sql_container`. Returns the key as a candidate spec with the
//! file and line it was declared at, so findings can point there.

use std::path::Path;

/// A partition key found in infrastructure code.
#[derive(Debug, Clone, PartialEq)]
pub struct IacKey {
    /// The key as a candidate spec (`/a`, or `/a>/b` for MultiHash).
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
    #[error("{0}: no Cosmos DB container partition key found (looked for Bicep `partitionKey`, ARM \"partitionKey\", Terraform partition_key_paths / partition_key_path)")]
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

/// Quoted strings in `text` (single or double quotes).
fn quoted(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\'' || c == '"' {
            if let Some(end) = text[i + 1..].find(c) {
                out.push(text[i + 1..i + 1 + end].to_string());
                while chars.peek().is_some_and(|(j, _)| *j <= i + 1 + end) {
                    chars.next();
                }
            }
        }
    }
    out
}

/// The text of the bracketed list starting at or after `from` (may span lines), and the line of
/// its opening bracket.
fn bracket_list(lines: &[&str], from: usize, col: usize) -> Option<(String, usize)> {
    let mut text = String::new();
    let mut started = false;
    for (i, line) in lines.iter().enumerate().skip(from) {
        let segment = if i == from { &line[col..] } else { line };
        for c in segment.chars() {
            if c == '[' {
                started = true;
                continue;
            }
            if started {
                if c == ']' {
                    return Some((text, from));
                }
                text.push(c);
            }
        }
        text.push('\n');
    }
    None
}

impl IacKey {
    /// A key declared at 0-based line `at` of `file`.
    fn declared(
        paths: Vec<String>,
        kind: String,
        version: u8,
        file: &str,
        at: usize,
        container: Option<String>,
    ) -> IacKey {
        IacKey {
            spec: paths.join(">"),
            paths,
            kind,
            version,
            file: file.to_string(),
            line: at as u64 + 1,
            container,
        }
    }
}

fn value_after<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let i = line.find(key)?;
    let rest = &line[i + key.len()..];
    let rest = rest.trim_start().strip_prefix([':', '='])?;
    Some(rest.trim())
}

/// Bicep: `partitionKey: { paths: [ '/a' ], kind: 'Hash', version: 2 }`; the container name from
/// the nearest `name:` above within the resource.
fn bicep(text: &str, file: &str) -> Vec<IacKey> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(pos) = line.find("partitionKey") else {
            continue;
        };
        // Look ahead for paths/kind/version until the block closes (bounded).
        let mut paths = None;
        let mut kind = "Hash".to_string();
        let mut version = 2u8;
        let mut depth = 0i32;
        for (j, l) in lines.iter().enumerate().skip(i).take(40) {
            let seg = if j == i { &l[pos..] } else { l };
            if let Some(k) = seg.find("paths") {
                if paths.is_none() {
                    if let Some((list, at)) =
                        bracket_list(&lines, j, if j == i { pos + k } else { k })
                    {
                        paths = Some((quoted(&list), at));
                    }
                }
            }
            if let Some(v) = value_after(seg, "kind") {
                if let Some(q) = quoted(v).into_iter().next() {
                    kind = q;
                }
            }
            if let Some(v) = value_after(seg, "version") {
                version = v
                    .trim_matches(|c: char| !c.is_ascii_digit())
                    .parse()
                    .unwrap_or(2);
            }
            depth += seg.matches('{').count() as i32 - seg.matches('}').count() as i32;
            if j > i && depth <= 0 {
                break;
            }
        }
        let Some((paths, at)) = paths else { continue };
        let container = lines[..i]
            .iter()
            .rev()
            .take(30)
            .find_map(|l| {
                value_after(l.trim_start(), "name").filter(|_| l.trim_start().starts_with("name"))
            })
            .and_then(|v| quoted(v).into_iter().next());
        out.push(IacKey::declared(paths, kind, version, file, at, container));
    }
    out
}

/// ARM JSON: every object with a `partitionKey` object holding `paths`.
fn arm(text: &str, file: &str) -> Result<Vec<IacKey>, IacError> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        IacError::Invalid(file.to_string(), e.line() as u64, format!("not JSON: {e}"))
    })?;
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    fn walk(
        v: &serde_json::Value,
        name: Option<&str>,
        found: &mut Vec<(serde_json::Value, Option<String>)>,
    ) {
        match v {
            serde_json::Value::Object(m) => {
                let here = m
                    .get("name")
                    .and_then(|n| n.as_str())
                    .or(m.get("id").and_then(|n| n.as_str()))
                    .or(name);
                if let Some(pk) = m.get("partitionKey") {
                    if pk.get("paths").is_some() {
                        found.push((pk.clone(), here.map(str::to_string)));
                    }
                }
                for c in m.values() {
                    walk(c, here, found);
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|c| walk(c, name, found)),
            _ => {}
        }
    }
    walk(&v, None, &mut found);
    let mut search_from = 0;
    Ok(found
        .into_iter()
        .map(|(pk, container)| {
            let paths: Vec<String> = pk["paths"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|p| p.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            let line = lines
                .iter()
                .enumerate()
                .skip(search_from)
                .find(|(_, l)| l.contains("\"partitionKey\""))
                .map(|(i, _)| i)
                .unwrap_or(0);
            search_from = line + 1;
            // ARM names look like "[concat(parameters('account'), '/db/orders')]": keep the
            // last path segment when there is one.
            let container = container.map(|n| {
                n.trim_end_matches([')', ']', '\''])
                    .rsplit('/')
                    .next()
                    .unwrap_or(&n)
                    .to_string()
            });
            IacKey::declared(
                paths,
                pk["kind"].as_str().unwrap_or("Hash").to_string(),
                pk["version"].as_u64().unwrap_or(2) as u8,
                file,
                line,
                container,
            )
        })
        .collect())
}

/// Terraform: `resource "azurerm_cosmosdb_sql_container" "x" { name = "orders"
/// partition_key_paths = ["/a"] partition_key_kind = "MultiHash" partition_key_version = 2 }`
/// (older providers: `partition_key_path = "/a"`).
fn terraform(text: &str, file: &str) -> Vec<IacKey> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !(lines[i].contains("resource") && lines[i].contains("azurerm_cosmosdb_sql_container")) {
            i += 1;
            continue;
        }
        let mut depth = 0i32;
        let (mut name, mut paths, mut kind, mut version) = (None, None, "Hash".to_string(), 2u8);
        let mut j = i;
        while j < lines.len() {
            let l = lines[j].trim();
            depth += l.matches('{').count() as i32 - l.matches('}').count() as i32;
            if l.starts_with("name") {
                name = value_after(l, "name").and_then(|v| quoted(v).into_iter().next());
            } else if l.starts_with("partition_key_paths") {
                let col = lines[j].find("partition_key_paths").unwrap_or(0);
                if let Some((list, at)) = bracket_list(&lines, j, col) {
                    paths = Some((quoted(&list), at));
                }
            } else if l.starts_with("partition_key_path") {
                paths = value_after(l, "partition_key_path").map(|v| (quoted(v), j));
            } else if l.starts_with("partition_key_kind") {
                if let Some(q) =
                    value_after(l, "partition_key_kind").and_then(|v| quoted(v).into_iter().next())
                {
                    kind = q;
                }
            } else if l.starts_with("partition_key_version") {
                version = value_after(l, "partition_key_version")
                    .and_then(|v| v.trim_matches('"').parse().ok())
                    .unwrap_or(2);
            }
            if j > i && depth <= 0 {
                break;
            }
            j += 1;
        }
        if let Some((paths, at)) = paths {
            out.push(IacKey::declared(paths, kind, version, file, at, name));
        }
        i = j + 1;
    }
    out
}

/// Finds the container's key in `path` (format from the extension: `.bicep`, `.json`, `.tf`),
/// choosing by `container` name when several are declared.
pub fn read_key(path: &Path, container: Option<&str>) -> Result<IacKey, IacError> {
    let file = path.display().to_string();
    let text =
        crate::small_file::read_to_string(path).map_err(|e| IacError::Io(file.clone(), e))?;
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let keys = match ext {
        "json" => arm(&text, &file)?,
        "tf" => terraform(&text, &file),
        _ => bicep(&text, &file),
    };
    let names = || {
        keys.iter()
            .map(|k| k.container.clone().unwrap_or_else(|| "?".into()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let chosen = match (container, keys.len()) {
        (_, 0) => return Err(IacError::NotFound(file)),
        (None, 1) => keys[0].clone(),
        (None, n) => {
            return Err(IacError::Ambiguous {
                file,
                count: n,
                names: names(),
            })
        }
        (Some(name), _) => keys
            .iter()
            .find(|k| k.container.as_deref() == Some(name))
            .cloned()
            .ok_or_else(|| IacError::NoSuchContainer {
                file: file.clone(),
                name: name.to_string(),
                names: names(),
            })?,
    };
    if chosen.paths.is_empty() || chosen.paths.len() > 3 {
        return Err(IacError::Invalid(
            file,
            chosen.line,
            format!(
                "a partition key needs 1 to 3 paths, found {}",
                chosen.paths.len()
            ),
        ));
    }
    if chosen.paths.len() > 1 && chosen.kind != "MultiHash" {
        return Err(IacError::Invalid(
            file,
            chosen.line,
            format!(
                "{} paths need kind MultiHash, found {}",
                chosen.paths.len(),
                chosen.kind
            ),
        ));
    }
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bicep_multihash_over_lines() {
        let text = "resource c 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@2024-05-15' = {\n  name: 'orders'\n  properties: {\n    resource: {\n      id: 'orders'\n      partitionKey: {\n        paths: [\n          '/tenantId'\n          '/userId'\n        ]\n        kind: 'MultiHash'\n        version: 2\n      }\n    }\n  }\n}\n";
        let k = bicep(text, "main.bicep");
        assert_eq!(k.len(), 1);
        assert_eq!(k[0].spec, "/tenantId>/userId");
        assert_eq!(
            (k[0].kind.as_str(), k[0].version, k[0].line),
            ("MultiHash", 2, 7)
        );
        assert_eq!(k[0].container.as_deref(), Some("orders"));
    }

    #[test]
    fn terraform_old_and_new_attributes() {
        let text = "resource \"azurerm_cosmosdb_sql_container\" \"a\" {\n  name = \"events\"\n  partition_key_paths = [\"/deviceId\"]\n  partition_key_version = 2\n}\nresource \"azurerm_cosmosdb_sql_container\" \"b\" {\n  name = \"legacy\"\n  partition_key_path = \"/id\"\n  partition_key_version = 1\n}\n";
        let k = terraform(text, "main.tf");
        assert_eq!(k.len(), 2);
        assert_eq!((k[0].spec.as_str(), k[0].line), ("/deviceId", 3));
        assert_eq!((k[1].spec.as_str(), k[1].version, k[1].line), ("/id", 1, 8));
        assert_eq!(k[1].container.as_deref(), Some("legacy"));
    }

    #[test]
    fn arm_json_with_line() {
        let text = "{\n  \"resources\": [\n    {\n      \"name\": \"[concat(parameters('a'), '/db/orders')]\",\n      \"properties\": {\n        \"resource\": {\n          \"partitionKey\": { \"paths\": [\"/customerId\"], \"kind\": \"Hash\", \"version\": 2 }\n        }\n      }\n    }\n  ]\n}\n";
        let k = arm(text, "azuredeploy.json").unwrap();
        assert_eq!(k.len(), 1);
        assert_eq!((k[0].spec.as_str(), k[0].line), ("/customerId", 7));
        assert_eq!(k[0].container.as_deref(), Some("orders"));
    }
}
