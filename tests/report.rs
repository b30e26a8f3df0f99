//! `pkadvisor report`: a saved JSON report re-renders byte for byte as the run that wrote it
//! would have printed in each format, for analyze and check runs; bad reports get clear errors.

use crate::util::Test;

const FORMATS: [&str; 4] = ["table", "markdown", "json", "html"];

/// Runs `cmd args --format F` for every format and `report - --format F` on its JSON; asserts
/// each pair is identical. Returns the JSON.
fn assert_rerenders(cmd: &str, args: &[&str], ok_status: i32) -> String {
    let direct = |format: &str| {
        let o = Test::new()
            .arg(cmd)
            .args(args)
            .args(["--format", format])
            .run();
        assert_eq!(
            o.status, ok_status,
            "{cmd} {args:?} --format {format}: {}",
            o.stderr
        );
        o.stdout
    };
    let json = direct("json");
    for format in FORMATS {
        let want = direct(format);
        let got = Test::new()
            .args(["report", "-", "--format", format])
            .stdin(json.clone())
            .run();
        assert_eq!(got.status, 0, "report --format {format}: {}", got.stderr);
        assert!(
            got.stdout == want,
            "{cmd} {args:?}: report --format {format} differs from the direct run\n--- direct\n{want}\n--- report\n{}",
            got.stdout
        );
    }
    json
}

#[test]
fn analyze_reports_rerender_identically() {
    let ev = "fixtures/events.jsonl";
    let specs = "/tenantId,/userId,/tenantId>/userId,/tenantId+hash(/id)%8,day(/ts)";
    let json = assert_rerenders("analyze", &[ev, "--candidates", specs], 0);
    assert!(json.contains("\"spec\": \"/tenantId>/userId\""));
    // Projection, a physical layout with prefix fan-out, a workload and time evaluation.
    let json = assert_rerenders(
        "analyze",
        &[
            ev,
            "--candidates",
            specs,
            "--total-size",
            "10TB",
            "--ru",
            "40000",
            "--workload",
            "fixtures/workload.yaml",
            "--time-field",
            "/ts",
        ],
        0,
    );
    assert!(json.contains("\"prefix_fanout\": ["));
    assert!(json.contains("\"partitions\": ["));
    // CSV input, invalid keys with their locations, skipped records.
    assert_rerenders(
        "analyze",
        &["fixtures/orders.csv", "--candidates", "/customerId"],
        0,
    );
    assert_rerenders(
        "analyze",
        &["fixtures/invalid_keys.jsonl", "--candidates", "/tenantId"],
        0,
    );
}

#[test]
fn check_reports_rerender_with_the_gate() {
    let json = assert_rerenders("check", &["--config", "fixtures/ci/pkadvisor.toml"], 0);
    assert!(json.contains("\"check\": {"));
    // A failing gate: its violations and their locations come back too.
    let json = assert_rerenders(
        "check",
        &[
            "fixtures/events.jsonl",
            "--key",
            "/tenantId",
            "--fail-on",
            "warn",
        ],
        1,
    );
    assert!(json.contains("\"passed\": false"));
    let o = Test::new().args(["report", "-"]).stdin(json).run();
    assert!(
        o.stdout.contains("Gate for key /tenantId: FAIL"),
        "{}",
        o.stdout
    );
}

#[test]
fn output_format_follows_the_extension() {
    let json = Test::new()
        .args([
            "analyze",
            "fixtures/tiny.jsonl",
            "--candidates",
            "/id",
            "--format",
            "json",
        ])
        .run()
        .stdout;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let input = dir.join("r.json");
    std::fs::write(&input, &json).unwrap();
    let md = dir.join("r.md");
    let o = Test::new()
        .arg("report")
        .arg(&input)
        .arg("-o")
        .arg(&md)
        .run();
    assert_eq!(o.status, 0, "{}", o.stderr);
    let want = Test::new()
        .args([
            "analyze",
            "fixtures/tiny.jsonl",
            "--candidates",
            "/id",
            "--format",
            "markdown",
        ])
        .run()
        .stdout;
    assert_eq!(std::fs::read_to_string(&md).unwrap(), want);
    // Writing over the report being read is refused.
    let o = Test::new()
        .arg("report")
        .arg(&input)
        .arg("-o")
        .arg(&input)
        .run();
    let o = o.bad_input();
    assert!(
        o.stderr.contains("that is the report being read"),
        "{}",
        o.stderr
    );
    assert_eq!(std::fs::read_to_string(&input).unwrap(), json);
}

#[test]
fn bad_reports_get_clear_errors() {
    let run = |stdin: &str| Test::new().args(["report", "-"]).stdin(stdin).run();
    let o = run("");
    let o = o.bad_input();
    assert!(
        o.stderr
            .contains("standard input is not a pkadvisor report: EOF while parsing"),
        "{}",
        o.stderr
    );
    let o = run("{\"a\": 1}");
    let o = o.bad_input();
    assert!(o.stderr.contains("no schema_version"), "{}", o.stderr);
    let o = run("{\"schema_version\": 1}");
    let o = o.bad_input();
    assert!(o.stderr.contains("schema_version 1 is not"), "{}", o.stderr);
    // The right version with a field missing names the field and where.
    let o =
        run("{\"schema_version\": 5,\n \"tool\": {\"name\": \"pkadvisor\", \"version\": \"0\"}}");
    let o = o.bad_input();
    assert!(
        o.stderr.contains("missing field `input` at line 2"),
        "{}",
        o.stderr
    );
    let o = Test::new().args(["report", "fixtures/no-such.json"]).run();
    let o = o.bad_input();
    assert!(
        o.stderr.contains("cannot read fixtures/no-such.json"),
        "{}",
        o.stderr
    );
}

/// The charts of one candidate's section: each `<svg>` parsed as strict XML, by its aria-label.
fn charts(section: &str) -> Vec<(String, String)> {
    section
        .match_indices("<svg ")
        .map(|(start, _)| {
            let end = start + section[start..].find("</svg>").expect("svg closed") + 6;
            let svg = section[start..end].to_string();
            let doc = roxmltree::Document::parse(&svg)
                .unwrap_or_else(|e| panic!("chart is not well-formed XML: {e}\n{svg}"));
            let label = doc
                .root_element()
                .attribute("aria-label")
                .unwrap()
                .to_string();
            (label, svg)
        })
        .collect()
}

fn attr(n: roxmltree::Node<'_, '_>, name: &str) -> f64 {
    n.attribute(name).unwrap().parse().unwrap()
}

/// A value and the height it is drawn at.
type Drawn = (f64, f64);

/// Bars of a bar chart: (value, drawn height); and the limit line's (value, height above the axis).
fn bars(svg: &str) -> (Vec<Drawn>, Option<Drawn>) {
    let doc = roxmltree::Document::parse(svg).unwrap();
    let axis_y = doc
        .descendants()
        .find(|n| n.has_tag_name("line") && n.attribute("class") == Some("axis"))
        .map(|n| attr(n, "y1"))
        .unwrap();
    let bars = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect"))
        .map(|n| (attr(n, "data-value"), attr(n, "height")))
        .collect();
    let limit = doc
        .descendants()
        .find(|n| n.attribute("class") == Some("limit"))
        .map(|n| (attr(n, "data-value"), axis_y - attr(n, "y1")));
    (bars, limit)
}

/// Heights proportional to values: every bar (and the limit line) at the same px per unit.
fn assert_proportional(
    what: &str,
    values: &[f64],
    drawn: &[(f64, f64)],
    limit: Option<(f64, f64)>,
) {
    assert_eq!(drawn.len(), values.len(), "{what}: one bar per value");
    let max = values.iter().cloned().fold(0.0, f64::max);
    let (vmax, hmax) = drawn
        .iter()
        .cloned()
        .fold((0.0, 0.0), |a, b| if b.0 > a.0 { b } else { a });
    let scale = hmax / vmax;
    for (v, (dv, h)) in values.iter().zip(drawn) {
        assert!(
            (v - dv).abs() <= 1e-6 * max,
            "{what}: bar value {dv} is not {v}"
        );
        // Coordinates carry 2 decimals.
        assert!(
            (h - v * scale).abs() < 0.02,
            "{what}: bar of {v} is {h} high, not {}",
            v * scale
        );
    }
    if let Some((lv, lh)) = limit {
        assert!(
            (lh - lv * scale).abs() < 0.02,
            "{what}: limit {lv} drawn at {lh}"
        );
    }
}

#[test]
fn html_charts_draw_the_reports_numbers() {
    let (json, report) = workload_report("/tenantId,/tenantId>/userId>/sessionId");
    let html = Test::new()
        .args(["report", "-", "--format", "html"])
        .stdin(json)
        .run()
        .success()
        .stdout;
    // One self-contained file: nothing is fetched.
    for request in [
        "<script",
        "<link",
        "<img",
        "src=",
        "href=\"http",
        "href=\"//",
        "url(",
        "@import",
        "@font-face",
    ] {
        assert!(
            !html.contains(request),
            "the page requests something: {request}"
        );
    }
    // Links stay in the page: the ranking's candidates point at their sections.
    let links: Vec<&str> = html.split("href=\"").skip(1).collect();
    assert_eq!(links.len(), report["candidates"].as_array().unwrap().len());
    for (rank, l) in links.iter().enumerate() {
        assert!(l.starts_with(&format!("#candidate-{}\"", rank + 1)));
        assert!(html.contains(&format!("id=\"candidate-{}\"", rank + 1)));
    }
    assert!(html.starts_with("<!DOCTYPE html>") && html.ends_with("</html>\n"));
    assert!(html.contains("@media print"));
    let sections: Vec<&str> = html.split("<section class=\"candidate\"").skip(1).collect();
    let candidates = report["candidates"].as_array().unwrap();
    assert_eq!(sections.len(), candidates.len());
    for (c, section) in candidates.iter().zip(&sections) {
        let spec = c["spec"].as_str().unwrap();
        let charts = charts(section);
        let chart = |prefix: &str| -> &str {
            &charts
                .iter()
                .find(|(l, _)| l.starts_with(prefix))
                .unwrap_or_else(|| panic!("{spec}: no {prefix} chart"))
                .1
        };

        // The Lorenz curve: the report's points, from (0,0) to (1,1); its area gives the Gini.
        let want: Vec<[f64; 2]> = serde_json::from_value(c["lorenz"].clone()).unwrap();
        assert!(want.len() >= 3, "{spec}");
        assert_eq!(want[0], [0.0, 0.0]);
        assert_eq!(*want.last().unwrap(), [1.0, 1.0]);
        let area: f64 = want
            .windows(2)
            .map(|w| (w[1][0] - w[0][0]) * (w[0][1] + w[1][1]) / 2.0)
            .sum();
        let gini = c["skew"]["gini"].as_f64().unwrap();
        assert!(
            (1.0 - 2.0 * area - gini).abs() < 0.01,
            "{spec}: area {area}, gini {gini}"
        );
        let doc = roxmltree::Document::parse(chart("Lorenz curve of")).unwrap();
        let points = doc
            .descendants()
            .find(|n| n.attribute("class") == Some("curve"))
            .unwrap()
            .attribute("points")
            .unwrap()
            .to_string();
        let drawn: Vec<(f64, f64)> = points
            .split(' ')
            .map(|p| {
                let (x, y) = p.split_once(',').unwrap();
                (x.parse().unwrap(), y.parse().unwrap())
            })
            .collect();
        assert_eq!(drawn.len(), want.len(), "{spec}: one vertex per point");
        // The plot spans x 70..544 and y 220..22 (share 0..1).
        for ((x, y), [px, py]) in drawn.iter().zip(&want) {
            assert!(
                (x - (70.0 + px * 474.0)).abs() < 0.01,
                "{spec}: x {x} for {px}"
            );
            assert!(
                (y - (220.0 - py * 198.0)).abs() < 0.01,
                "{spec}: y {y} for {py}"
            );
        }

        // Largest logical partitions, as listed.
        let tops: Vec<f64> = c["top_partitions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["bytes"].as_f64().unwrap())
            .collect();
        let (drawn, limit) = bars(chart("largest logical partitions of"));
        assert_proportional(spec, &tops, &drawn, limit);

        // One bar per physical partition, heights proportional to bytes, the 50 GB limit line
        // on the same scale; and the RU/s demand against the allocation.
        let layout = &c["layout"];
        let parts = layout["partitions"].as_array().unwrap();
        assert_eq!(
            parts.len() as u64,
            layout["physical_partitions"].as_u64().unwrap()
        );
        let bytes: Vec<f64> = parts.iter().map(|p| p["bytes"].as_f64().unwrap()).collect();
        let (drawn, limit) = bars(chart("storage per physical partition of"));
        assert_eq!(
            limit.map(|l| l.0),
            Some(50e9),
            "{spec}: the storage limit line"
        );
        assert_proportional(spec, &bytes, &drawn, limit);
        let ru: Vec<f64> = parts
            .iter()
            .map(|p| p["ru_demand"].as_f64().unwrap())
            .collect();
        let (drawn, limit) = bars(chart("RU/s per physical partition of"));
        let allocated = parts[0]["ru_allocated"].as_f64().unwrap();
        assert!((allocated * parts.len() as f64 - 40000.0).abs() < 1.0);
        assert_eq!(
            limit.map(|l| l.0),
            Some(allocated),
            "{spec}: the allocation line"
        );
        assert_proportional(spec, &ru, &drawn, limit);

        // Hierarchical keys: prefix fan-out per level, one bar per distribution entry.
        let fanout = layout["prefix_fanout"].as_array().unwrap();
        assert_eq!(fanout.is_empty(), c["kind"] != "hierarchical", "{spec}");
        for pf in fanout {
            let level = pf["level"].as_u64().unwrap();
            let counts: Vec<f64> = pf["distribution"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d[1].as_f64().unwrap())
                .collect();
            let total: f64 = counts.iter().sum();
            assert_eq!(total, pf["prefixes"].as_f64().unwrap());
            let (drawn, _) = bars(chart(&format!("prefix fan-out of {spec} at level {level}")));
            assert_proportional(spec, &counts, &drawn, None);
        }
    }
}

#[test]
fn markdown_folds_candidates_and_charts_their_partitions() {
    let (json, report) = workload_report("/tenantId,/tenantId>/userId>/sessionId,/id");
    let md = Test::new()
        .args(["report", "-", "--format", "markdown"])
        .stdin(json)
        .run()
        .success()
        .stdout;
    // The title, then one line that says what to do.
    let rec = report["recommendation"]["spec"].as_str().unwrap();
    let second = md.lines().nth(2).unwrap();
    assert!(
        second.starts_with("**Recommended key: ") && second.contains(rec),
        "{second}"
    );
    let candidates = report["candidates"].as_array().unwrap();
    let sections: Vec<&str> = md.split("<details>\n").skip(1).collect();
    assert_eq!(sections.len(), candidates.len());
    assert_eq!(md.matches("</details>").count(), candidates.len());
    for (c, section) in candidates.iter().zip(sections) {
        let section = &section[..section.find("</details>").unwrap()];
        let rank = c["rank"].as_u64().unwrap();
        assert!(
            section.starts_with(&format!("<summary><b>#{rank} ")),
            "{section}"
        );
        let charts: Vec<&str> = section
            .split("```mermaid\nxychart-beta\n")
            .skip(1)
            .collect();
        assert_eq!(charts.len(), 3, "{}: top, storage, RU/s", c["spec"]);
        let series = |chart: &str, name: &str| -> Vec<f64> {
            let line = chart
                .lines()
                .find(|l| l.trim_start().starts_with(name))
                .unwrap_or_else(|| panic!("no {name} in {chart}"));
            let list = &line[line.find('[').unwrap() + 1..line.rfind(']').unwrap()];
            list.split(", ").map(|v| v.parse().unwrap()).collect()
        };
        // Storage per physical partition in GB, one bar each, the 50 GB limit as a line.
        let parts = c["layout"]["partitions"].as_array().unwrap();
        let storage = charts[1];
        assert!(storage.contains("y-axis \"GB\""), "{storage}");
        let bars = series(storage, "bar");
        assert_eq!(bars.len(), parts.len());
        for (b, p) in bars.iter().zip(parts) {
            assert!(
                (b - p["bytes"].as_f64().unwrap() / 1e9).abs() <= 0.0005,
                "{b} {p}"
            );
        }
        assert_eq!(series(storage, "line"), vec![50.0; parts.len()]);
        // RU/s against the allocation: 40,000 RU/s over the partitions.
        let ru = charts[2];
        let allocated = 40000.0 / parts.len() as f64;
        for l in series(ru, "line") {
            assert!((l - allocated).abs() < 0.001, "{l} {allocated}");
        }
        assert_eq!(series(ru, "bar").len(), parts.len());
    }
    assert!(md.chars().count() <= 65_536);
}

#[test]
fn colour_follows_the_flag_and_the_environment() {
    let json = Test::new()
        .args([
            "analyze",
            "fixtures/events.jsonl",
            "--candidates",
            "/tenantId,/userId",
        ])
        .args(["--format", "json"])
        .run()
        .success()
        .stdout;
    let table = |flags: &[&str], env: &[(&str, &str)]| {
        let mut t = Test::new()
            .args(["report", "-", "--detail"])
            .args(flags)
            .stdin(json.clone());
        for (k, v) in env {
            t = t.env(k, v);
        }
        t.run().success().stdout
    };
    let esc = |s: &str| s.contains('\x1b');
    // A pipe is not a terminal: plain, unless forced.
    let plain = table(&[], &[]);
    assert!(!esc(&plain));
    let always = table(&["--color", "always"], &[]);
    // /userId passes (green), /tenantId warns (yellow): in the ranking's verdict cells and in
    // the candidates' headings.
    assert!(
        always.contains("\x1b[38;5;2m\x1b[1mPASS\x1b[0m"),
        "{always:?}"
    );
    assert!(
        always.contains("\x1b[38;5;3m\x1b[1mWARN\x1b[0m"),
        "{always:?}"
    );
    assert!(always.contains("#1 /userId (single): \x1b[1m\x1b[32mPASS\x1b[0m"));
    assert!(always.contains("#2 /tenantId (single): \x1b[1m\x1b[33mWARN\x1b[0m"));
    assert!(esc(&table(&[], &[("CLICOLOR_FORCE", "1")])));
    assert!(!esc(&table(
        &["--color", "never"],
        &[("CLICOLOR_FORCE", "1")]
    )));
    assert!(!esc(&table(
        &[],
        &[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")]
    )));
    assert!(esc(&table(&["--color", "always"], &[("NO_COLOR", "1")])));
    // Colour changes no character of the text.
    let mut stripped = String::new();
    let mut in_escape = false;
    for c in always.chars() {
        match (in_escape, c) {
            (false, '\x1b') => in_escape = true,
            (true, 'm') => in_escape = false,
            (true, _) => {}
            (false, c) => stripped.push(c),
        }
    }
    assert_eq!(stripped, plain);
    // Markdown, JSON and HTML never carry escapes.
    for format in ["markdown", "json", "html"] {
        assert!(!esc(&table(
            &["--color", "always", "--format", format],
            &[]
        )));
    }
}

/// The bundled events at 500 GB and 40,000 RU/s with the bundled workload: the JSON text and its
/// parsed value (shared by the HTML and Markdown tests).
fn workload_report(candidates: &str) -> (String, serde_json::Value) {
    let json = Test::new()
        .args([
            "analyze",
            "fixtures/events.jsonl",
            "--candidates",
            candidates,
            "--total-size",
            "500GB",
            "--ru",
            "40000",
            "--workload",
            "fixtures/workload.yaml",
            "--format",
            "json",
        ])
        .run()
        .success()
        .stdout;
    let report = serde_json::from_str(&json).unwrap();
    (json, report)
}
