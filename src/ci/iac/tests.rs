//! Regression tests of issue #27 through `read_key`: each reads a file a user could commit and
//! checks the key (or the refusal) a user would see.

use super::*;

const C: &str = "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@2024-05-15";

/// Reads `text` saved as `name` in a fresh directory; errors come back with the directory
/// removed, so they start with `name:`.
fn read(name: &str, text: &str, container: Option<&str>) -> Result<IacKey, String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    let prefix = format!("{}/", dir.path().display());
    read_key(&path, container)
        .map(|mut k| {
            k.file = k.file.replace(&prefix, "");
            k
        })
        .map_err(|e| e.to_string().replace(&prefix, ""))
}

fn bicep_container(symbol: &str, name: &str, partition_key: &str) -> String {
    format!(
        "resource {symbol} '{C}' = {{\n  name: '{name}'\n  properties: {{\n    resource: {{\n      id: '{name}'\n      partitionKey: {partition_key}\n    }}\n  }}\n}}\n"
    )
}

// H4: a key that is a variable must be refused, not replaced by a later list's first string.

#[test]
fn bicep_paths_variable_is_refused_with_the_line_and_the_fix() {
    let text = format!(
        "param pkPaths array = ['/tenantId']\n\n{}\nvar regions = [\n  '/westeurope'\n]\n",
        bicep_container(
            "c",
            "orders",
            "{\n        paths: pkPaths\n        kind: 'Hash'\n      }"
        )
    );
    let e = read("main.bicep", &text, None).unwrap_err();
    assert_eq!(
        e,
        "main.bicep:9: the partition key paths are the expression `pkPaths`, which pkadvisor cannot evaluate; pass the key with --key (e.g. --key /tenantId)"
    );
}

#[test]
fn terraform_paths_variable_is_refused_with_the_line_and_the_fix() {
    let text = "variable \"pk\" {\n  default = [\"/tenantId\"]\n}\n\nresource \"azurerm_cosmosdb_sql_container\" \"orders\" {\n  name                = \"orders\"\n  partition_key_paths = var.pk\n}\n\nlocals {\n  regions = [\"/westeurope\"]\n}\n";
    let e = read("main.tf", text, None).unwrap_err();
    assert_eq!(
        e,
        "main.tf:7: the partition key paths are the expression `var.pk`, which pkadvisor cannot evaluate; pass the key with --key (e.g. --key /tenantId)"
    );
}

#[test]
fn arm_parameter_and_variable_paths_are_refused() {
    let arm = |paths: &str| {
        format!(
            "{{\n  \"resources\": [\n    {{\n      \"type\": \"Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers\",\n      \"name\": \"acct/db/orders\",\n      \"properties\": {{\n        \"resource\": {{\n          \"id\": \"orders\",\n          \"partitionKey\": {{\n            \"paths\": {paths},\n            \"kind\": \"Hash\"\n          }}\n        }}\n      }}\n    }}\n  ]\n}}\n"
        )
    };
    let e = read("azuredeploy.json", &arm("\"[parameters('pk')]\""), None).unwrap_err();
    assert_eq!(
        e,
        "azuredeploy.json:10: the partition key paths are the expression `[parameters('pk')]`, which pkadvisor cannot evaluate; pass the key with --key (e.g. --key /tenantId)"
    );
    let e = read("azuredeploy.json", &arm("[\"[variables('pk')]\"]"), None).unwrap_err();
    assert_eq!(
        e,
        "azuredeploy.json:10: the partition key path is the expression `[variables('pk')]`, which pkadvisor cannot evaluate; pass the key with --key (e.g. --key /tenantId)"
    );
    // Brackets in a path are array syntax, not an expression; a leading `[[` escapes a literal `[`.
    let e = read("azuredeploy.json", &arm("[\"/a/[0]\"]"), None).unwrap_err();
    assert_eq!(
        e,
        "azuredeploy.json:10: the partition key path `/a/[0]` holds `[`, `]` or `*` (array elements and wildcards cannot be a partition key); pass the key with --key"
    );
    // An object is no path, whatever its name (serde_json's `Value` read this one as "/x").
    let raw = r#"[{"$serde_json::private::RawValue":"\"/x\""}]"#;
    let e = read("azuredeploy.json", &arm(raw), None).unwrap_err();
    assert_eq!(
        e,
        r#"azuredeploy.json:10: the partition key path is the expression `{"$serde_json::private::RawValue":"\"/x\""}`, which pkadvisor cannot evaluate; pass the key with --key (e.g. --key /tenantId)"#
    );
    let e = read("azuredeploy.json", &arm("[\"[[x]\"]"), None).unwrap_err();
    assert_eq!(
        e,
        "azuredeploy.json:10: the partition key path `[x]` does not start with `/`; pass the key with --key"
    );
}

#[test]
fn bicep_interpolated_or_computed_paths_are_refused() {
    for (partition_key, shown) in [
        ("{\n        paths: [ '/${pk}' ]\n      }", "'/${pk}'"),
        ("{\n        paths: [ pk ]\n      }", "pk"),
        ("{\n        paths: [ first(pks) ]\n      }", "first(pks)"),
        (
            "{\n        paths: cond ? ['/a'] : ['/b']\n      }",
            "cond ? ['/a'] : ['/b']",
        ),
    ] {
        let text = bicep_container("c", "orders", partition_key);
        let e = read("main.bicep", &text, None).unwrap_err();
        assert!(
            e.starts_with("main.bicep:7: the partition key path")
                && e.contains(&format!("the expression `{shown}`, which pkadvisor cannot")),
            "{e}"
        );
    }
}

// M6: the hash version is read literally.

#[test]
fn bicep_version_with_a_comment_is_read() {
    let text = bicep_container(
        "c",
        "orders",
        "{\n        paths: [ '/customerId' ]\n        kind: 'Hash' // the default\n        version: 1 // V2 exists since 2019\n      }",
    );
    let k = read("main.bicep", &text, None).unwrap();
    assert_eq!((k.spec.as_str(), k.version, k.line), ("/customerId", 1, 7));
}

#[test]
fn versions_other_than_literal_1_or_2_are_refused() {
    let arm = |version: &str| {
        format!(
            "{{\"resources\": [{{\"type\": \"Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers\", \"name\": \"a/d/orders\",\n\"properties\": {{\"resource\": {{\"id\": \"orders\", \"partitionKey\": {{\"paths\": [\"/id\"], \"kind\": \"Hash\",\n\"version\": {version}}}}}}}}}]}}\n"
        )
    };
    for bad in [
        "257",
        "3",
        "300",
        "1.0",
        "\"1\"",
        "0",
        "-1",
        "\"[parameters('v')]\"",
    ] {
        let e = read("azuredeploy.json", &arm(bad), None).unwrap_err();
        assert_eq!(
            e,
            format!(
                "azuredeploy.json:3: the hash version must be 1 or 2 (an integer), found `{bad}`"
            ),
        );
    }
    assert_eq!(
        read("azuredeploy.json", &arm("1"), None).unwrap().version,
        1
    );
    for bad in ["3", "'2'", "1.0", "v"] {
        let text = bicep_container(
            "c",
            "orders",
            &format!("{{\n        paths: [ '/id' ]\n        version: {bad}\n      }}"),
        );
        let e = read("main.bicep", &text, None).unwrap_err();
        assert_eq!(
            e,
            format!("main.bicep:8: the hash version must be 1 or 2 (an integer), found `{bad}`")
        );
    }
    let tf = "resource \"azurerm_cosmosdb_sql_container\" \"o\" {\n  name = \"orders\"\n  partition_key_paths = [\"/id\"]\n  partition_key_version = 3\n}\n";
    let e = read("main.tf", tf, None).unwrap_err();
    assert_eq!(
        e,
        "main.tf:4: the hash version must be 1 or 2 (an integer), found `3`"
    );
}

#[test]
fn kind_range_is_refused() {
    let text = bicep_container(
        "c",
        "orders",
        "{\n        paths: [ '/id' ]\n        kind: 'Range'\n      }",
    );
    let e = read("main.bicep", &text, None).unwrap_err();
    assert_eq!(
        e,
        "main.bicep:8: the partition key kind must be Hash or MultiHash, found `'Range'` (Range partitioning is not a Cosmos DB NoSQL container key)"
    );
    let tf = "resource \"azurerm_cosmosdb_sql_container\" \"o\" {\n  name = \"orders\"\n  partition_key_paths = [\"/id\"]\n  partition_key_kind = \"Range\"\n}\n";
    let e = read("main.tf", tf, None).unwrap_err();
    assert_eq!(
        e,
        "main.tf:4: the partition key kind must be Hash or MultiHash, found `\"Range\"` (Range partitioning is not a Cosmos DB NoSQL container key)"
    );
}

#[test]
fn multihash_with_version_1_is_refused() {
    let text = bicep_container(
        "c",
        "events",
        "{\n        paths: [ '/tenantId', '/userId' ]\n        kind: 'MultiHash'\n        version: 1\n      }",
    );
    let e = read("main.bicep", &text, None).unwrap_err();
    assert_eq!(
        e,
        "main.bicep:9: kind MultiHash needs hash version 2, found 1"
    );
}

// Low: the reader knows Bicep's comments, declarations and strings.

#[test]
fn bicep_comments_params_and_strings_are_not_containers() {
    let text = format!(
        "// partitionKey: {{ paths: ['/commented'] }}\n/* resource x '{C}' = {{\n  properties: {{ resource: {{ partitionKey: {{ paths: ['/block'] }} }} }}\n}} */\nparam partitionKey object = {{\n  paths: ['/param']\n}}\nvar doc = '''\npartitionKey: {{ paths: ['/multiline'] }}\n'''\n{}",
        bicep_container("c", "orders", "{\n        paths: [ '/customerId' ]\n      }")
    );
    let k = read("main.bicep", &text, None).unwrap();
    assert_eq!(
        (k.spec.as_str(), k.line, k.container.as_deref()),
        ("/customerId", 17, Some("orders"))
    );
}

#[test]
fn bicep_escaped_quote_is_part_of_the_path() {
    let text = bicep_container("c", "orders", "{\n        paths: [ '/it\\'s' ]\n      }");
    let k = read("main.bicep", &text, None).unwrap();
    assert_eq!(k.paths, ["/it's"]);
    assert_eq!(k.spec, "/it's");
    // Absent kind and version: Hash, version 2.
    assert_eq!((k.kind.as_str(), k.version), ("Hash", 2));
}

#[test]
fn declared_paths_are_property_paths_not_candidate_syntax() {
    let text = bicep_container("c", "orders", "{\n        paths: [ '/a+/b' ]\n      }");
    let k = read("main.bicep", &text, None).unwrap();
    assert_eq!(k.paths, ["/a+/b"]);
    assert_eq!(k.spec, "/\"a+\"/b");
    let c = crate::keys::spec::parse_candidate(&k.spec).unwrap();
    assert_eq!(c.kind, crate::keys::spec::KeyKind::Single);
    assert_eq!(c.paths()[0].segments, ["a+", "b"]);
    let text = bicep_container(
        "c",
        "orders",
        "{\n        paths: [ '/t>x', '/hash(y)%2' ]\n        kind: 'MultiHash'\n        version: 2\n      }",
    );
    let k = read("main.bicep", &text, None).unwrap();
    assert_eq!(k.spec, "/\"t>x\">/\"hash(y)%2\"");
    let c = crate::keys::spec::parse_candidate(&k.spec).unwrap();
    assert_eq!(c.kind, crate::keys::spec::KeyKind::Hierarchical);
    for bad in ["a", "/a//b", "/", "/a\u{1b}[31m"] {
        let text = bicep_container(
            "c",
            "orders",
            &format!("{{\n        paths: [ '{bad}' ]\n      }}"),
        );
        let e = read("main.bicep", &text, None).unwrap_err();
        assert!(
            e.starts_with("main.bicep:7: the partition key path `"),
            "{e}"
        );
        assert!(!e.contains('\u{1b}'), "{e}");
    }
}

#[test]
fn arm_with_a_byte_order_mark_is_read() {
    let text = "\u{feff}{\"resources\": [{\"type\": \"Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers\",\n \"name\": \"a/db/orders\", \"properties\": {\"resource\": {\"id\": \"orders\",\n \"partitionKey\": {\"paths\": [\"/customerId\"], \"kind\": \"Hash\", \"version\": 2}}}}]}";
    let k = read("azuredeploy.json", text, None).unwrap();
    assert_eq!(
        (k.spec.as_str(), k.line, k.container.as_deref()),
        ("/customerId", 3, Some("orders"))
    );
}

#[test]
fn arm_nested_resources_and_other_types() {
    // A Gremlin graph also has a partitionKey: it is not a NoSQL container. The container is
    // nested twice, its type relative to its parents'.
    let text = r#"{
  "resources": [
    {
      "type": "Microsoft.DocumentDB/databaseAccounts/gremlinDatabases/graphs",
      "name": "a/g/graph",
      "properties": { "resource": { "id": "graph", "partitionKey": { "paths": ["/g"], "kind": "Hash" } } }
    },
    {
      "type": "Microsoft.DocumentDB/databaseAccounts",
      "name": "a",
      "resources": [
        {
          "type": "sqlDatabases",
          "name": "db",
          "resources": [
            {
              "type": "containers",
              "name": "orders",
              "properties": {
                "resource": {
                  "id": "orders",
                  "partitionKey": {
                    "kind": "MultiHash",
                    "version": 2,
                    "paths": [
                      "/tenantId",
                      "/userId"
                    ]
                  }
                }
              }
            }
          ]
        }
      ]
    }
  ]
}
"#;
    let k = read("azuredeploy.json", text, None).unwrap();
    assert_eq!(
        (k.spec.as_str(), k.line, k.container.as_deref()),
        ("/tenantId>/userId", 25, Some("orders"))
    );
}

#[test]
fn terraform_name_star_attributes_are_not_the_name() {
    let text = "resource \"azurerm_cosmosdb_sql_container\" \"a\" {\n  name = \"orders\"\n  name_tag = \"other\"\n  partition_key_paths = [\"/customerId\"]\n}\nresource \"azurerm_cosmosdb_sql_container\" \"b\" {\n  name_prefix = \"x\"\n  name = \"events\"\n  partition_key_paths = [\"/deviceId\"]\n}\n";
    let k = read("main.tf", text, Some("orders")).unwrap();
    assert_eq!((k.spec.as_str(), k.line), ("/customerId", 4));
    let k = read("main.tf", text, Some("events")).unwrap();
    assert_eq!((k.spec.as_str(), k.line), ("/deviceId", 9));
}

#[test]
fn a_refused_container_does_not_stop_choosing_another() {
    let text = format!(
        "{}{}",
        bicep_container("a", "orders", "{\n        paths: pk\n      }"),
        bicep_container("b", "events", "{\n        paths: [ '/deviceId' ]\n      }")
    );
    let k = read("main.bicep", &text, Some("events")).unwrap();
    assert_eq!((k.spec.as_str(), k.line), ("/deviceId", 18));
    let e = read("main.bicep", &text, Some("orders")).unwrap_err();
    assert!(
        e.starts_with("main.bicep:7: the partition key paths are the expression `pk`"),
        "{e}"
    );
    let e = read("main.bicep", &text, None).unwrap_err();
    assert_eq!(
        e,
        "main.bicep: 2 containers declare a partition key (orders, events); choose one with --container NAME"
    );
}

// M7: parsing is linear. A 300 KB file of containers is read whole and the last one found.

#[test]
fn large_files_are_read_whole() {
    let n = 1500;
    let bicep: String = (0..n)
        .map(|i| {
            bicep_container(
                &format!("c{i}"),
                &format!("c{i}"),
                &format!("{{\n        paths: [ '/k{i}' ]\n        kind: 'Hash'\n        version: 2\n      }}"),
            )
        })
        .collect();
    assert!(bicep.len() > 300_000, "{}", bicep.len());
    let k = read("main.bicep", &bicep, Some("c1499")).unwrap();
    assert_eq!((k.spec.as_str(), k.line), ("/k1499", 1499 * 13 + 7));
    // 10,000 comment lines that mention the words before one container: each used to start
    // a search for a list that ran to the end of the file.
    let mut noisy = "// partitionKey paths: see the runbook\n".repeat(10_000);
    assert!(noisy.len() > 300_000, "{}", noisy.len());
    noisy.push_str(&bicep_container(
        "c",
        "orders",
        "{\n        paths: [ '/customerId' ]\n      }",
    ));
    let k = read("main.bicep", &noisy, None).unwrap();
    assert_eq!((k.spec.as_str(), k.line), ("/customerId", 10_007));
    let tf: String = (0..n)
        .map(|i| format!("resource \"azurerm_cosmosdb_sql_container\" \"c{i}\" {{\n  name                = \"c{i}\"\n  resource_group_name = \"rg\"\n  account_name        = \"acct\"\n  database_name       = \"db\"\n  partition_key_paths = [\"/tenantId{i}\", \"/userId\"]\n  partition_key_kind  = \"MultiHash\"\n  partition_key_version = 2\n}}\n\n"))
        .collect();
    assert!(tf.len() > 300_000, "{}", tf.len());
    let k = read("main.tf", &tf, Some("c1499")).unwrap();
    assert_eq!(
        (k.spec.as_str(), k.line),
        ("/tenantId1499>/userId", 1499 * 10 + 6)
    );
    let items: Vec<String> = (0..n)
        .map(|i| format!("    {{\n      \"type\": \"Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers\",\n      \"apiVersion\": \"2024-05-15\",\n      \"name\": \"[concat(parameters('account'), '/db/c{i}')]\",\n      \"properties\": {{\n        \"resource\": {{\n          \"id\": \"c{i}\",\n          \"partitionKey\": {{ \"paths\": [\"/k{i}\"], \"kind\": \"Hash\", \"version\": 2 }}\n        }}\n      }}\n    }}"))
        .collect();
    let arm = format!("{{\n  \"resources\": [\n{}\n  ]\n}}\n", items.join(",\n"));
    assert!(arm.len() > 300_000, "{}", arm.len());
    let k = read("azuredeploy.json", &arm, Some("c1499")).unwrap();
    assert_eq!((k.spec.as_str(), k.line), ("/k1499", 3 + 1499 * 11 + 7));
}

/// Valid declarations in each format's shapes, and hostile files.
mod shapes;
