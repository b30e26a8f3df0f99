//! The `check` gate's outcome, appended to the table and Markdown renderings of a report that
//! carries one (`report.check`), so `pkadvisor report` re-renders a check run exactly.

use crate::model::CheckOutcome;

/// The gate's outcome in lines (Markdown-friendly bullets).
pub fn text(gate: &CheckOutcome) -> String {
    let mut s = format!(
        "Gate for key {}: {}\n",
        gate.key,
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
        // Schema messages already list their records.
        if at.is_empty() || v.message.contains(&at) {
            s.push_str(&format!("- {label} {}: {}\n", v.code, v.message));
        } else {
            s.push_str(&format!("- {label} {}: {} ({at})\n", v.code, v.message));
        }
    }
    for note in &gate.notes {
        s.push_str(&format!("- note: {note}\n"));
    }
    s
}
