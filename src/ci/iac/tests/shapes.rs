//! Tests of `read_key` on valid declarations in each format's shapes (hierarchical keys over
//! lines, Terraform's old and new attributes, child, conditional and looped containers), and
//! on hostile files, which end in an error with a line, never a crash.

use super::*;

// Valid files read as before.

#[test]
fn bicep_multihash_over_lines() {
    let text = "resource c 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@2024-05-15' = {\n  name: 'orders'\n  properties: {\n    resource: {\n      id: 'orders'\n      partitionKey: {\n        paths: [\n          '/tenantId'\n          '/userId'\n        ]\n        kind: 'MultiHash'\n        version: 2\n      }\n    }\n  }\n}\n";
    let k = read("main.bicep", text, None).unwrap();
    assert_eq!(k.spec, "/tenantId>/userId");
    assert_eq!((k.kind.as_str(), k.version, k.line), ("MultiHash", 2, 7));
    assert_eq!(k.container.as_deref(), Some("orders"));
    assert_eq!(k.file, "main.bicep");
}

#[test]
fn terraform_old_and_new_attributes() {
    let text = "resource \"azurerm_cosmosdb_sql_container\" \"a\" {\n  name = \"events\"\n  partition_key_paths = [\"/deviceId\"]\n  partition_key_version = 2\n}\nresource \"azurerm_cosmosdb_sql_container\" \"b\" {\n  name = \"legacy\"\n  partition_key_path = \"/id\"\n  partition_key_version = 1\n}\n";
    let k = read("main.tf", text, Some("events")).unwrap();
    assert_eq!((k.spec.as_str(), k.version, k.line), ("/deviceId", 2, 3));
    let k = read("main.tf", text, Some("legacy")).unwrap();
    assert_eq!((k.spec.as_str(), k.version, k.line), ("/id", 1, 8));
    let e = read("main.tf", text, Some("orders")).unwrap_err();
    assert_eq!(
        e,
        "main.tf: no container named `orders` (found: events, legacy)"
    );
}

#[test]
fn arm_json_with_line() {
    let text = "{\n  \"resources\": [\n    {\n      \"type\": \"Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers\",\n      \"name\": \"[concat(parameters('a'), '/db/orders')]\",\n      \"properties\": {\n        \"resource\": {\n          \"partitionKey\": { \"paths\": [\"/customerId\"], \"kind\": \"Hash\", \"version\": 2 }\n        }\n      }\n    }\n  ]\n}\n";
    let k = read("azuredeploy.json", text, None).unwrap();
    assert_eq!((k.spec.as_str(), k.line), ("/customerId", 8));
    assert_eq!(k.container.as_deref(), Some("orders"));
}

// Hostile files end in an error with a line, never a crash.

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep =
        |open: &str, close: &str| format!("{}{}", open.repeat(100_000), close.repeat(100_000));
    let text = bicep_container(
        "c",
        "orders",
        &format!("{{\n        paths: {}\n      }}", deep("[", "]")),
    );
    let e = read("main.bicep", &text, None).unwrap_err();
    assert_eq!(
        e,
        "main.bicep:7: cannot read this Bicep: values nested deeper than 64 levels"
    );
    let text = format!("resource \"azurerm_cosmosdb_sql_container\" \"o\" {{\n  name = \"orders\"\n  partition_key_paths = {}\n}}\n", deep("[", "]"));
    let e = read("main.tf", &text, None).unwrap_err();
    assert!(e.starts_with("main.tf:3: not valid HCL: "), "{e}");
    // Nested resources are read recursively: serde_json's recursion limit holds.
    let text = format!(
        "{}{}",
        "{\"resources\": [".repeat(50_000),
        "]}".repeat(50_000)
    );
    let e = read("azuredeploy.json", &text, None).unwrap_err();
    assert_eq!(
        e,
        "azuredeploy.json:1: not an ARM template: recursion limit exceeded"
    );
}

#[test]
fn every_truncation_of_a_valid_file_reads_or_is_refused() {
    let files = [
        (
            "main.bicep",
            include_str!("../../../../fixtures/ci/main.bicep"),
        ),
        ("main.tf", include_str!("../../../../fixtures/ci/main.tf")),
        (
            "azuredeploy.json",
            include_str!("../../../../fixtures/ci/azuredeploy.json"),
        ),
    ];
    for (name, text) in files {
        let ext = name.rsplit('.').next().unwrap();
        let mut outcomes = (0, 0);
        for (cut, _) in text.char_indices() {
            match key_in(&text[..cut], name.to_string(), ext, Some("orders")) {
                Ok(k) => {
                    assert_eq!(k.spec, "/customerId", "{name} cut at {cut}");
                    outcomes.0 += 1;
                }
                Err(_) => outcomes.1 += 1,
            }
        }
        // Some cuts still hold the whole key (a missing closing brace is not: the readers
        // refuse an unclosed file), most are refused.
        assert!(outcomes.1 > text.len() / 2, "{name}: {outcomes:?}");
    }
}

#[test]
fn bicep_child_conditional_looped_and_existing_containers() {
    let text = format!(
        "resource db 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases@2024-05-15' = {{
  name: 'shop'
  resource orders 'containers' = {{
    name: 'orders'
    properties: {{ resource: {{ id: 'orders', partitionKey: {{ paths: [ '/customerId' ], kind: 'Hash' }} }} }}
  }}
}}
resource events '{C}' = if (deployEvents) {{
  name: 'events'
  properties: {{
    resource: {{
      partitionKey: {{ paths: [ '/tenantId', '/userId' ], kind: 'MultiHash', version: 2 }}
    }}
  }}
}}
resource shards '{C}' = [for i in range(0, 4): {{
  name: 'shard${{i}}'
  properties: {{
    resource: {{
      partitionKey: {{ paths: [ '/deviceId' ] }}
    }}
  }}
}}]
resource old '{C}' existing = {{
  name: 'old'
  properties: {{ resource: {{ partitionKey: {{ paths: [ '/old' ] }} }} }}
}}
"
    );
    let e = read("main.bicep", &text, None).unwrap_err();
    assert_eq!(
        e,
        "main.bicep: 3 containers declare a partition key (orders, events, ?); choose one with --container NAME"
    );
    let k = read("main.bicep", &text, Some("orders")).unwrap();
    assert_eq!((k.spec.as_str(), k.line), ("/customerId", 5));
    let k = read("main.bicep", &text, Some("events")).unwrap();
    assert_eq!((k.spec.as_str(), k.line), ("/tenantId>/userId", 12));
    // A member named `resource` with a string value is a member, not a child resource.
    let text = bicep_container("c", "orders", "{\n        paths: [ '/id' ]\n      }").replace(
        "    resource: {\n      id: 'orders'\n",
        "    resource: {\n      resource: 'note'\n      id: 'orders'\n",
    );
    let k = read("main.bicep", &text, None).unwrap();
    assert_eq!(
        (k.spec.as_str(), k.line, k.container.as_deref()),
        ("/id", 8, Some("orders"))
    );
}

#[test]
fn arm_symbolic_resources_and_terraform_string_version() {
    let text = r#"{
  "languageVersion": "2.0",
  "resources": {
    "orders": {
      "type": "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers",
      "name": "[format('{0}/{1}/{2}', parameters('account'), 'db', 'orders')]",
      "properties": { "resource": { "id": "orders", "partitionKey": { "paths": ["/customerId"], "version": 1 } } }
    }
  }
}"#;
    let k = read("azuredeploy.json", text, None).unwrap();
    assert_eq!((k.spec.as_str(), k.version, k.line), ("/customerId", 1, 7));
    assert_eq!(k.container.as_deref(), Some("orders"));
    // Terraform converts a string to the number the attribute takes.
    let tf = "resource \"azurerm_cosmosdb_sql_container\" \"o\" {\n  name = \"orders\" # the container\n  partition_key_paths = [\n    \"/customerId\", # tenant\n  ]\n  partition_key_version = \"1\"\n}\n";
    let k = read("main.tf", tf, None).unwrap();
    assert_eq!((k.spec.as_str(), k.version, k.line), ("/customerId", 1, 3));
    let e = read(
        "main.tf",
        &tf.replace("\"/customerId\"", "\"/${var.pk}\""),
        None,
    )
    .unwrap_err();
    assert_eq!(
        e,
        "main.tf:4: the partition key path is the expression `\"/${var.pk}\"`, which pkadvisor cannot evaluate; pass the key with --key (e.g. --key /tenantId)"
    );
}

#[test]
fn names_and_expressions_from_the_file_are_shown_inert() {
    let tf = "resource \"azurerm_cosmosdb_sql_container\" \"a\" {\n  name = \"x\\u001b]0;pwned\\u0007\"\n  partition_key_paths = [\"/a\"]\n}\nresource \"azurerm_cosmosdb_sql_container\" \"b\" {\n  name = \"y\\n::error::forged\"\n  partition_key_paths = [\"/b\"]\n}\n";
    let e = read("main.tf", tf, None).unwrap_err();
    assert_eq!(
        e,
        "main.tf: 2 containers declare a partition key (x\\u001b]0;pwned\\u0007, y\\u000a::error::forged); choose one with --container NAME"
    );
    let long = format!(
        "{{\n        paths: concat(['/a'], [\n'{}'])\n      }}",
        "z".repeat(200)
    );
    let e = read("main.bicep", &bicep_container("c", "orders", &long), None).unwrap_err();
    assert!(
        e.starts_with(
            "main.bicep:7: the partition key paths are the expression `concat(['/a'], [\\u000a'zzz"
        ),
        "{e}"
    );
    assert!(e.contains("z…`, which pkadvisor cannot evaluate"), "{e}");
}

#[test]
fn unreadable_declarations_are_refused_with_their_line() {
    let four = bicep_container(
        "c",
        "orders",
        "{\n        paths: [ '/a', '/b', '/c', '/d' ]\n        kind: 'MultiHash'\n      }",
    );
    let e = read("main.bicep", &four, None).unwrap_err();
    assert_eq!(
        e,
        "main.bicep:7: a partition key needs 1 to 3 paths, found 4"
    );
    // A partitionKey declared twice (the first `/a`, the second `/b`): Bicep refuses it, so
    // gating either would gate a key nobody deploys.
    let twice = bicep_container(
        "c",
        "orders",
        "{\n        paths: [ '/a' ]\n      }\n      partitionKey: {\n        paths: [ '/b' ]\n      }",
    );
    let e = read("main.bicep", &twice, None).unwrap_err();
    assert_eq!(
        e,
        "main.bicep:9: cannot read this Bicep: the property `partitionKey` is declared twice in this object (Bicep refuses it: BCP025); keep one"
    );
    let two = bicep_container("c", "orders", "{\n        paths: [ '/a', '/b' ]\n      }");
    let e = read("main.bicep", &two, None).unwrap_err();
    assert_eq!(e, "main.bicep:7: 2 paths need kind MultiHash, found Hash");
    let tf = "resource \"azurerm_cosmosdb_sql_container\" \"o\" {\n  name = \"orders\"\n  partition_key_path = \"/a\"\n  partition_key_paths = [\"/b\"]\n}\n";
    let e = read("main.tf", tf, None).unwrap_err();
    assert_eq!(
        e,
        "main.tf:1: declares both partition_key_paths and partition_key_path; keep one"
    );
    for (text, expected) in [
        (
            "var a = 'x\nvar b = 1\n",
            "main.bicep:1: cannot read this Bicep: a string is never closed on its line",
        ),
        (
            "var a = 1\n/* note\n",
            "main.bicep:2: cannot read this Bicep: a `/*` comment is never closed",
        ),
        (
            "var a = '''\n",
            "main.bicep:1: cannot read this Bicep: a `'''` string is never closed",
        ),
    ] {
        assert_eq!(read("main.bicep", text, None).unwrap_err(), expected);
    }
    let unclosed = format!("\n\nresource c '{C}' = {{\n  name: 'orders'\n");
    assert_eq!(
        read("main.bicep", &unclosed, None).unwrap_err(),
        "main.bicep:3: cannot read this Bicep: this `{` is never closed"
    );
}
