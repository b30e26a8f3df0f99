//! The JSON renderer: the [`Report`] model serialized, pretty-printed, newline-terminated.

use super::{Renderer, Report};

/// Renders the versioned JSON document.
pub struct JsonRenderer;

impl Renderer for JsonRenderer {
    fn render(&self, report: &Report) -> String {
        let mut s = serde_json::to_string_pretty(report).expect("report serializes");
        s.push('\n');
        s
    }
}
