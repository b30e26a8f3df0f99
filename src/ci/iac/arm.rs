//! ARM templates and Bicep-compiled JSON, read with serde_json: every resource of type
//! `Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers` (nested resources too, their
//! type relative to the parent's), its `properties.resource.partitionKey`.
//!
//! The values that matter are borrowed as `RawValue`s: their position in the text is their
//! line (serde_json gives no positions), and their text is what a refusal shows. One parse of
//! the template; a container's properties are read again once, four levels deep at most.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::{shown, Declared, Field, IacError, Lines, Lit, Paths};

const CONTAINERS: &str = "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers";

#[derive(Deserialize)]
struct Template<'a> {
    #[serde(borrow, default)]
    resources: Resources<'a>,
}

/// `resources`: an array, or (language version 2.0) an object of symbolic names.
#[derive(Default)]
struct Resources<'a>(Vec<Resource<'a>>);

#[derive(Deserialize)]
struct Resource<'a> {
    #[serde(rename = "type", default, borrow)]
    ty: Option<&'a RawValue>,
    #[serde(default, borrow)]
    name: Option<&'a RawValue>,
    #[serde(default, borrow)]
    properties: Option<&'a RawValue>,
    #[serde(default, borrow)]
    resources: Resources<'a>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Resources<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Resources<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an array or object of resources")
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut s: S) -> Result<Self::Value, S::Error> {
                let mut out = Vec::new();
                while let Some(r) = s.next_element()? {
                    out.push(r);
                }
                Ok(Resources(out))
            }
            fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<Self::Value, M::Error> {
                let mut out = Vec::new();
                while let Some((_, r)) = m.next_entry::<de::IgnoredAny, Resource<'a>>()? {
                    out.push(r);
                }
                Ok(Resources(out))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// An object's members of interest, each kept as written.
#[derive(Deserialize)]
struct Members<'a> {
    #[serde(default, borrow)]
    resource: Option<&'a RawValue>,
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    #[serde(rename = "partitionKey", default, borrow)]
    partition_key: Option<&'a RawValue>,
    #[serde(default, borrow)]
    paths: Option<&'a RawValue>,
    #[serde(default, borrow)]
    kind: Option<&'a RawValue>,
    #[serde(default, borrow)]
    version: Option<&'a RawValue>,
}

struct Reader<'t> {
    text: &'t str,
    lines: Lines,
    file: &'t str,
    out: Vec<Declared>,
}

/// An ARM string value: a literal, or an expression (`[...]`; `[[` escapes a literal `[`).
fn string_lit(s: &str) -> Lit {
    if let Some(rest) = s.strip_prefix("[[") {
        Lit::Str(format!("[{rest}"))
    } else if s.starts_with('[') && s.ends_with(']') {
        Lit::Expr
    } else {
        Lit::Str(s.to_string())
    }
}

impl Reader<'_> {
    fn line(&self, raw: &RawValue) -> u64 {
        let offset = raw.get().as_ptr() as usize - self.text.as_ptr() as usize;
        self.lines.line(offset)
    }

    fn error(&self, raw: &RawValue, e: serde_json::Error) -> IacError {
        // The position serde_json gives is within this value: the value's line stands for it.
        IacError::Invalid(self.file.to_string(), self.line(raw), not_arm(&e))
    }

    /// The value as written, and what it is.
    fn field(&self, raw: &RawValue) -> Field {
        let lit = match crate::ingest::value::from_str(raw.get()) {
            Ok(serde_json::Value::String(s)) => string_lit(&s),
            Ok(serde_json::Value::Number(_)) if raw.get().bytes().all(|b| b.is_ascii_digit()) => {
                Lit::Int(raw.get().to_string())
            }
            _ => Lit::Expr,
        };
        Field {
            lit,
            text: raw.get().to_string(),
            line: self.line(raw),
        }
    }

    /// The members of an object value; `None` when the value is no object (an expression).
    fn members<'a>(&self, raw: &'a RawValue) -> Result<Option<Members<'a>>, IacError> {
        if !raw.get().starts_with('{') {
            return Ok(None);
        }
        serde_json::from_str(raw.get())
            .map(Some)
            .map_err(|e| self.error(raw, e))
    }

    fn walk(&mut self, resources: &Resources, parent: Option<&str>) -> Result<(), IacError> {
        for r in &resources.0 {
            let ty =
                r.ty.and_then(|t| serde_json::from_str::<String>(t.get()).ok())
                    .unwrap_or_default();
            let full = match parent {
                Some(p) if !ty.split('/').next().unwrap_or("").contains('.') => format!("{p}/{ty}"),
                _ => ty,
            };
            if full.eq_ignore_ascii_case(CONTAINERS) {
                self.container(r)?;
            }
            self.walk(&r.resources, Some(&full))?;
        }
        Ok(())
    }

    /// A container resource: what its `properties.resource.partitionKey` declares.
    fn container(&mut self, r: &Resource) -> Result<(), IacError> {
        let Some(props) = r.properties else {
            return Ok(());
        };
        let as_expr = |raw: &RawValue, what| Paths::Expr {
            what,
            text: serde_json::from_str::<String>(raw.get()).unwrap_or_else(|_| raw.get().into()),
        };
        let (mut id, mut paths, mut kind, mut version) = (None, None, None, None);
        let mut at = props;
        match self.members(props)?.and_then(|m| m.resource) {
            None if !props.get().starts_with('{') => {
                paths = Some(as_expr(props, "the container's properties are"))
            }
            None => return Ok(()),
            Some(resource) => match self.members(resource)? {
                None => paths = Some(as_expr(resource, "the container's resource is")),
                Some(m) => {
                    id = m.id;
                    let Some(pk) = m.partition_key else {
                        return Ok(());
                    };
                    at = pk;
                    match self.members(pk)? {
                        None => paths = Some(as_expr(pk, "the partition key is")),
                        Some(k) => {
                            kind = k.kind.map(|v| self.field(v));
                            version = k.version.map(|v| self.field(v));
                            if let Some(p) = k.paths {
                                at = p;
                                paths = Some(self.paths(p)?);
                            }
                        }
                    }
                }
            },
        }
        let Some(paths) = paths else { return Ok(()) };
        let container = id
            .map(|v| self.field(v))
            .and_then(|f| match f.lit {
                Lit::Str(s) => Some(s),
                _ => None,
            })
            .or_else(|| r.name.and_then(name_tail));
        self.out.push(Declared {
            container,
            line: self.line(at),
            paths,
            kind,
            version,
        });
        Ok(())
    }

    fn paths(&self, raw: &RawValue) -> Result<Paths, IacError> {
        if !raw.get().starts_with('[') {
            return Ok(Paths::Expr {
                what: "the partition key paths are",
                text: serde_json::from_str::<String>(raw.get())
                    .unwrap_or_else(|_| raw.get().into()),
            });
        }
        let items: Vec<&RawValue> =
            serde_json::from_str(raw.get()).map_err(|e| self.error(raw, e))?;
        Ok(Paths::List(
            items
                .into_iter()
                .map(|item| {
                    let mut f = self.field(item);
                    if let Ok(s) = serde_json::from_str::<String>(item.get()) {
                        f.text = s;
                    }
                    f
                })
                .collect(),
        ))
    }
}

/// The container's name from the resource's `name`: the last `/` segment
/// (`"acct/db/orders"`, or an expression such as `"[concat(parameters('a'), '/db/orders')]"`).
fn name_tail(raw: &RawValue) -> Option<String> {
    let name: String = serde_json::from_str(raw.get()).ok()?;
    let tail = name.trim_end_matches([')', ']', '\'']).rsplit('/').next()?;
    (!tail.is_empty()).then(|| tail.to_string())
}

/// serde_json's message without its position (the caller gives the line); it may quote the
/// file, so it is shown safely.
fn not_arm(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    let msg = msg.rfind(" at line ").map_or(&msg[..], |i| &msg[..i]);
    format!("not an ARM template: {}", shown(msg))
}

/// Every container resource of an ARM template.
pub(super) fn read(text: &str, file: &str) -> Result<Vec<Declared>, IacError> {
    let template: Template = serde_json::from_str(text)
        .map_err(|e| IacError::Invalid(file.to_string(), e.line() as u64, not_arm(&e)))?;
    let mut reader = Reader {
        text,
        lines: Lines::new(text),
        file,
        out: Vec::new(),
    };
    reader.walk(&template.resources, None)?;
    Ok(reader.out)
}
