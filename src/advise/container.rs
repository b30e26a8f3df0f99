//! A ready-to-paste container definition for a candidate: the `partitionKey` JSON, an Azure CLI
//! command, a Bicep snippet and, for keys the application must compute (synthetic, hashed,
//! time-bucketed), the expression it computes on every write.

use serde_json::json;

use crate::keys::spec::{Candidate, Part, TimeUnit};

/// The definition's parts.
#[derive(Debug, Clone, PartialEq)]
pub struct Definition {
    /// `{"partitionKey": {"paths": […], "kind": "Hash"|"MultiHash", "version": 2}}`.
    pub partition_key: serde_json::Value,
    /// `az cosmosdb sql container create …`.
    pub az_cli: String,
    /// A Bicep container resource.
    pub bicep: String,
    /// What the application computes, when a level is not one stored path.
    pub expression: Option<String>,
}

/// Name of the property holding a computed level: `/partitionKey` for a one-level key,
/// `/partitionKeyN` (1-based) for level N of a hierarchical key.
fn computed_name(level: usize, levels: usize) -> String {
    if levels == 1 {
        "/partitionKey".to_owned()
    } else {
        format!("/partitionKey{}", level + 1)
    }
}

fn part_expression(p: &Part) -> String {
    let field = |path: &crate::keys::spec::KeyPath| {
        format!(
            "doc{}",
            path.segments
                .iter()
                .map(|s| format!("[{s:?}]"))
                .collect::<String>()
        )
    };
    match p {
        Part::Path(path) => format!("String({})", field(path)),
        Part::Hash { path, buckets } => format!(
            "(murmur3_x86_32(UTF-8 bytes of String({}), seed 0) % {buckets})",
            field(path)
        ),
        Part::Time { unit, path } => {
            let fmt = match unit {
                TimeUnit::Hour => "yyyy-MM-ddTHH",
                TimeUnit::Day => "yyyy-MM-dd",
                TimeUnit::Month => "yyyy-MM",
                TimeUnit::Year => "yyyy",
            };
            format!("utc({}).format(\"{fmt}\")", field(path))
        }
    }
}

/// The definition of candidate `c`.
pub fn definition(c: &Candidate, separator: &str) -> Definition {
    let mut paths: Vec<String> = Vec::new();
    let mut exprs: Vec<String> = Vec::new();
    let n = c.levels.len();
    for (i, level) in c.levels.iter().enumerate() {
        match level.parts.as_slice() {
            [Part::Path(p)] => paths.push(p.text.clone()),
            parts => {
                let name = computed_name(i, n);
                let joined = parts
                    .iter()
                    .map(part_expression)
                    .collect::<Vec<_>>()
                    .join(&format!(" + {separator:?} + "));
                exprs.push(format!("doc[{:?}] = {joined}", &name[1..]));
                paths.push(name);
            }
        }
    }
    let kind = if paths.len() > 1 { "MultiHash" } else { "Hash" };
    let partition_key = json!({"partitionKey": {"paths": paths, "kind": kind, "version": 2}});
    let quoted: Vec<String> = paths.iter().map(|p| shell_quote(p)).collect();
    let mut az_cli = format!(
        "az cosmosdb sql container create --account-name <account> --resource-group <resource-group> --database-name <database> --name <container> --partition-key-path {} --partition-key-version 2",
        quoted.join(" ")
    );
    if paths.len() > 1 {
        az_cli.push_str(
            "\n# hierarchical keys need an Azure CLI that accepts several --partition-key-path values; if yours does not, deploy the Bicep snippet",
        );
    }
    let bicep_paths: String = paths
        .iter()
        .map(|p| {
            format!(
                "          '{}'\n",
                p.replace('\\', "\\\\").replace('\'', "\\'")
            )
        })
        .collect();
    let bicep = format!(
        "resource container 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@2024-11-15' = {{\n  parent: database\n  name: '<container>'\n  properties: {{\n    resource: {{\n      id: '<container>'\n      partitionKey: {{\n        paths: [\n{bicep_paths}        ]\n        kind: '{kind}'\n        version: 2\n      }}\n    }}\n  }}\n}}"
    );
    Definition {
        partition_key,
        az_cli,
        bicep,
        expression: (!exprs.is_empty()).then(|| exprs.join("\n")),
    }
}

fn shell_quote(s: &str) -> String {
    if s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"/_-.".contains(&b))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::spec::parse_candidate;

    #[test]
    fn single_path_is_hash_v2_with_the_path() {
        let d = definition(&parse_candidate("/tenantId").unwrap(), "-");
        assert_eq!(
            d.partition_key,
            json!({"partitionKey": {"paths": ["/tenantId"], "kind": "Hash", "version": 2}})
        );
        assert!(d
            .az_cli
            .contains("--partition-key-path /tenantId --partition-key-version 2"));
        assert!(d.bicep.contains("'/tenantId'") && d.bicep.contains("kind: 'Hash'"));
        assert_eq!(d.expression, None);
    }

    #[test]
    fn hierarchical_is_multihash_with_every_level() {
        let d = definition(&parse_candidate("/tenantId>/userId>/id").unwrap(), "-");
        assert_eq!(
            d.partition_key["partitionKey"],
            json!({"paths": ["/tenantId", "/userId", "/id"], "kind": "MultiHash", "version": 2})
        );
        assert!(d
            .az_cli
            .contains("--partition-key-path /tenantId /userId /id"));
        assert!(d.bicep.contains("kind: 'MultiHash'"));
    }

    #[test]
    fn computed_levels_get_a_property_and_an_expression() {
        let d = definition(&parse_candidate("/tenantId+hash(/id)%16").unwrap(), "-");
        assert_eq!(
            d.partition_key["partitionKey"]["paths"],
            json!(["/partitionKey"])
        );
        assert_eq!(
            d.expression.as_deref(),
            Some("doc[\"partitionKey\"] = String(doc[\"tenantId\"]) + \"-\" + (murmur3_x86_32(UTF-8 bytes of String(doc[\"id\"]), seed 0) % 16)")
        );
        let d = definition(&parse_candidate("/site>/device+day(/ts)").unwrap(), "|");
        assert_eq!(
            d.partition_key["partitionKey"]["paths"],
            json!(["/site", "/partitionKey2"])
        );
        assert_eq!(
            d.expression.as_deref(),
            Some("doc[\"partitionKey2\"] = String(doc[\"device\"]) + \"|\" + utc(doc[\"ts\"]).format(\"yyyy-MM-dd\")")
        );
    }
}
