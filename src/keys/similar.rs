//! "Did you mean": the property name in the data that a path most likely meant, for a path
//! the data lacks (`/customerID` when documents hold `customerId`, a key renamed to
//! `customer_id`).
//!
//! The rule (docs/candidates.md, "Did you mean"): two names are alike when they are equal
//! ignoring case, `_`, `-` and spaces, or when their lower-case forms are at most
//! [`max_edits`] single-character edits apart (insertions, deletions, substitutions).

/// Edits allowed between two names of `len` characters: 1 up to 5 characters, else 2.
pub fn max_edits(len: usize) -> usize {
    if len <= 5 {
        1
    } else {
        2
    }
}

fn folded(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Levenshtein distance between two strings, by characters.
pub fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// How far `found` is from `wanted` when they are alike (0 for equal ignoring case and
/// separators), `None` when they are not alike or are the same name.
pub fn distance(wanted: &str, found: &str) -> Option<usize> {
    if wanted == found {
        return None;
    }
    if folded(wanted) == folded(found) {
        return Some(0);
    }
    let d = edits(&wanted.to_lowercase(), &found.to_lowercase());
    (d <= max_edits(wanted.chars().count())).then_some(d)
}

/// The name among `names` most like `wanted` (closest first, then the first given).
pub fn closest<'a>(wanted: &str, names: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    names
        .into_iter()
        .filter_map(|n| distance(wanted, n).map(|d| (d, n)))
        .min_by_key(|&(d, _)| d)
        .map(|(_, n)| n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_and_separators_and_small_edits_are_alike() {
        assert_eq!(distance("customerID", "customerId"), Some(0));
        assert_eq!(distance("customerId", "customer_id"), Some(0));
        assert_eq!(distance("tenantId", "tenantIds"), Some(1));
        assert_eq!(distance("tenantId", "tennatId"), Some(2));
        assert_eq!(distance("status", "total"), None);
        assert_eq!(distance("id", "ids"), Some(1));
        assert_eq!(distance("id", "id"), None);
        assert_eq!(edits("kitten", "sitting"), 3);
        assert_eq!(
            closest("customerID", ["id", "customerIds", "customerId"]),
            Some("customerId")
        );
        assert_eq!(closest("region", ["id", "total"]), None);
    }
}
