//! Renderers only: one per output format (table, Markdown, HTML, JSON), over the one
//! [`Report`] model of `crate::model`. The JSON output is that model serialized: an API,
//! versioned by [`crate::model::SCHEMA_VERSION`] and documented field by field in
//! `docs/json-schema.md`. Change it deliberately.

pub mod compare;
pub mod fields;
pub mod fit;
pub mod gate;
pub mod html;
pub mod json;
pub mod markdown;
pub mod mermaid;
pub mod observed;
pub mod recommendation;
pub mod sections;
pub mod svg;
pub mod table;

use crate::model::Report;

pub use sections::View;

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// A terminal table.
    Table,
    /// Markdown for pull requests.
    Markdown,
    /// The versioned JSON document.
    Json,
    /// A self-contained HTML page with charts.
    Html,
}

impl OutputFormat {
    /// The format's name as `--format` takes it.
    pub fn name(self) -> &'static str {
        match self {
            OutputFormat::Table => "table",
            OutputFormat::Markdown => "markdown",
            OutputFormat::Json => "json",
            OutputFormat::Html => "html",
        }
    }

    /// The format an output file's extension names (`.json`, `.md`, `.html`), if any.
    pub fn from_extension(path: &std::path::Path) -> Option<OutputFormat> {
        match path.extension()?.to_str()? {
            "json" => Some(OutputFormat::Json),
            "md" | "markdown" => Some(OutputFormat::Markdown),
            "html" | "htm" => Some(OutputFormat::Html),
            _ => None,
        }
    }
}

/// Renders a report in the chosen format.
/// A `check` report ends with the gate's outcome (the JSON carries it as `check`).
pub fn render(report: &Report, format: OutputFormat) -> String {
    render_styled(report, format, false)
}

/// [`render`], with verdicts and severities in colour in the table when `color` (decide it
/// with [`table::use_color`]; the other formats ignore it).
/// Every format is checked line by line for CI commands at the end
/// ([`crate::neutralise::ci_lines`]): each renderer neutralises data for its sink, and this
/// guard holds whatever a layout puts at a line's start (a wrapped line, a cut cell).
pub fn render_styled(report: &Report, format: OutputFormat, color: bool) -> String {
    render_view(report, format, color, View::Summary)
}

/// [`render_styled`] showing `view` of the report in the terminal table (`-q`: the headline;
/// `--detail`: every section). Markdown, HTML and JSON always carry the whole report.
pub fn render_view(report: &Report, format: OutputFormat, color: bool, view: View) -> String {
    let table = table::TableRenderer { color, view };
    let gate = report.check.as_ref();
    let (width, given) = table::given_width();
    let gate_text = |g| {
        let text = gate::terminal(g);
        if given {
            table::wrap_text(&text, usize::from(width))
        } else {
            text
        }
    };
    let out = match (format, gate) {
        (OutputFormat::Table, None) => table.render(report),
        // A check report opens with the gate's verdict and its reasons; the analysis follows.
        (OutputFormat::Table, Some(g)) if color => format!(
            "{}\n{}",
            table::paint_lines(&gate_text(g)),
            table.render(report)
        ),
        (OutputFormat::Table, Some(g)) => {
            format!("{}\n{}", gate_text(g), table.render(report))
        }
        (OutputFormat::Markdown, None) => markdown::MarkdownRenderer.render(report),
        (OutputFormat::Markdown, Some(g)) => markdown::render_with_gate(report, g),
        (OutputFormat::Json, _) => json::JsonRenderer.render(report),
        (OutputFormat::Html, _) => html::HtmlRenderer.render(report),
    };
    crate::neutralise::ci_lines(&out).into_owned()
}

/// One renderer per output format.
pub trait Renderer {
    /// Renders the whole report.
    fn render(&self, report: &Report) -> String;
}
