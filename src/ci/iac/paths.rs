//! A declared Cosmos DB path (`/a/b`: property names separated by `/`) written in the candidate
//! grammar. The declared path is a property path, never candidate syntax: a property named
//! `a+` stays one property (`/"a+"/b`), it does not become a synthetic key.

use crate::keys::spec::{parse_candidate, KeyKind, Part};

use super::shown;

/// Characters the candidate grammar reads as syntax in an unquoted segment.
fn needs_quotes(segment: &str) -> bool {
    segment.chars().any(|c| {
        c.is_whitespace() || matches!(c, '/' | '"' | '\\' | '+' | '>' | ',' | '(' | ')' | '%')
    })
}

/// The property names of one declared path, or why it is refused.
fn segments(path: &str) -> Result<Vec<&str>, String> {
    let refuse = |why: &str| {
        Err(format!(
            "the partition key path `{}` {why}; pass the key with --key",
            shown(path)
        ))
    };
    let Some(rest) = path.strip_prefix('/') else {
        return refuse("does not start with `/`");
    };
    if path.chars().any(char::is_control) {
        return refuse("holds a control character");
    }
    if path.contains(['[', ']', '*']) {
        return refuse(
            "holds `[`, `]` or `*` (array elements and wildcards cannot be a partition key)",
        );
    }
    if path.contains('"') {
        // Cosmos DB's own quoting of a segment is not read here rather than guessed.
        return refuse("holds a `\"` (quoted segments are not read from infrastructure code)");
    }
    let segments: Vec<&str> = rest.split('/').collect();
    if segments.iter().any(|s| s.is_empty()) {
        return refuse("has an empty property name");
    }
    Ok(segments)
}

/// The candidate spec of `paths` (1 to 3 declared paths; more than one is hierarchical).
pub(super) fn spec(paths: &[String]) -> Result<String, String> {
    let mut levels = Vec::with_capacity(paths.len());
    let mut expected = Vec::with_capacity(paths.len());
    for path in paths {
        let segs = segments(path)?;
        let mut text = String::new();
        for s in &segs {
            text.push('/');
            if needs_quotes(s) {
                text.push('"');
                text.push_str(&s.replace('\\', "\\\\"));
                text.push('"');
            } else {
                text.push_str(s);
            }
        }
        levels.push(text);
        expected.push(segs);
    }
    let spec = levels.join(">");
    // The spec must read back as exactly these paths, one per level.
    let read_back = parse_candidate(&spec).ok().filter(|c| {
        let kind = if paths.len() == 1 {
            KeyKind::Single
        } else {
            KeyKind::Hierarchical
        };
        c.kind == kind
            && c.levels.len() == paths.len()
            && c.levels
                .iter()
                .all(|l| matches!(l.parts[..], [Part::Path(_)]))
            && c.paths()
                .iter()
                .zip(&expected)
                .all(|(p, e)| p.segments == *e)
    });
    match read_back {
        Some(_) => Ok(spec),
        None => Err(format!(
            "the partition key paths {} cannot be written as a pkadvisor key; pass the key with --key",
            paths
                .iter()
                .map(|p| format!("`{}`", shown(p)))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}
