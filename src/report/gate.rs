//! The `check` gate's outcome, appended to the table and Markdown renderings of a report that
//! carries one (`report.check`), so `pkadvisor report` re-renders a check run exactly.

use crate::model::CheckOutcome;

/// The gate's outcome in lines (Markdown-friendly bullets), every string from data (the key,
/// messages, file names, notes) through `esc`, the neutraliser of the sink it goes to
/// (`crate::neutralise`): nothing from data can start a line or break one.
pub fn text(gate: &CheckOutcome, esc: fn(&str) -> String) -> String {
    let mut s = format!(
        "Gate for key {}: {}\n",
        esc(&gate.key),
        if gate.passed { "PASS" } else { "FAIL" }
    );
    for v in &gate.violations {
        let at = v
            .locations
            .iter()
            .map(|l| format!("{}:{}", l.file, l.line))
            .collect::<Vec<_>>()
            .join(", ");
        let label = v.severity.label();
        let code = esc(&v.code);
        // Schema messages already list their records.
        if at.is_empty() || v.message.contains(&at) {
            s.push_str(&format!("- {label} {code}: {}\n", esc(&v.message)));
        } else {
            s.push_str(&format!(
                "- {label} {code}: {} ({})\n",
                esc(&v.message),
                esc(&at)
            ));
        }
    }
    for note in &gate.notes {
        s.push_str(&format!("- note: {}\n", esc(note)));
    }
    s
}

/// [`text`] for a terminal or CI log.
pub fn terminal(gate: &CheckOutcome) -> String {
    text(gate, |s| crate::neutralise::terminal(s).into_owned())
}
