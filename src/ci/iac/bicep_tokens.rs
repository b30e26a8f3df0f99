//! Bicep's tokens: identifiers, integers, strings (`'...'` with `\'` escapes, `${...}`
//! interpolation whose braces and strings nest, `'''multi-line'''`), newlines (Bicep ends
//! statements and items with them) and single characters; comments are dropped. One pass, each
//! byte read once: an unclosed string or comment is an error at its start.

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Kind {
    Ident,
    /// A string without interpolation (its value is in `Token::value`).
    Str,
    /// A string with `${...}`: an expression.
    Template,
    Int,
    Newline,
    /// Any other character (`{`, `:`, `?`...).
    Punct(char),
}

#[derive(Debug, Clone)]
pub(super) struct Token {
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
    /// A string's value, unescaped.
    pub value: String,
}

pub(super) struct Lexer<'t> {
    pub text: &'t str,
    pub bytes: &'t [u8],
    pub pos: usize,
}

impl Lexer<'_> {
    fn error(&self, at: usize, msg: &str) -> (usize, String) {
        (at, msg.to_string())
    }

    /// All tokens, or the offset and reason of the first error.
    pub fn tokens(mut self) -> Result<Vec<Token>, (usize, String)> {
        let mut out = Vec::new();
        while self.pos < self.bytes.len() {
            if let Some(t) = self.token()? {
                out.push(t);
            }
        }
        Ok(out)
    }

    /// The token at `self.pos`, moving past it; `None` for blanks and comments that do not end
    /// a statement.
    fn token(&mut self) -> Result<Option<Token>, (usize, String)> {
        let start = self.pos;
        let b = self.bytes[start];
        let kind = match b {
            b' ' | b'\t' | b'\r' => {
                self.pos += 1;
                return Ok(None);
            }
            b'\n' => {
                self.pos += 1;
                Kind::Newline
            }
            b'/' if matches!(self.bytes.get(self.pos + 1), Some(b'/' | b'*')) => {
                match self.comment()? {
                    Some(kind) => kind,
                    None => return Ok(None),
                }
            }
            b'\'' => return self.string_token().map(Some),
            b'0'..=b'9' => {
                self.skip_while(|b| b.is_ascii_digit());
                Kind::Int
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                self.skip_while(|b| b.is_ascii_alphanumeric() || b == b'_');
                Kind::Ident
            }
            _ => {
                let c = self.text[start..].chars().next().unwrap_or('\u{fffd}');
                self.pos += c.len_utf8();
                Kind::Punct(c)
            }
        };
        Ok(Some(Token {
            kind,
            start,
            end: self.pos,
            value: String::new(),
        }))
    }

    fn skip_while(&mut self, f: impl Fn(u8) -> bool) {
        while self.bytes.get(self.pos).is_some_and(|&b| f(b)) {
            self.pos += 1;
        }
    }

    /// Skips the `//` or `/*` comment at `self.pos`: `Some(Newline)` for a `/* */` comment over
    /// several lines (it still ends the statement it is in), `None` otherwise.
    fn comment(&mut self) -> Result<Option<Kind>, (usize, String)> {
        let start = self.pos;
        if self.bytes.get(start + 1) == Some(&b'/') {
            self.pos =
                memchr::memchr(b'\n', &self.bytes[start..]).map_or(self.bytes.len(), |i| start + i);
            return Ok(None);
        }
        let end = memchr::memmem::find(&self.bytes[start + 2..], b"*/")
            .ok_or_else(|| self.error(start, "a `/*` comment is never closed"))?;
        self.pos = start + 2 + end + 2;
        Ok(memchr::memchr(b'\n', &self.bytes[start..self.pos]).map(|_| Kind::Newline))
    }

    /// The string at `self.pos`: a `'''` multi-line string (verbatim), or a `'...'` string
    /// (a template when it interpolates).
    fn string_token(&mut self) -> Result<Token, (usize, String)> {
        let start = self.pos;
        let (kind, value) = if self.bytes[start..].starts_with(b"'''") {
            let end = memchr::memmem::find(&self.bytes[start + 3..], b"'''")
                .ok_or_else(|| self.error(start, "a `'''` string is never closed"))?;
            self.pos = start + 3 + end + 3;
            (Kind::Str, self.text[start + 3..start + 3 + end].to_string())
        } else {
            let (value, interpolated) = self.string()?;
            let kind = if interpolated {
                Kind::Template
            } else {
                Kind::Str
            };
            (kind, value)
        };
        Ok(Token {
            kind,
            start,
            end: self.pos,
            value,
        })
    }

    /// A `'...'` string from `self.pos`: its value and whether it interpolates.
    fn string(&mut self) -> Result<(String, bool), (usize, String)> {
        let start = self.pos;
        self.pos += 1;
        let mut value = String::new();
        let mut interpolated = false;
        loop {
            let Some(c) = self.text[self.pos..].chars().next() else {
                return Err(self.error(start, "a string is never closed"));
            };
            self.pos += c.len_utf8();
            match c {
                '\'' => return Ok((value, interpolated)),
                '\n' => return Err(self.error(start, "a string is never closed on its line")),
                '\\' => {
                    let Some(e) = self.text[self.pos..].chars().next() else {
                        return Err(self.error(start, "a string is never closed"));
                    };
                    self.pos += e.len_utf8();
                    value.push(match e {
                        'n' => '\n',
                        'r' => '\r',
                        't' => '\t',
                        'u' => self.unicode_escape(start)?,
                        other => other, // \' \\ \$
                    });
                }
                '$' if self.bytes.get(self.pos) == Some(&b'{') => {
                    interpolated = true;
                    self.pos += 1;
                    self.interpolation(start)?;
                }
                c => value.push(c),
            }
        }
    }

    /// `\u{XXXX}` after the `u`.
    fn unicode_escape(&mut self, string_start: usize) -> Result<char, (usize, String)> {
        let bad = |l: &Self| l.error(string_start, "a `\\u{...}` escape is not a character");
        let rest = &self.text[self.pos..];
        let close = rest
            .strip_prefix('{')
            .and_then(|r| r.find('}'))
            .ok_or_else(|| bad(self))?;
        let c = u32::from_str_radix(&rest[1..close + 1], 16)
            .ok()
            .and_then(char::from_u32)
            .ok_or_else(|| bad(self))?;
        self.pos += close + 2;
        Ok(c)
    }

    /// The inside of `${...}` up to its closing `}`: braces nest, strings inside are strings.
    fn interpolation(&mut self, string_start: usize) -> Result<(), (usize, String)> {
        let mut depth = 1;
        while let Some(&b) = self.bytes.get(self.pos) {
            match b {
                b'\'' => {
                    self.string()?;
                    continue;
                }
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        self.pos += 1;
                        return Ok(());
                    }
                }
                b'\n' => break,
                _ => {}
            }
            self.pos += 1;
        }
        Err(self.error(string_start, "a `${` in a string is never closed"))
    }
}
