//! Fitting a terminal table to a width without breaking a word.
//!
//! The rule (docs/output.md, "Tables that fit"): a table keeps every column when each
//! column's longest word (a key spec, a path, a number, a size such as `28.6 GB`) fits beside
//! the others, headers included. Otherwise, in this order:
//!
//! 1. the ranking leaves out its detail columns (those outside `COMPACT_COLUMNS`, repeated
//!    in each candidate's details), rightmost first, until it fits;
//! 2. the table's narrow layout: the ranking keeps the columns a choice is made on, under
//!    short headers, and counts of a million or more are written short (`220.8M`); the
//!    physical layout drops its storage bar; the field profile shortens its headers;
//! 3. columns are left out one at a time, those of [`DROP_FIRST`] first (in that order), then
//!    the rightmost; the first column and the ones of [`NEVER_DROPPED`] stay;
//! 4. when even that does not fit, headers may break (cells never do while they can fit);
//!    past that, comfy-table cuts where it must (a single word wider than the terminal).
//!
//! Every column left out is named under the table, so nothing disappears silently.

/// Narrow headers of the ranking: the columns a choice is made on, with their short headers.
const COMPACT_COLUMNS: [(&str, &str); 14] = [
    ("#", "#"),
    ("candidate", "candidate"),
    ("verdict", "verdict"),
    ("RU/s to provision", "RU/s"),
    ("USD a month", "USD/mo"),
    ("score", "score"),
    ("logical partitions", "logical"),
    ("largest partition", "est. max"),
    (SAMPLE_PARTITIONS, "sample"),
    (PRODUCTION_PARTITIONS, "prod. est."),
    (PRODUCTION_LARGEST, "est. max"),
    ("% of limit", "% limit"),
    ("hottest RU/s", "hot RU/s"),
    ("hottest physical", "hot phys."),
];

/// The ranking's header of the sample's logical partitions when the sample was projected.
pub const SAMPLE_PARTITIONS: &str = "logical partitions (sample)";
/// The ranking's header of the production estimate of logical partitions.
pub const PRODUCTION_PARTITIONS: &str = "logical partitions (production, est.)";
/// The ranking's header of the production estimate of the largest logical partition.
pub const PRODUCTION_LARGEST: &str = "largest partition (production, est.)";

/// Short headers of the field profile's narrow layout.
const FIELDS_SHORT: [(&str, &str); 4] = [
    ("missing/null", "miss/null"),
    ("bytes mean/max", "bytes"),
    ("follows time", "time"),
    ("looks like", "looks"),
];

/// Columns left out first when a table cannot fit, in this order (each is repeated in the
/// details below the table, or is the least needed to choose).
pub const DROP_FIRST: [&str; 14] = [
    "score",
    "sample",
    "bytes",
    "time",
    "top value",
    "miss/null",
    "types",
    "% limit",
    "hot phys.",
    "present",
    "hot RU/s",
    // The ranking is by cost when a workload is given: the bill goes late.
    "USD/mo",
    "looks",
    "logical",
];

/// Columns never left out: what a row is about and its verdict.
pub const NEVER_DROPPED: [&str; 4] = ["#", "candidate", "verdict", "path"];

/// A table fitted to a width: its columns, the lower bound of each (empty when none could be
/// set) and the headers of the columns left out.
#[derive(Debug, PartialEq)]
pub struct Fitted {
    /// The headers kept (short ones in a narrow layout).
    pub headers: Vec<String>,
    /// The rows, with the columns kept.
    pub rows: Vec<Vec<String>>,
    /// Each column's longest word plus padding; empty when no bound could be set.
    pub bounds: Vec<u16>,
    /// The headers (as the wide layout names them) of the columns left out.
    pub left_out: Vec<String>,
}

/// Fits a table to `width` columns by the rule of this module.
pub fn fit(headers: Vec<String>, rows: Vec<Vec<String>>, width: u16) -> Fitted {
    if let Some(bounds) = bounds_for(&headers, &rows, width, true) {
        return Fitted {
            headers,
            rows,
            bounds,
            left_out: Vec::new(),
        };
    }
    let (headers, rows, mut left_out) = drop_details(headers, rows, width);
    if let Some(bounds) = bounds_for(&headers, &rows, width, true) {
        return Fitted {
            headers,
            rows,
            bounds,
            left_out,
        };
    }
    let before = headers.clone();
    let (mut headers, mut rows) = narrow(headers, rows);
    left_out.extend(
        before
            .iter()
            .filter(|h| !headers.contains(h) && !renamed(h))
            .cloned(),
    );
    loop {
        if let Some(bounds) = bounds_for(&headers, &rows, width, true) {
            return Fitted {
                headers,
                rows,
                bounds,
                left_out,
            };
        }
        let Some(i) = next_to_drop(&headers) else {
            break;
        };
        left_out.push(long_name(headers.remove(i)));
        for r in &mut rows {
            r.remove(i);
        }
    }
    let bounds = bounds_for(&headers, &rows, width, false).unwrap_or_default();
    Fitted {
        headers,
        rows,
        bounds,
        left_out,
    }
}

/// The wide layout's name of a header shown short in a narrow layout.
fn long_name(h: String) -> String {
    let short = COMPACT_COLUMNS.iter().chain(FIELDS_SHORT.iter());
    match short
        .chain([("RU/s allocated", "RU/s alloc.")].iter())
        .find(|(_, s)| *s == h)
    {
        Some((long, _)) => long.to_string(),
        None => h,
    }
}

/// Step 1½ of the rule, for the ranking only: its columns outside [`COMPACT_COLUMNS`] (each
/// candidate's details below repeat them) are left out one at a time, rightmost first, while
/// the table still does not fit; the other columns keep their full headers.
fn drop_details(
    mut headers: Vec<String>,
    mut rows: Vec<Vec<String>>,
    width: u16,
) -> (Vec<String>, Vec<Vec<String>>, Vec<String>) {
    let mut left_out = Vec::new();
    if !(headers.first().is_some_and(|h| h == "#") && headers.iter().any(|h| h == "verdict")) {
        return (headers, rows, left_out);
    }
    while bounds_for(&headers, &rows, width, true).is_none() {
        let detail = (0..headers.len())
            .rev()
            .find(|&i| !COMPACT_COLUMNS.iter().any(|(long, _)| *long == headers[i]));
        let Some(i) = detail else { break };
        left_out.push(headers.remove(i));
        for r in &mut rows {
            r.remove(i);
        }
    }
    (headers, rows, left_out)
}

/// Whether a header of the wide layout is shown under a short one in the narrow layout.
fn renamed(h: &str) -> bool {
    COMPACT_COLUMNS
        .iter()
        .any(|(long, short)| *long == h && long != short)
        || FIELDS_SHORT.iter().any(|(long, _)| *long == h)
        || h == "RU/s allocated"
}

/// The column to leave out next: the first of [`DROP_FIRST`] present, else the rightmost that
/// is neither the first nor one of [`NEVER_DROPPED`].
fn next_to_drop(headers: &[String]) -> Option<usize> {
    DROP_FIRST
        .iter()
        .find_map(|d| headers.iter().position(|h| h == d))
        .filter(|&i| i > 0)
        .or_else(|| {
            (1..headers.len())
                .rev()
                .find(|&i| !NEVER_DROPPED.contains(&headers[i].as_str()))
        })
}

/// The table's narrow layout (step 1 of the rule); tables without one are unchanged.
fn narrow(headers: Vec<String>, rows: Vec<Vec<String>>) -> (Vec<String>, Vec<Vec<String>>) {
    let first = headers.first().map(String::as_str);
    if first == Some("EPK range") {
        return compact_layout(headers, rows);
    }
    if first == Some("path") && headers.iter().any(|h| h == "looks like") {
        let short = headers
            .into_iter()
            .map(|h| match FIELDS_SHORT.iter().find(|(long, _)| *long == h) {
                Some((_, s)) => s.to_string(),
                None => h,
            })
            .collect();
        return (short, rows);
    }
    if first == Some("#") && headers.iter().any(|h| h == "verdict") {
        return compact_ranking(headers, rows);
    }
    (headers, rows)
}

/// The ranking's narrow layout: [`COMPACT_COLUMNS`] under short headers, the largest
/// partition's point without its range and counts written short (both are whole in each
/// candidate's details below).
fn compact_ranking(
    headers: Vec<String>,
    rows: Vec<Vec<String>>,
) -> (Vec<String>, Vec<Vec<String>>) {
    let keep: Vec<(usize, &str)> = headers
        .iter()
        .enumerate()
        .filter_map(|(i, h)| {
            COMPACT_COLUMNS
                .iter()
                .find(|(long, _)| long == h)
                .map(|&(_, short)| (i, short))
        })
        .collect();
    let point_only = headers
        .iter()
        .position(|h| h == "largest partition" || h == PRODUCTION_LARGEST);
    let counts = headers
        .iter()
        .position(|h| h == "logical partitions" || h == PRODUCTION_PARTITIONS);
    let rows = rows
        .into_iter()
        .map(|r| {
            keep.iter()
                .map(
                    |&(i, _)| match (Some(i) == point_only, r[i].split_once(" (")) {
                        (true, Some((point, _))) => point.to_string(),
                        _ if Some(i) == counts => short_counts(&r[i]),
                        _ => r[i].clone(),
                    },
                )
                .collect()
        })
        .collect();
    let headers = keep.iter().map(|&(_, h)| h.to_owned()).collect();
    (headers, rows)
}

/// The physical layout on a narrow terminal: the storage bar goes (bytes are beside it) and
/// utilisation keeps its percentage, so a row stays one or two lines.
fn compact_layout(headers: Vec<String>, rows: Vec<Vec<String>>) -> (Vec<String>, Vec<Vec<String>>) {
    let drop = headers.iter().position(|h| h.starts_with("storage ("));
    let util = headers.iter().position(|h| h == "utilisation");
    let keep = |i: &usize| Some(*i) != drop;
    let headers = (0..headers.len())
        .filter(keep)
        .map(|i| match headers[i].as_str() {
            "RU/s allocated" => "RU/s alloc.".to_string(),
            h => h.to_string(),
        })
        .collect();
    let rows = rows
        .into_iter()
        .map(|r| {
            (0..r.len())
                .filter(keep)
                .map(|i| match (Some(i) == util, r[i].split_once(' ')) {
                    (true, Some((_bar, pct))) => pct.to_string(),
                    _ => r[i].clone(),
                })
                .collect()
        })
        .collect();
    (headers, rows)
}

/// The longest word of a cell in columns: a size (`235 B`, `28.6 GB`) counts as one word, as
/// split it reads as two values.
pub fn longest_word(s: &str) -> usize {
    let mut longest = 0;
    let mut prev = 0;
    for w in s.split(' ') {
        let n = w.chars().count();
        let n = if matches!(w, "B" | "KB" | "MB" | "GB" | "TB" | "PB") {
            prev + 1 + n
        } else {
            n
        };
        longest = longest.max(n);
        prev = n;
    }
    longest
}

/// Each column's longest word plus its padding, with or without the headers' words, when all
/// of them fit in `width` beside the borders; `None` when they do not.
pub fn bounds_for(
    headers: &[String],
    rows: &[Vec<String>],
    width: u16,
    with_headers: bool,
) -> Option<Vec<u16>> {
    let bounds: Vec<usize> = (0..headers.len())
        .map(|i| {
            let cells = rows.iter().map(|r| longest_word(&r[i]));
            let header = if with_headers {
                longest_word(&headers[i])
            } else {
                0
            };
            cells.chain([header]).max().unwrap_or(0) + 2
        })
        .collect();
    // Content plus one border per column and the closing one.
    let total: usize = bounds.iter().map(|&b| b + 1).sum::<usize>() + 1;
    (total <= usize::from(width)).then(|| bounds.into_iter().map(|b| b as u16).collect())
}

/// Counts of a million or more in `cell` written short (`220,816,033` → `220.8M`), so a narrow
/// column does not cut them; the details below keep them whole.
pub fn short_counts(cell: &str) -> String {
    cell.split(' ')
        .map(|word| {
            let digits: String = word.chars().filter(char::is_ascii_digit).collect();
            let is_count = word
                .trim_matches(|c| c == '(' || c == ')')
                .chars()
                .all(|c| c.is_ascii_digit() || c == ',');
            match digits.parse::<f64>() {
                Ok(n) if is_count && n >= 1e6 => {
                    let (v, unit) = if n >= 1e9 {
                        (n / 1e9, "B")
                    } else {
                        (n / 1e6, "M")
                    };
                    let short = format!("{v:.1}{unit}");
                    word.replace(word.trim_matches(|c| c == '(' || c == ')'), &short)
                }
                _ => word.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests;
