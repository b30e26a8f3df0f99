//! A linear check of a YAML workload's shape (nesting depth, number of values) before
//! yaml_serde reads it.
//!
//! libyaml's scanner walks its stack of possible simple keys, one entry per open flow collection,
//! for every token, so text nested N levels deep costs N × tokens; and yaml_serde collects every
//! event of the document before its own recursion limit (128) applies. 200 KB of `[{a: ` took
//! over a minute. This drives the same parser event by event and stops at the first collection
//! deeper than [`MAX_DEPTH`]: until then every token costs at most a bounded stack walk, so the
//! check, and the yaml_serde read after it, are linear in the file's size.
//!
//! yaml_serde also holds every event of the document (about 240 bytes each, measured) and the
//! values it builds: 2.4 MB of `[[]],` took 580 MB. [`MAX_NODES`] bounds that to tens of MB.

use std::marker::PhantomData;
use std::mem::MaybeUninit;

use libyaml_rs as sys;

/// The deepest nesting of mappings and lists a workload file may have. The format itself needs 5
/// (the file, `queries`, one query, its `filter`, an `{in: N}` operator).
pub const MAX_DEPTH: usize = 32;

/// The most values (keys, scalars, aliases, mappings and lists) a workload file may hold. A
/// query is about 12; 200,000 allow over 15,000 queries.
pub const MAX_NODES: usize = 200_000;

/// What is wrong with the file's shape, and where (1-based line and column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// The first mapping or list deeper than [`MAX_DEPTH`] starts here.
    TooDeep {
        /// Line of the collection's first character.
        line: u64,
        /// Column of the collection's first character.
        column: u64,
    },
    /// The value past [`MAX_NODES`] starts here.
    TooMany {
        /// Line of the value's first character.
        line: u64,
        /// Column of the value's first character.
        column: u64,
    },
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Shape::TooDeep { line, column } => write!(
                f,
                "nesting deeper than {MAX_DEPTH} levels at line {line} column {column} \
                 (the workload format needs 5 at most)"
            ),
            Shape::TooMany { line, column } => write!(
                f,
                "more than {} values (keys, numbers, strings, lists, mappings) at line {line} \
                 column {column} (a query needs about 12)",
                crate::fmt::count(MAX_NODES as f64)
            ),
        }
    }
}

/// `Err` at the first mapping or list nested deeper than [`MAX_DEPTH`] or the first value past
/// [`MAX_NODES`]. Text that is not valid YAML is `Ok` up to its error: yaml_serde then reports
/// the error with its position.
pub fn check(text: &str) -> Result<(), Shape> {
    let mut parser = Parser::new(text.as_bytes());
    let (mut depth, mut nodes) = (0usize, 0usize);
    while let Some((kind, mark)) = parser.next() {
        let (line, column) = (mark.line.saturating_add(1), mark.column.saturating_add(1));
        match kind {
            sys::YAML_SEQUENCE_START_EVENT | sys::YAML_MAPPING_START_EVENT => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(Shape::TooDeep { line, column });
                }
            }
            sys::YAML_SEQUENCE_END_EVENT | sys::YAML_MAPPING_END_EVENT => {
                depth = depth.saturating_sub(1);
                continue;
            }
            sys::YAML_SCALAR_EVENT | sys::YAML_ALIAS_EVENT => {}
            sys::YAML_STREAM_END_EVENT => break,
            _ => continue,
        }
        nodes += 1;
        if nodes > MAX_NODES {
            return Err(Shape::TooMany { line, column });
        }
    }
    Ok(())
}

/// [`check`] for a JSON workload, by one pass over its bytes: serde_json is linear, but the
/// values it builds for `indexing` and the filter operators took 740 MB for 30 MB of `[],`.
/// Values are counted as openers, `:` and `,` outside strings, plus one (each key and each
/// value once); the position is that of the character that passes the limit.
pub fn check_json(text: &str) -> Result<(), Shape> {
    let (mut depth, mut nodes) = (0usize, 1usize);
    let (mut line, mut column) = (1u64, 0u64);
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        column += 1;
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '\n' => {
                line += 1;
                column = 0;
            }
            '[' | '{' => {
                depth += 1;
                nodes += 1;
                if depth > MAX_DEPTH {
                    return Err(Shape::TooDeep { line, column });
                }
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            ':' | ',' => nodes += 1,
            _ => {}
        }
        if nodes > MAX_NODES {
            return Err(Shape::TooMany { line, column });
        }
    }
    Ok(())
}

/// libyaml's event parser over a borrowed text. Boxed: libyaml keeps a pointer to the parser
/// inside itself once it has an input, so it must not move.
struct Parser<'a> {
    sys: Box<MaybeUninit<sys::yaml_parser_t>>,
    _input: PhantomData<&'a [u8]>,
}

impl<'a> Parser<'a> {
    fn new(input: &'a [u8]) -> Parser<'a> {
        let mut sys = Box::new(MaybeUninit::<sys::yaml_parser_t>::uninit());
        // SAFETY: `initialize` zeroes and sets up the whole struct (it aborts, never fails,
        // when memory runs out); the input outlives the parser (`'a`), and the box keeps the
        // parser at one address for the self-pointer `set_input_string` stores.
        unsafe {
            let p = sys.as_mut_ptr();
            let _ = sys::yaml_parser_initialize(p);
            sys::yaml_parser_set_encoding(p, sys::YAML_UTF8_ENCODING);
            sys::yaml_parser_set_input_string(p, input.as_ptr(), input.len() as u64);
        }
        Parser {
            sys,
            _input: PhantomData,
        }
    }

    /// The next event's kind and start, or `None` after an error or the end of the stream.
    fn next(&mut self) -> Option<(sys::yaml_event_type_t, sys::yaml_mark_t)> {
        let mut event = MaybeUninit::<sys::yaml_event_t>::uninit();
        // SAFETY: the parser was initialized in `new`; `yaml_parser_parse` zeroes the event
        // before anything else and fills it on success; the event is deleted once read.
        unsafe {
            let p = self.sys.as_mut_ptr();
            if (&(*p)).error != sys::YAML_NO_ERROR {
                return None;
            }
            let e = event.as_mut_ptr();
            if sys::yaml_parser_parse(p, e).fail {
                return None;
            }
            let out = ((*e).type_, (*e).start_mark);
            sys::yaml_event_delete(e);
            (out.0 != sys::YAML_NO_EVENT).then_some(out)
        }
    }
}

impl Drop for Parser<'_> {
    fn drop(&mut self) {
        // SAFETY: initialized in `new`, deleted once.
        unsafe { sys::yaml_parser_delete(self.sys.as_mut_ptr()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_formats_own_depth_passes() {
        let text = "queries:\n  - name: a\n    per_sec: 1\n    filter: { /a: { in: 5 } }\n";
        assert_eq!(check(text), Ok(()));
    }

    #[test]
    fn flow_nesting_deeper_than_the_limit_is_found_where_it_starts() {
        // `indexing: ` is 10 characters and the top mapping is level 1: level 33 is the 32nd `[`,
        // at column 11 + 31.
        let text = format!("indexing: {}", "[".repeat(40_000));
        assert_eq!(
            check(&text),
            Err(Shape::TooDeep {
                line: 1,
                column: 42
            })
        );
        let text = format!("a: 1\nindexing: {}1{}\n", "[".repeat(32), "]".repeat(32));
        assert_eq!(
            check(&text),
            Err(Shape::TooDeep {
                line: 2,
                column: 42
            })
        );
        let text = format!("indexing: {}1{}\n", "[".repeat(31), "]".repeat(31));
        assert_eq!(check(&text), Ok(()), "32 levels in all pass");
    }

    #[test]
    fn block_nesting_counts_too() {
        let mut text = String::new();
        for i in 0..40 {
            text.push_str(&format!("{}k{i}:\n", " ".repeat(i)));
        }
        text.push_str(&format!("{}1\n", " ".repeat(40)));
        // Mapping 33 starts at `k32`, line 33, indented 32.
        assert_eq!(
            check(&text),
            Err(Shape::TooDeep {
                line: 33,
                column: 33
            })
        );
    }

    #[test]
    fn values_past_the_limit_are_refused_at_the_first_one_over() {
        // The top mapping, `indexing`, the list: 3 values; then one per `1` on its own line.
        let mut text = String::from("indexing:\n");
        text.push_str(&"- 1\n".repeat(MAX_NODES - 3));
        assert_eq!(check(&text), Ok(()));
        text.push_str("- 1\n");
        let line = (MAX_NODES - 3 + 2) as u64;
        assert_eq!(check(&text), Err(Shape::TooMany { line, column: 3 }));
        assert_eq!(
            Shape::TooMany { line: 7, column: 3 }.to_string(),
            "more than 200,000 values (keys, numbers, strings, lists, mappings) at line 7 \
             column 3 (a query needs about 12)"
        );
    }

    #[test]
    fn json_is_bounded_the_same_way() {
        let ok = r#"{"queries": [{"name": "a,[{", "per_sec": 1, "filter": {"/a": {"in": 5}}}]}"#;
        assert_eq!(check_json(ok), Ok(()));
        // `{` is level 1, then `"a":` and 31 more `[`: level 33 at column 6 + 31 = 37.
        let deep = format!("{{\"a\":{}", "[".repeat(40));
        assert_eq!(
            check_json(&deep),
            Err(Shape::TooDeep {
                line: 1,
                column: 37
            })
        );
        // The count starts at 1; `{` (column 1) makes it 2, `:` (5) 3, `[` (6) 4, and comma k
        // (column 6 + 2k) 4 + k: 200,001 at k = 199,997, column 400,000.
        let many = format!("{{\"i\":[{}]}}", "0,".repeat(MAX_NODES));
        assert_eq!(
            check_json(&many),
            Err(Shape::TooMany {
                line: 1,
                column: 400_000
            })
        );
        // Escaped quotes and brackets inside strings do not count.
        let quoted = format!(
            "{{\"a\":\"{}\\\"{}\"}}",
            "[".repeat(100),
            ",".repeat(300_000)
        );
        assert_eq!(check_json(&quoted), Ok(()));
    }

    #[test]
    fn invalid_yaml_is_left_to_yaml_serde() {
        assert_eq!(check("a: [1, 2\nb: ]]]"), Ok(()));
        assert_eq!(check(""), Ok(()));
    }
}
