//! One row of a key-statistics table (`analyze --key-stats`, docs/scale.md) as read from any
//! format; `stats::key_stats` loads the rows into an accumulator.

/// One row, as read from any format.
#[derive(Debug, Default, serde::Deserialize)]
pub struct Row {
    /// The candidate's spec.
    pub candidate: String,
    /// The key as a JSON array (text, or an array in JSON Lines).
    #[serde(default, deserialize_with = "super::value::option")]
    pub key: Option<serde_json::Value>,
    /// Why the documents have no key.
    #[serde(default)]
    pub error: Option<String>,
    /// Documents.
    pub documents: u64,
    /// Minified JSON bytes of those documents.
    pub bytes: u64,
    /// Earliest time-field value.
    #[serde(default, deserialize_with = "super::value::option")]
    pub first_time: Option<serde_json::Value>,
    /// Latest time-field value.
    #[serde(default, deserialize_with = "super::value::option")]
    pub last_time: Option<serde_json::Value>,
}
