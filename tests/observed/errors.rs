//! `--observed` exports that must stop (exit 2, file, row and fix), exports that carry hostile
//! keys, and the exports named in `pkadvisor.toml`.

use std::io::Write;

use super::*;

/// Runs `analyze` on the sample with exports; expects exit 2 and returns stderr.
fn refused(files: &[&std::path::Path], current: &str) -> String {
    let s = sample();
    let out = Test::new()
        .arg("analyze")
        .arg(s.path())
        .args(["--current-key", current, "--observed"])
        .args(files)
        .run()
        .bad_input();
    out.stderr
}

#[test]
fn bad_exports_stop_with_file_row_and_fix() {
    // Several containers, without --container: listed.
    let a = ru_export(Mode::Resource, Format::Json, "West Europe");
    let text = std::fs::read_to_string(a.path())
        .unwrap()
        .replacen("\"events\"", "\"orders\"", 1);
    let two = write_text(&text, ".json");
    let e = refused(&[two.path()], "/k");
    assert!(
        e.contains("2 containers (shop/events, shop/orders); choose one with --container DB/NAME"),
        "{e}"
    );
    // Chosen: accepted, and the other container's row is counted, not lost.
    let s = sample();
    let r = Test::new()
        .arg("analyze")
        .arg(s.path())
        .args([
            "--current-key",
            "/k",
            "--format",
            "json",
            "--container",
            "shop/events",
            "--observed",
        ])
        .arg(two.path())
        .json();
    assert_eq!(r["observed"]["rows_other_containers"], 1);
    // Mixed regions: listed, with the flag that chooses.
    let text = std::fs::read_to_string(a.path())
        .unwrap()
        .replacen("West Europe", "East US", 1);
    let regions = write_text(&text, ".json");
    let e = refused(&[regions.path()], "/k");
    assert!(
        e.contains("2 regions (East US, West Europe)") && e.contains("--region NAME"),
        "{e}"
    );
    // A key that does not parse, a negative charge, a missing column: file and row.
    let csv = ru_export(Mode::Legacy, Format::Csv, "West Europe");
    let text = std::fs::read_to_string(csv.path()).unwrap();
    let bad_key = write_text(&text.replacen("\"[7]\"", "\"7]\"", 1), ".csv");
    let e = refused(&[bad_key.path()], "/k");
    let name = bad_key.path().display().to_string();
    assert!(
        e.contains(&format!("{name}: row 3: PartitionKey `7]` is not JSON")),
        "{e}"
    );
    let negative = write_text(&text.replacen("\"120\"", "\"-120\"", 1), ".csv");
    let e = refused(&[negative.path()], "/k");
    assert!(
        e.contains("row 3: requestCharge_s is -120: request units cannot be negative"),
        "{e}"
    );
    let no_range = write_text(&text.replace("partitionKeyRangeId_s", "rangeId"), ".csv");
    let e = refused(&[no_range.path()], "/k");
    assert!(e.contains("row 1: no value in column `partitionKeyRangeId_s`; export it with the query of docs/calibration.md"), "{e}");
    // Keys of another depth than the current key.
    let e = refused(&[a.path()], "/k>/g");
    assert!(
        e.contains("has 1 component(s) but --current-key has 2 path(s)"),
        "{e}"
    );
}

fn write_text(text: &str, suffix: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(suffix).tempfile().unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f.flush().unwrap();
    f
}

#[test]
fn hostile_keys_from_an_export_are_neutralised_in_every_format() {
    let s = sample();
    let c = columns(Mode::Resource);
    let evil = "[\"\\u001b[31m<script>alert(1)</script>| [x](http://y)\"]";
    let row = |t: &str| {
        vec![
            (c[0], t.to_string()),
            (c[1], "db".into()),
            (c[2], "c".into()),
            (c[3], "r".into()),
            (c[4], evil.to_string()),
            (c[5], "0".into()),
            (c[6], "Create".into()),
            (c[7], "5".into()),
        ]
    };
    let ru = write(
        &[row("2026-03-01T00:00:00Z"), row("2026-03-01T00:01:00Z")],
        Format::Json,
    );
    for format in ["table", "markdown", "html"] {
        let out = Test::new()
            .arg("analyze")
            .arg(s.path())
            .args(["--current-key", "/k", "--format", format, "--observed"])
            .arg(ru.path())
            .run()
            .success();
        assert!(!out.stdout.contains('\u{1b}'), "{format}: raw ESC");
        match format {
            // Markdown: table cells as entities; the prose keeps the key in a code span, where
            // `<` is text.
            "markdown" => {
                assert!(out
                    .stdout
                    .contains(r"&lt;script&gt;alert(1)&lt;/script&gt;\|"));
                assert!(
                    out.stdout.contains("led by `\\u001b[31m<script>"),
                    "{}",
                    out.stdout
                );
            }
            "html" => assert!(!out.stdout.contains("<script>"), "html: raw HTML"),
            _ => {}
        }
        assert!(out.stdout.contains("Measured today"), "{format}");
    }
}

#[test]
fn pkadvisor_toml_names_the_exports_inside_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let s = sample();
    std::fs::copy(s.path(), dir.path().join("s.jsonl")).unwrap();
    let ru = ru_export(Mode::Legacy, Format::Json, "West Europe");
    std::fs::copy(ru.path(), dir.path().join("ru.json")).unwrap();
    let toml = "sample = [\"s.jsonl\"]\nkey = \"/k\"\nobserved = [\"ru.json\"]\ncontainer = \"shop/events\"\nregion = \"West Europe\"\nformat = \"json\"\n";
    std::fs::write(dir.path().join("pkadvisor.toml"), toml).unwrap();
    let out = Test::new()
        .args(["check", "--config"])
        .arg(dir.path().join("pkadvisor.toml"))
        .run();
    assert_eq!(out.status, 1, "{}", out.stderr);
    let r = out.json();
    assert_eq!(r["observed"]["container"], "events");
    assert!(close(&r["observed"]["traffic"]["total_ru_per_sec"], 1.0));
    // A path outside the file's folder is refused, as every path the file names.
    let outside = toml.replace("\"ru.json\"", "\"../ru.json\"");
    std::fs::write(dir.path().join("pkadvisor.toml"), outside).unwrap();
    let e = Test::new()
        .args(["check", "--config"])
        .arg(dir.path().join("pkadvisor.toml"))
        .run()
        .bad_input()
        .stderr;
    assert!(e.contains("observed"), "{e}");
}
