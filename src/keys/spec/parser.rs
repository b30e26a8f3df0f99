//! The parser of one candidate's text (the grammar in [`super`]): levels, parts, `hash(...)%N`
//! and time functions, paths and their quoted or unquoted segments. Every error carries the byte
//! offset of the offending character.

use super::{
    KeyPath, Level, Part, SpecError, TimeUnit, MAX_HASH_BUCKETS, MAX_LEVELS, MIN_HASH_BUCKETS,
    WHITESPACE_IN_PATH,
};

/// Characters that end an unquoted segment (besides whitespace).
fn is_special(c: char) -> bool {
    matches!(c, '/' | '"' | '+' | '>' | ',' | '(' | ')' | '%')
}

/// Characters that may legitimately follow a complete path.
fn ends_path(c: Option<char>) -> bool {
    matches!(c, None | Some('+' | '>' | ',' | ')' | '%'))
}

/// A recursive-descent parser over `src[pos..end]`; `pos` advances as it reads, and every
/// error's offset is into the whole `src`.
pub(super) struct Parser<'a> {
    pub(super) src: &'a str,
    pub(super) pos: usize,
    pub(super) end: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.src[self.pos..self.end].chars().next()
    }

    fn skip_ws(&mut self) {
        while let Some(c) = self.peek() {
            if !c.is_whitespace() {
                break;
            }
            self.pos += c.len_utf8();
        }
    }

    fn err(&self, offset: usize, message: impl Into<String>) -> SpecError {
        SpecError {
            input: self.src.to_string(),
            offset,
            message: message.into(),
        }
    }

    fn unexpected(&self, c: char) -> SpecError {
        self.err(
            self.pos,
            format!("unexpected `{c}`; expected `+`, `>` or the end of the candidate"),
        )
    }

    /// Parses a whole candidate: its levels, separated by `>`.
    pub(super) fn candidate(&mut self) -> Result<Vec<Level>, SpecError> {
        self.skip_ws();
        let mut levels = vec![self.level(None)?];
        loop {
            self.skip_ws();
            match self.peek() {
                None => return Ok(levels),
                Some('>') => {
                    if levels.len() == MAX_LEVELS {
                        return Err(self.err(
                            self.pos,
                            format!("hierarchical keys allow at most {MAX_LEVELS} levels"),
                        ));
                    }
                    self.pos += 1;
                    self.skip_ws();
                    let level_start = self.pos;
                    let level = self.level(Some('>'))?;
                    if levels.iter().any(|l| l.same_key(&level)) {
                        return Err(self.err(level_start, "level repeated in hierarchical key"));
                    }
                    levels.push(level);
                }
                Some(c) => return Err(self.unexpected(c)),
            }
        }
    }

    fn level(&mut self, after: Option<char>) -> Result<Level, SpecError> {
        let mut parts: Vec<Part> = Vec::new();
        let mut after = after;
        loop {
            self.skip_ws();
            let (part, path_offset) = self.part(after)?;
            if parts
                .iter()
                .any(|p| p.path().segments == part.path().segments)
            {
                return Err(self.err(path_offset, "path repeated in synthetic key"));
            }
            parts.push(part);
            self.skip_ws();
            if self.peek() == Some('+') {
                self.pos += 1;
                after = Some('+');
            } else {
                return Ok(Level { parts });
            }
        }
    }

    /// Parses one part; returns it with the byte offset of its path.
    fn part(&mut self, after: Option<char>) -> Result<(Part, usize), SpecError> {
        match self.peek() {
            Some('/') => {
                let offset = self.pos;
                Ok((Part::Path(self.path()?), offset))
            }
            Some(c) if c.is_ascii_alphabetic() => self.function(),
            None => {
                let message = match after {
                    Some(op) => format!("expected a path starting with `/` after `{op}`"),
                    None => "expected a path starting with `/`".to_string(),
                };
                Err(self.err(self.pos, message))
            }
            Some(_) => Err(self.err(self.pos, "expected a path starting with `/`")),
        }
    }

    fn function(&mut self) -> Result<(Part, usize), SpecError> {
        let name_start = self.pos;
        while let Some(c) = self.peek() {
            if !(c.is_ascii_alphanumeric() || c == '_') {
                break;
            }
            self.pos += 1;
        }
        let name = &self.src[name_start..self.pos];
        let after_name = self.pos;
        self.skip_ws();
        if self.peek() != Some('(') {
            let next = self.src[after_name..self.end].chars().next();
            let message = if ends_path(next) || next.is_some_and(char::is_whitespace) {
                format!("expected a path starting with `/` (did you mean `/{name}`?)")
            } else {
                "expected a path starting with `/`".to_string()
            };
            return Err(self.err(name_start, message));
        }
        let unit = TimeUnit::from_name(name);
        if name != "hash" && unit.is_none() {
            return Err(self.err(
                name_start,
                format!("unknown function `{name}`; expected hash, hour, day, month or year"),
            ));
        }
        self.pos += 1; // '('
        self.skip_ws();
        let path_offset = self.pos;
        if self.peek() != Some('/') {
            return Err(self.err(self.pos, "expected a path starting with `/`"));
        }
        let path = self.path()?;
        self.skip_ws();
        if self.peek() != Some(')') {
            return Err(self.err(self.pos, format!("expected `)` to close `{name}(`")));
        }
        self.pos += 1;
        if let Some(unit) = unit {
            return Ok((Part::Time { unit, path }, path_offset));
        }
        self.skip_ws();
        if self.peek() != Some('%') {
            return Err(self.err(
                self.pos,
                "expected `%` and a bucket count after `hash(...)`, e.g. `hash(/id)%16`",
            ));
        }
        self.pos += 1;
        self.skip_ws();
        let digits_start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        let digits = &self.src[digits_start..self.pos];
        if digits.is_empty() {
            return Err(self.err(
                digits_start,
                "expected a bucket count (a number from 2 to 65536) after `%`",
            ));
        }
        let buckets = digits
            .parse::<u32>()
            .ok()
            .filter(|n| (MIN_HASH_BUCKETS..=MAX_HASH_BUCKETS).contains(n))
            .ok_or_else(|| {
                self.err(
                    digits_start,
                    format!(
                        "hash bucket count must be between {MIN_HASH_BUCKETS} and {MAX_HASH_BUCKETS}"
                    ),
                )
            })?;
        Ok((Part::Hash { path, buckets }, path_offset))
    }

    /// Parses a path; the current character is `/`.
    fn path(&mut self) -> Result<KeyPath, SpecError> {
        let start = self.pos;
        let mut segments = Vec::new();
        loop {
            let slash = self.pos;
            self.pos += 1; // '/'
            match self.peek() {
                Some('"') => segments.push(self.quoted()?),
                Some('/') => return Err(self.err(self.pos, "empty path segment `//`")),
                Some(c) if c.is_whitespace() => return Err(self.err(self.pos, WHITESPACE_IN_PATH)),
                None | Some('+' | '>' | ',' | '(' | ')' | '%') => {
                    return Err(if segments.is_empty() {
                        self.err(self.pos, "expected a property name after `/`")
                    } else {
                        self.err(slash, "trailing `/`: a path cannot end with `/`")
                    });
                }
                Some(_) => segments.push(self.unquoted()?),
            }
            match self.peek() {
                Some('/') => continue,
                Some(c) if c.is_whitespace() => {
                    let ws = self.pos;
                    let rest = self.src[ws..self.end].trim_start();
                    if !ends_path(rest.chars().next()) {
                        return Err(self.err(ws, WHITESPACE_IN_PATH));
                    }
                    break;
                }
                _ => break,
            }
        }
        Ok(KeyPath {
            text: self.src[start..self.pos].to_string(),
            segments,
        })
    }

    fn unquoted(&mut self) -> Result<String, SpecError> {
        let start = self.pos;
        while let Some(c) = self.peek() {
            match c {
                '*' => {
                    return Err(self.err(
                        self.pos,
                        "wildcards (`*`) are not allowed in partition key paths",
                    ))
                }
                '[' | ']' => {
                    return Err(self.err(
                        self.pos,
                        "array paths (`[...]`) are not allowed in partition key paths",
                    ))
                }
                '"' => {
                    return Err(self.err(
                        self.pos,
                        "unexpected `\"` inside a segment; quote the whole segment, e.g. /\"a b\"",
                    ))
                }
                c if is_special(c) || c.is_whitespace() => break,
                c => self.pos += c.len_utf8(),
            }
        }
        Ok(self.src[start..self.pos].to_string())
    }

    /// Parses a quoted segment; the current character is `"`.
    fn quoted(&mut self) -> Result<String, SpecError> {
        let open = self.pos;
        self.pos += 1;
        let mut value = String::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(self.err(open, "unterminated quote: missing closing `\"`"));
            };
            let at = self.pos;
            self.pos += c.len_utf8();
            match c {
                '"' => break,
                '\\' => match self.peek() {
                    Some(e @ ('"' | '\\')) => {
                        value.push(e);
                        self.pos += 1;
                    }
                    None => {
                        return Err(self.err(open, "unterminated quote: missing closing `\"`"))
                    }
                    Some(e) => {
                        return Err(self.err(
                            at,
                            format!(
                                "unsupported escape `\\{e}` in quoted segment; only `\\\"` and `\\\\` are allowed"
                            ),
                        ))
                    }
                },
                c => value.push(c),
            }
        }
        if value.is_empty() {
            return Err(self.err(open, "empty quoted segment `\"\"`"));
        }
        match self.peek() {
            Some(c) if !c.is_whitespace() && !is_special(c) => Err(self.err(
                self.pos,
                format!(
                    "unexpected `{c}` after closing quote; expected `/` or the end of the path"
                ),
            )),
            Some('"') => Err(self.err(
                self.pos,
                "unexpected `\"` after closing quote; escape quotes inside a segment as `\\\"`",
            )),
            _ => Ok(value),
        }
    }
}
