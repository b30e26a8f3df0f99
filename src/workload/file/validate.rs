//! The file's raw form as serde reads it, and its validation into a [`Workload`], every error
//! naming the file and the field.

use super::*;

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a workload mapping with consistency, indexing, writes, reads, queries, transactions, unique_keys and ordered_by"
)]
pub(super) struct RawWorkload {
    #[serde(default)]
    consistency: Option<String>,
    #[serde(default)]
    indexing: Option<Value>,
    #[serde(default)]
    writes: Option<RawWrites>,
    #[serde(default)]
    reads: Option<RawReads>,
    #[serde(default)]
    queries: Vec<RawQuery>,
    #[serde(default)]
    transactions: Vec<RawTransaction>,
    #[serde(default)]
    unique_keys: Vec<Vec<String>>,
    #[serde(default)]
    ordered_by: Vec<String>,
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a transaction mapping with name, by and per_sec"
)]
pub(super) struct RawTransaction {
    name: String,
    by: Vec<String>,
    #[serde(default)]
    per_sec: Option<Rate>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a mapping with per_sec and kind")]
pub(super) struct RawWrites {
    per_sec: Rate,
    #[serde(default)]
    kind: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a mapping with per_sec and by")]
pub(super) struct RawReads {
    per_sec: Rate,
    #[serde(default)]
    by: Vec<String>,
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a query mapping with name, per_sec, filter and ru"
)]
pub(super) struct RawQuery {
    pub(super) name: String,
    pub(super) per_sec: Rate,
    pub(super) filter: RawFilter,
    #[serde(default)]
    pub(super) ru: Option<QueryRu>,
}

/// A filter mapping, keeping the order written (and any repeated keys, reported later). The
/// operators (`eq`, `in`, `in5`, `range`, `{in: 5}`) are checked by [`Ctx::op`].
pub(super) struct RawFilter(pub(super) Vec<(String, Value)>);

impl<'de> Deserialize<'de> for RawFilter {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<RawFilter, D::Error> {
        struct FilterVisitor;
        impl<'de> Visitor<'de> for FilterVisitor {
            type Value = RawFilter;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mapping of paths to eq, in, in<N>, {in: N} or range")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawFilter, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry::<String, Value>()? {
                    out.push(entry);
                }
                Ok(RawFilter(out))
            }
        }
        d.deserialize_map(FilterVisitor)
    }
}

/// Validation context: the source name for errors.
pub(super) struct Ctx<'a> {
    pub(super) file: &'a str,
}

/// Joins a field prefix and a name: `queries[2]` + `filter` = `queries[2].filter`.
pub(super) fn field(prefix: &str, name: &str) -> String {
    match (prefix.is_empty(), name.is_empty()) {
        (true, _) => name.to_string(),
        (_, true) => prefix.to_string(),
        _ => format!("{prefix}.{name}"),
    }
}

impl Ctx<'_> {
    pub(super) fn err(&self, field: &str, message: String) -> WorkloadError {
        WorkloadError::Invalid {
            file: self.file.to_string(),
            field: field.to_string(),
            message,
        }
    }

    pub(super) fn number(&self, field: &str, text: &str) -> Result<f64, WorkloadError> {
        text.parse::<f64>()
            .map_err(|_| self.err(field, format!("expected a number, got `{text}`")))
    }

    pub(super) fn rate(&self, field: &str, value: f64) -> Result<f64, WorkloadError> {
        in_range(value, MAX_RATE, " per second").map_err(|m| self.err(field, m))
    }

    pub(super) fn query_ru(&self, field: &str, value: f64) -> Result<f64, WorkloadError> {
        in_range(value, MAX_QUERY_RU, " RU").map_err(|m| self.err(field, m))
    }

    /// The workload's point writes: their rate and kind (insert when none is given).
    fn writes(&self, w: RawWrites) -> Result<Writes, WorkloadError> {
        let kind = match w.kind {
            None => WriteKind::default(),
            Some(k) => WriteKind::ALL
                .into_iter()
                .find(|x| x.as_str() == k)
                .ok_or_else(|| {
                    self.err(
                        "writes.kind",
                        format!("unknown value `{k}`; accepted: insert, upsert, replace"),
                    )
                })?,
        };
        Ok(Writes {
            per_sec: self.rate("writes.per_sec", w.per_sec.0)?,
            kind,
        })
    }

    /// The workload's point reads: their rate and the paths the application knows (each path
    /// valid and listed once).
    fn reads(&self, r: RawReads) -> Result<Reads, WorkloadError> {
        let per_sec = self.rate("reads.per_sec", r.per_sec.0)?;
        let mut seen = std::collections::HashSet::with_capacity(r.by.len());
        for (i, path) in r.by.iter().enumerate() {
            self.path(&format!("reads.by[{i}]"), path)?;
            if !seen.insert(path.as_str()) {
                return Err(self.err(
                    &format!("reads.by[{i}]"),
                    format!("path `{path}` listed twice"),
                ));
            }
        }
        Ok(Reads { per_sec, by: r.by })
    }

    pub(super) fn workload(&self, raw: RawWorkload) -> Result<Workload, WorkloadError> {
        let consistency = match raw.consistency {
            None => Consistency::default(),
            Some(name) => Consistency::from_name(&name).ok_or_else(|| {
                let accepted: Vec<&str> = Consistency::ALL.iter().map(|c| c.as_str()).collect();
                self.err(
                    "consistency",
                    format!("unknown value `{name}`; accepted: {}", accepted.join(", ")),
                )
            })?,
        };
        let indexing = match raw.indexing {
            None => Indexing::default(),
            Some(value) => self.indexing(value)?,
        };
        let writes = raw.writes.map(|w| self.writes(w)).transpose()?;
        let reads = raw.reads.map(|r| self.reads(r)).transpose()?;
        let queries = raw
            .queries
            .into_iter()
            .enumerate()
            .map(|(i, q)| self.query(&format!("queries[{i}]"), q))
            .collect::<Result<Vec<_>, _>>()?;
        self.unique_names(&queries)?;
        let mut boundaries = Vec::new();
        for (i, t) in raw.transactions.into_iter().enumerate() {
            let f = format!("transactions[{i}]");
            if let Some(r) = t.per_sec {
                self.rate(&field(&f, "per_sec"), r.0)?;
            }
            boundaries.push(self.boundary(&f, BoundaryKind::Transaction, t.name, t.by)?);
        }
        for (i, by) in raw.unique_keys.into_iter().enumerate() {
            let f = format!("unique_keys[{i}]");
            boundaries.push(self.boundary(&f, BoundaryKind::UniqueKey, by.join(", "), by)?);
        }
        for (i, path) in raw.ordered_by.into_iter().enumerate() {
            let f = format!("ordered_by[{i}]");
            boundaries.push(self.boundary(&f, BoundaryKind::Ordering, path.clone(), vec![path])?);
        }
        Ok(Workload {
            consistency,
            indexing,
            writes,
            reads,
            queries,
            boundaries,
        })
    }

    pub(super) fn boundary(
        &self,
        f: &str,
        kind: BoundaryKind,
        name: String,
        by: Vec<String>,
    ) -> Result<Boundary, WorkloadError> {
        if by.is_empty() {
            return Err(self.err(&field(f, "by"), "must name at least one path".into()));
        }
        for p in &by {
            self.path(&field(f, "by"), p)?;
        }
        Ok(Boundary { kind, name, by })
    }

    /// One pass with a map of names: the check was quadratic in the number of queries.
    pub(super) fn unique_names(&self, queries: &[QuerySpec]) -> Result<(), WorkloadError> {
        let mut first = std::collections::HashMap::with_capacity(queries.len());
        for (i, q) in queries.iter().enumerate() {
            if let Some(first) = first.insert(q.name.as_str(), i) {
                return Err(self.err(
                    &format!("queries[{i}].name"),
                    format!("duplicate query name `{}` (also queries[{first}])", q.name),
                ));
            }
        }
        Ok(())
    }

    /// Checks that `text` is one property path in the candidate grammar (e.g. `/a/b`, `/"a b"`).
    pub(super) fn path(&self, field: &str, text: &str) -> Result<(), WorkloadError> {
        if !text.starts_with('/') {
            return Err(self.err(field, format!("path `{text}` must start with `/`")));
        }
        match parse_candidate(text) {
            Ok(c) if c.kind == KeyKind::Single && matches!(c.levels[0].parts[0], Part::Path(_)) => {
                Ok(())
            }
            Ok(_) => Err(self.err(field, format!("`{text}` is not a single property path"))),
            Err(e) => Err(self.err(field, format!("invalid path `{text}`: {}", e.message))),
        }
    }

    pub(super) fn query(&self, prefix: &str, q: RawQuery) -> Result<QuerySpec, WorkloadError> {
        if q.name.trim().is_empty() {
            return Err(self.err(&field(prefix, "name"), "must not be empty".to_string()));
        }
        let per_sec = self.rate(&field(prefix, "per_sec"), q.per_sec.0)?;
        let ru = match q.ru {
            None => None,
            Some(ru) => Some(self.query_ru(&field(prefix, "ru"), ru.0)?),
        };
        let filter_field = field(prefix, "filter");
        if q.filter.0.is_empty() {
            return Err(self.err(
                &filter_field,
                "must name at least one path (a query without a filter reads every partition; \
                 describe it with the property it scans, e.g. `/type: range`)"
                    .to_string(),
            ));
        }
        let mut filter: Vec<(String, FilterOp)> = Vec::with_capacity(q.filter.0.len());
        let mut seen = std::collections::HashSet::with_capacity(q.filter.0.len());
        for (path, op) in q.filter.0 {
            self.path(&filter_field, &path)?;
            if !seen.insert(path.clone()) {
                return Err(self.err(&filter_field, format!("path `{path}` listed twice")));
            }
            let op_field = format!("{filter_field}.{path}");
            let op = self.op(&op_field, op)?;
            filter.push((path, op));
        }
        Ok(QuerySpec {
            name: q.name,
            per_sec,
            filter,
            ru,
        })
    }

    pub(super) fn indexing(&self, value: Value) -> Result<Indexing, WorkloadError> {
        const ACCEPTED: &str = "accepted: default, none, { included_paths: n }";
        match &value {
            Value::String(name) if name == "default" => Ok(Indexing::Default),
            Value::String(name) if name == "none" => Ok(Indexing::None),
            Value::String(name) => {
                Err(self.err("indexing", format!("unknown value `{name}`; {ACCEPTED}")))
            }
            Value::Mapping(map) if map.len() == 1 && map.contains_key("included_paths") => {
                match map.get("included_paths").and_then(whole_number) {
                    Some(n) => Ok(Indexing::IncludedPaths(n)),
                    None => Err(self.err(
                        "indexing.included_paths",
                        format!(
                            "must be a whole number from 0 to 4,294,967,295, got {}",
                            show(&map["included_paths"])
                        ),
                    )),
                }
            }
            other => Err(self.err("indexing", format!("got {}; {ACCEPTED}", show(other)))),
        }
    }

    pub(super) fn op(&self, field: &str, op: Value) -> Result<FilterOp, WorkloadError> {
        const ACCEPTED: &str = "accepted: eq, in, in<N>, {in: N}, range";
        match &op {
            Value::String(name) => FilterOp::from_name(name)
                .ok_or_else(|| self.err(field, format!("unknown operator `{name}`; {ACCEPTED}"))),
            Value::Mapping(map) if map.len() == 1 && map.contains_key("in") => {
                match map.get("in").and_then(whole_number).filter(|n| *n >= 1) {
                    Some(n) => Ok(FilterOp::In(n)),
                    None => Err(self.err(
                        field,
                        format!(
                            "`in` needs a whole number of values from 1 to 4,294,967,295, got {}",
                            show(&map["in"])
                        ),
                    )),
                }
            }
            other => Err(self.err(field, format!("got {}; {ACCEPTED}", show(other)))),
        }
    }
}

/// A non-negative integer that fits `u32`.
pub(super) fn whole_number(v: &Value) -> Option<u32> {
    v.as_u64().and_then(|n| u32::try_from(n).ok()).or_else(|| {
        v.as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= f64::from(u32::MAX))
            .map(|f| f as u32)
    })
}

/// A short rendering of a value for error messages.
pub(super) fn show(v: &Value) -> String {
    match v {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("`{s}`"),
        Value::Sequence(_) => "a list".to_string(),
        Value::Mapping(_) => "a mapping".to_string(),
        Value::Tagged(t) => format!("tagged value `{}`", t.tag),
    }
}
