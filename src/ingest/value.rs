//! JSON text to a [`serde_json::Value`] in which every property name is an ordinary name.
//!
//! serde_json built with its `raw_value` feature (which `ci/iac/arm.rs` needs to point at a
//! template's values) gives one name a meaning of its own when it builds a `Value`: an object
//! whose first property is named `$serde_json::private::RawValue` is read as the JSON text its
//! value holds. `{"$serde_json::private::RawValue":"[1]"}` becomes the array `[1]`, and with a
//! value that is not such a text the whole record is refused. Samples come from pull requests and
//! may hold any name, so every reader of untrusted JSON builds its `Value` here (`tools/arch.py`
//! refuses any other way of building one from text). The numbers, strings, order of names and
//! errors are serde_json's own: only the visitor differs.

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Parses `bytes` as one JSON value (whitespace around it allowed), as `serde_json::from_slice`
/// does, with no name special.
pub fn from_slice(bytes: &[u8]) -> serde_json::Result<Value> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let Plain(v) = Plain::deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// [`from_slice`] for text.
pub fn from_str(text: &str) -> serde_json::Result<Value> {
    from_slice(text.as_bytes())
}

/// A `Value` read as [`from_slice`] reads one, for a field of a deserialized struct
/// (`#[serde(deserialize_with = "…::plain")]`: a saved report read back, say).
pub fn plain<'de, D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
    Plain::deserialize(d).map(|p| p.0)
}

/// An optional `Value` read as [`from_slice`] reads one, for a field of a deserialized struct
/// (`#[serde(default, deserialize_with = "…::option")]`).
pub fn option<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Option::<Plain>::deserialize(d).map(|o| o.map(|p| p.0))
}

/// A `Value` read with no name special at every level: what to ask a deserializer for where a
/// `Value` is one element of something larger (an array's rows read one at a time).
pub struct Plain(pub Value);

impl<'de> Deserialize<'de> for Plain {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(PlainVisitor).map(Plain)
    }
}

/// serde_json's own `Value` visitor, less the classification of an object's first name.
struct PlainVisitor;

impl<'de> Visitor<'de> for PlainVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_f64<E>(self, f: f64) -> Result<Value, E> {
        Ok(Number::from_f64(f).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        plain(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(Plain(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut m = Map::new();
        while let Some((k, Plain(v))) = map.next_entry::<String, Plain>()? {
            m.insert(k, v);
        }
        Ok(Value::Object(m))
    }
}

#[cfg(test)]
mod tests;
