//! Unit tests of `cli/mod.rs`.

use super::*;

#[test]
fn help_is_grouped_with_examples_and_exit_codes() {
    use clap::CommandFactory;
    let mut top = Args::command();
    let help = top.render_long_help().to_string();
    assert!(
        help.contains("Examples:") && help.contains("Exit codes:"),
        "{help}"
    );
    assert!(
        help.contains("2  bad input, usage or configuration"),
        "{help}"
    );
    let analyze = top.find_subcommand_mut("analyze").unwrap();
    let help = analyze.render_help().to_string();
    for heading in [
        "Candidates:",
        "Input:",
        "Output:",
        "Production size (projection):",
        "Workload:",
        "Throughput and physical layout:",
        "Examples:",
        "Exit codes: 0 success; 2 bad input",
    ] {
        assert!(
            help.contains(heading),
            "analyze --help lacks {heading}\n{help}"
        );
    }
    // Every analyze flag sits under a heading: none is left in the generic Options list.
    let options = &help[help.find("Options:").unwrap()..help.find("Candidates:").unwrap()];
    assert_eq!(
        options
            .lines()
            .filter(|l| l.trim_start().starts_with('-'))
            .count(),
        2,
        "only --help and --version: {options}"
    );
    let check = top.find_subcommand_mut("check").unwrap();
    let help = check.render_help().to_string();
    assert!(help.contains("Key and policy:") && help.contains("Baseline and CI:"));
    assert!(help.contains("Exit codes: 0 the key passes the policy; 1 it does not"));
}
use crate::cosmos::Provisioning;
use crate::report::OutputFormat;

fn parse(args: &[&str]) -> Result<Config, String> {
    let a = Args::try_parse_from(args).map_err(|e| e.to_string())?;
    Config::try_from(a).map_err(|e| e.to_string())
}

fn analyze(args: &[&str]) -> AnalyzeOptions {
    match parse(args).unwrap() {
        Config::Analyze(a) => *a,
        other => panic!("{other:?}"),
    }
}

#[test]
fn candidates_from_both_flags() {
    let a = analyze(&[
        "pkadvisor",
        "analyze",
        "x.jsonl",
        "--candidates",
        "/a,/b",
        "-c",
        "/c>/d",
    ]);
    let specs: Vec<&str> = a.candidates.iter().map(|c| c.spec.as_str()).collect();
    assert_eq!(specs, vec!["/a", "/b", "/c>/d"]);
}

#[test]
fn duplicate_across_flags_is_an_error() {
    let e = parse(&[
        "pkadvisor",
        "analyze",
        "x.jsonl",
        "--candidates",
        "/a",
        "-c",
        "/a",
    ])
    .unwrap_err();
    assert!(e.contains("duplicate candidate"), "{e}");
}

#[test]
fn no_candidates_means_the_automatic_search() {
    let Config::Analyze(a) = parse(&["pkadvisor", "analyze", "x.jsonl"]).unwrap() else {
        panic!("analyze")
    };
    assert!(a.auto && a.candidates.is_empty());
    let Config::Analyze(a) = parse(&[
        "pkadvisor",
        "analyze",
        "x.jsonl",
        "--candidates",
        "/a,auto",
        "-c",
        "/\"x,auto\"",
    ])
    .unwrap() else {
        panic!("analyze")
    };
    assert!(a.auto);
    let specs: Vec<&str> = a.candidates.iter().map(|c| c.spec.as_str()).collect();
    assert_eq!(specs, ["/a", "/\"x,auto\""]);
    let Config::Analyze(a) = parse(&["pkadvisor", "analyze", "x.jsonl", "-c", "/a"]).unwrap()
    else {
        panic!("analyze")
    };
    assert!(!a.auto);
}

#[test]
fn projection_and_provisioning() {
    let a = analyze(&[
        "pkadvisor",
        "analyze",
        "x",
        "-c",
        "/a",
        "--total-size",
        "2TB",
        "--autoscale-max-ru",
        "40000",
    ]);
    assert_eq!(a.projection, Some(Projection::TotalSize(2e12)));
    assert_eq!(
        a.provisioning,
        Some(Provisioning::Autoscale {
            max_ru_per_sec: 40000.0
        })
    );
    let e = parse(&[
        "pkadvisor",
        "analyze",
        "x",
        "-c",
        "/a",
        "--total-size",
        "lots",
    ])
    .unwrap_err();
    assert!(e.contains("--total-size: cannot read `lots`"), "{e}");
    let e = parse(&[
        "pkadvisor",
        "analyze",
        "x",
        "-c",
        "/a",
        "--ru",
        "1",
        "--autoscale-max-ru",
        "2",
    ])
    .unwrap_err();
    assert!(e.contains("cannot be used with"), "{e}");
}

#[test]
fn output_format_from_flag_or_extension() {
    let a = analyze(&["pkadvisor", "analyze", "x", "-c", "/a", "-o", "r.json"]);
    assert_eq!(a.format, OutputFormat::Json);
    let a = analyze(&["pkadvisor", "analyze", "x", "-c", "/a", "-o", "r.md"]);
    assert_eq!(a.format, OutputFormat::Markdown);
    let a = analyze(&["pkadvisor", "analyze", "x", "-c", "/a"]);
    assert_eq!(a.format, OutputFormat::Table);
    let a = analyze(&["pkadvisor", "analyze", "x", "-c", "/a", "-o", "r.TXT"]);
    assert_eq!(a.format, OutputFormat::Table);
    let a = analyze(&["pkadvisor", "analyze", "x", "-c", "/a", "-o", "report"]);
    assert_eq!(a.format, OutputFormat::Table);
    // A flag that agrees with the extension, or an extension naming no format, is taken as given.
    let a = analyze(&[
        "pkadvisor",
        "analyze",
        "x",
        "-c",
        "/a",
        "--format",
        "json",
        "-o",
        "r.json",
    ]);
    assert_eq!(a.format, OutputFormat::Json);
    let a = analyze(&[
        "pkadvisor",
        "analyze",
        "x",
        "-c",
        "/a",
        "--format",
        "html",
        "-o",
        "r.out",
    ]);
    assert_eq!(a.format, OutputFormat::Html);
}

#[test]
fn an_output_file_whose_extension_disagrees_is_refused() {
    let err = |args: &[&str]| parse(args).expect_err("refused");
    // Markdown in a file named .json would break whatever reads it.
    let e = err(&[
        "pkadvisor",
        "analyze",
        "x",
        "-c",
        "/a",
        "--format",
        "markdown",
        "-o",
        "r.json",
    ]);
    assert!(
        e.contains("-o r.json: the extension names json output but --format asks for markdown"),
        "{e}"
    );
    // `-o z.sarif` wrote a table before; SARIF is check's.
    let e = err(&["pkadvisor", "analyze", "x", "-c", "/a", "-o", "out/z.sarif"]);
    assert!(
        e.contains("SARIF is written by `pkadvisor check --format sarif`"),
        "{e}"
    );
    let e = err(&["pkadvisor", "analyze", "x", "-c", "/a", "-o", "z.xlsx"]);
    assert!(e.contains("`.xlsx` names no output format"), "{e}");
    // analyze does not offer sarif at all (clap lists what it takes).
    let e = err(&["pkadvisor", "analyze", "x", "-c", "/a", "--format", "sarif"]);
    assert!(
        e.contains("[possible values: table, markdown, json, html]"),
        "{e}"
    );
}

#[test]
fn limits_override_and_reject_unknown() {
    let a = analyze(&[
        "pkadvisor",
        "analyze",
        "x",
        "-c",
        "/a",
        "--limit",
        "logical_partition_bytes=1GB",
    ]);
    assert_eq!(a.limits.logical_partition_bytes, 1e9);
    let e = parse(&[
        "pkadvisor",
        "analyze",
        "x",
        "-c",
        "/a",
        "--limit",
        "bogus=1",
    ])
    .unwrap_err();
    assert!(e.contains("unknown limit `bogus`"), "{e}");
}

#[test]
fn epk_needs_something_to_do() {
    let e = parse(&["pkadvisor", "epk"]).unwrap_err();
    assert!(e.contains("give partition key values"), "{e}");
    match parse(&["pkadvisor", "epk", "--kind", "multihash", "\"a\"", "5"]).unwrap() {
        Config::Epk(c) => {
            assert_eq!(c.version, PkVersion::MultiHash);
            assert_eq!(c.values, vec!["\"a\"", "5"]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn count_flags_have_a_range_instead_of_aborting() {
    // `--top 4294967296` aborted the run (a list allocated at that size); `epk --ranges 1e9`
    // took 10 GB.
    let e = parse(&[
        "pkadvisor",
        "analyze",
        "x",
        "-c",
        "/a",
        "--top",
        "4294967296",
    ])
    .unwrap_err();
    assert_eq!(
        e,
        "--top 4294967296: must be from 0 to 100,000 (more is never useful and allocates memory for each)"
    );
    assert_eq!(
        analyze(&["pkadvisor", "analyze", "x", "-c", "/a", "--top", "100000"]).top,
        100_000
    );
    let e = parse(&["pkadvisor", "fields", "x", "--top", "100001"]).unwrap_err();
    assert!(
        e.starts_with("--top 100001: must be from 1 to 100,000"),
        "{e}"
    );
    let e = parse(&["pkadvisor", "analyze", "x", "--max-candidates", "5000"]).unwrap_err();
    assert!(
        e.starts_with("--max-candidates 5000: must be from 1 to 1,000"),
        "{e}"
    );
    let e = parse(&["pkadvisor", "epk", "--ranges", "1000000000"]).unwrap_err();
    assert!(
        e.starts_with("--ranges 1000000000: must be from 1 to 100,000"),
        "{e}"
    );
    let e = parse(&["pkadvisor", "epk", "--ranges", "0"]).unwrap_err();
    assert!(
        e.starts_with("--ranges 0: must be from 1 to 100,000"),
        "{e}"
    );
    assert!(matches!(
        parse(&["pkadvisor", "epk", "--ranges", "100000"]).unwrap(),
        Config::Epk(EpkOptions {
            ranges: Some(100_000),
            ..
        })
    ));
}

#[test]
fn a_limit_too_large_says_so() {
    let e = parse(&[
        "pkadvisor",
        "analyze",
        "x",
        "-c",
        "/a",
        "--limit",
        "item_bytes=1e308",
    ])
    .unwrap_err();
    assert!(
        e.contains("limit `item_bytes` = `1e308` is out of range: it must be from 0 to 1e18"),
        "{e}"
    );
}

#[test]
fn copy_ru_and_growth_have_an_upper_bound() {
    let e = parse(&[
        "pkadvisor",
        "analyze",
        "x",
        "-c",
        "/a",
        "--current-key",
        "/b",
        "--copy-ru",
        "1e308",
    ])
    .unwrap_err();
    assert!(e.starts_with("--copy-ru 1e308: at most 1e9"), "{e}");
    // 1.1x a day is 1.28e15 a year.
    let e = parse(&[
        "pkadvisor",
        "analyze",
        "x",
        "-c",
        "/a",
        "--growth",
        "1.1x/day",
    ])
    .unwrap_err();
    assert!(e.ends_with("(at most 1e9x a year)"), "{e}");
    let a = analyze(&[
        "pkadvisor",
        "analyze",
        "x",
        "-c",
        "/a",
        "--growth",
        "3x/month",
    ]);
    assert_eq!(a.growth_per_year, Some(3f64.powi(12)));
}

#[test]
fn rates_take_si_suffixes_and_separators() {
    use super::si_number;
    for (text, want) in [
        ("20000", 20_000.0),
        ("20,000", 20_000.0),
        ("20_000", 20_000.0),
        ("20k", 20_000.0),
        ("20K", 20_000.0),
        ("1.5M", 1_500_000.0),
        ("2G", 2e9),
        ("2e4", 20_000.0),
        (" 400 ", 400.0),
    ] {
        assert_eq!(si_number(text), Ok(want), "{text}");
    }
    for bad in ["", "k", "20kb", "twenty", "20 k", "inf", "NaN"] {
        let e = si_number(bad).unwrap_err();
        assert!(e.contains("20k"), "{bad}: {e}");
    }
    // Through the command line: --ru 20k is 20,000 RU/s.
    let cfg = analyze(&["pkadvisor", "analyze", "x.jsonl", "-c", "/a", "--ru", "20k"]);
    assert_eq!(cfg.provisioning.map(|p| p.ru_per_sec()), Some(20_000.0));
}
