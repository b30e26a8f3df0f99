//! Bicep, read by a tokenizer that knows strings (`'...'` with `\'` escapes and `${...}`
//! interpolation, `'''multi-line'''`), comments (`//`, `/* */`) and expressions, and a parser of
//! `resource` declarations: every `resource x
//! 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@…'` (and a `containers` child
//! declared inside its database), its `properties.resource.partitionKey`. Other statements
//! (`param`, `var`, `output`, decorators...) are passed over whole; a comment or a string is one
//! token, so neither can declare a container. Each byte is read once by the tokenizer and each
//! token once by the parser.

use super::bicep_tokens::{Kind, Lexer, Token};
use super::{Declared, Field, IacError, Lines, Lit, Paths};

const CONTAINERS: &str = "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers";
/// How deep objects and arrays may nest (hcl-edit's bound; serde_json's is 128).
const MAX_DEPTH: usize = 64;

/// A value as the parser reads it: literals and containers, anything else an expression.
#[derive(Debug)]
enum Val {
    Str(String),
    Int,
    Obj(Vec<(String, Value)>),
    Arr(Vec<Value>),
    Expr,
}

#[derive(Debug)]
struct Value {
    val: Val,
    start: usize,
    end: usize,
}

struct Parser<'t> {
    text: &'t str,
    toks: Vec<Token>,
    pos: usize,
    lines: Lines,
    out: Vec<Declared>,
    /// How many values deep the parser is.
    depth: usize,
}

fn is_punct(t: Option<&Token>, c: char) -> bool {
    t.is_some_and(|t| t.kind == Kind::Punct(c))
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.toks.get(self.pos)
    }

    fn ident_is(&self, at: usize, word: &str) -> bool {
        self.toks
            .get(at)
            .is_some_and(|t| t.kind == Kind::Ident && &self.text[t.start..t.end] == word)
    }

    fn skip_newlines(&mut self) {
        while self.peek().is_some_and(|t| t.kind == Kind::Newline) {
            self.pos += 1;
        }
    }

    fn error(&self, at: usize, msg: String) -> (usize, String) {
        (at, msg)
    }

    /// Passes over one statement: to the end of its line outside brackets.
    fn skip_statement(&mut self) {
        let mut depth = 0usize;
        while let Some(t) = self.peek() {
            match t.kind {
                Kind::Newline if depth == 0 => return,
                Kind::Punct('(' | '[' | '{') => depth += 1,
                Kind::Punct(')' | ']' | '}') => depth = depth.saturating_sub(1),
                _ => {}
            }
            self.pos += 1;
        }
    }

    /// An expression from `self.pos` to the end of the value (a newline, `,` or closing bracket
    /// outside brackets); at least one token.
    fn skip_expression(&mut self) {
        let mut depth = 0usize;
        let first = self.pos;
        while let Some(t) = self.peek() {
            match t.kind {
                Kind::Newline | Kind::Punct(',' | ')' | ']' | '}')
                    if depth == 0 && self.pos > first =>
                {
                    return
                }
                Kind::Punct('(' | '[' | '{') => depth += 1,
                Kind::Punct(')' | ']' | '}') => depth = depth.saturating_sub(1),
                _ => {}
            }
            self.pos += 1;
        }
    }

    fn at_value_end(&self) -> bool {
        match self.peek() {
            None => true,
            Some(t) => matches!(t.kind, Kind::Newline | Kind::Punct(',' | ')' | ']' | '}')),
        }
    }

    /// One value; `parent` is the resource type whose body this is (for child resources).
    fn value(&mut self, parent: Option<&str>) -> Result<Value, (usize, String)> {
        // Objects and arrays are read recursively: a bound keeps the stack.
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let at = self.peek().map_or(self.text.len(), |t| t.start);
            return Err(self.error(at, format!("values nested deeper than {MAX_DEPTH} levels")));
        }
        let v = self.value_here(parent);
        self.depth -= 1;
        v
    }

    fn value_here(&mut self, parent: Option<&str>) -> Result<Value, (usize, String)> {
        let Some(t) = self.peek().cloned() else {
            return Err(self.error(
                self.text.len(),
                "a value is missing at the end of the file".into(),
            ));
        };
        let start = t.start;
        let val = match t.kind {
            Kind::Punct('{') => self.object(parent)?,
            Kind::Punct('[') if !self.ident_is(self.pos + 1, "for") => self.array(parent)?,
            Kind::Str => {
                self.pos += 1;
                Val::Str(t.value)
            }
            Kind::Int => {
                self.pos += 1;
                Val::Int
            }
            _ => {
                self.skip_expression();
                Val::Expr
            }
        };
        // A literal followed by more (`'a' == b ? ...`, `1.0`, `x.y`) is an expression.
        let val = if self.at_value_end() {
            val
        } else {
            self.skip_expression();
            Val::Expr
        };
        let end = self.toks[self.pos.saturating_sub(1)].end.max(start);
        Ok(Value { val, start, end })
    }

    fn object(&mut self, parent: Option<&str>) -> Result<Val, (usize, String)> {
        let open = self.toks[self.pos].start;
        self.pos += 1;
        let mut members = Vec::new();
        loop {
            while self
                .peek()
                .is_some_and(|t| t.kind == Kind::Newline || t.kind == Kind::Punct(','))
            {
                self.pos += 1;
            }
            let Some(t) = self.peek().cloned() else {
                return Err(self.error(open, "this `{` is never closed".into()));
            };
            if t.kind == Kind::Punct('}') {
                self.pos += 1;
                return Ok(Val::Obj(members));
            }
            // `resource child 'type' = …`, not the member `resource: …`.
            let kind_at = |i: usize| self.toks.get(self.pos + i).map(|t| t.kind);
            if self.ident_is(self.pos, "resource")
                && kind_at(1) == Some(Kind::Ident)
                && kind_at(2) == Some(Kind::Str)
            {
                self.resource(parent)?;
                continue;
            }
            let key = match t.kind {
                Kind::Ident => Some(self.text[t.start..t.end].to_string()),
                Kind::Str => Some(t.value.clone()),
                _ => None,
            };
            match key {
                Some(key) if is_punct(self.toks.get(self.pos + 1), ':') => {
                    // Bicep refuses a property declared twice (BCP025); reading the first
                    // would gate a key the deployment never gets.
                    if members.iter().any(|(k, _)| *k == key) {
                        return Err(self.error(
                            t.start,
                            format!(
                                "the property `{}` is declared twice in this object (Bicep refuses it: BCP025); keep one",
                                crate::small_file::quote(&key, 80)
                            ),
                        ));
                    }
                    self.pos += 2;
                    let v = self.value(parent)?;
                    members.push((key, v));
                }
                // Not `key: value` (a spread, a decorator...): passed over.
                _ => self.skip_expression(),
            }
        }
    }

    fn array(&mut self, parent: Option<&str>) -> Result<Val, (usize, String)> {
        let open = self.toks[self.pos].start;
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            while self
                .peek()
                .is_some_and(|t| t.kind == Kind::Newline || t.kind == Kind::Punct(','))
            {
                self.pos += 1;
            }
            match self.peek().map(|t| t.kind) {
                None => return Err(self.error(open, "this `[` is never closed".into())),
                Some(Kind::Punct(']')) => {
                    self.pos += 1;
                    return Ok(Val::Arr(items));
                }
                Some(Kind::Punct(')' | '}')) => {
                    let at = self.toks[self.pos].start;
                    return Err(self.error(
                        at,
                        "this closing bracket does not match the `[` before it".into(),
                    ));
                }
                _ => items.push(self.value(parent)?),
            }
        }
    }
}

impl Parser<'_> {
    /// Passes over `(...)` from `self.pos` (an `if` condition).
    fn skip_parens(&mut self) {
        let mut depth = 0usize;
        while let Some(kind) = self.peek().map(|t| t.kind) {
            self.pos += 1;
            match kind {
                Kind::Punct('(') => depth += 1,
                Kind::Punct(')') if depth <= 1 => return,
                Kind::Punct(')') => depth -= 1,
                _ => {}
            }
        }
    }

    /// `resource sym 'type@version' [existing] = body` from `self.pos`; a container is recorded.
    fn resource(&mut self, parent: Option<&str>) -> Result<(), (usize, String)> {
        let declared = self
            .toks
            .get(self.pos + 1)
            .is_some_and(|t| t.kind == Kind::Ident)
            && self
                .toks
                .get(self.pos + 2)
                .is_some_and(|t| t.kind == Kind::Str);
        if !declared {
            self.skip_statement();
            return Ok(());
        }
        let ty = self.toks[self.pos + 2].value.clone();
        let ty = ty.split('@').next().unwrap_or("");
        let full = match parent {
            Some(p) if !ty.split('/').next().unwrap_or("").contains('.') => format!("{p}/{ty}"),
            _ => ty.to_string(),
        };
        self.pos += 3;
        let existing = self.ident_is(self.pos, "existing");
        if existing {
            self.pos += 1;
        }
        if !is_punct(self.peek(), '=') {
            self.skip_statement();
            return Ok(());
        }
        self.pos += 1;
        let body = self.body(&full)?;
        if !existing && full.eq_ignore_ascii_case(CONTAINERS) {
            if let Some(d) = body.and_then(|b| self.declared(&b)) {
                self.out.push(d);
            }
        }
        Ok(())
    }

    /// A resource's body: `{...}`, `if (cond) {...}` or `[for x in xs: {...}]`.
    fn body(&mut self, full: &str) -> Result<Option<Value>, (usize, String)> {
        self.skip_newlines();
        let looped = is_punct(self.peek(), '[') && self.ident_is(self.pos + 1, "for");
        if looped {
            // To the `:` that ends the loop's header.
            let mut depth = 0usize;
            while let Some(kind) = self.peek().map(|t| t.kind) {
                self.pos += 1;
                match kind {
                    Kind::Punct(':') if depth == 1 => break,
                    Kind::Punct('(' | '[' | '{') => depth += 1,
                    Kind::Punct(')' | ']' | '}') => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
            self.skip_newlines();
        }
        if self.ident_is(self.pos, "if") {
            self.pos += 1;
            self.skip_parens();
            self.skip_newlines();
        }
        let body = if is_punct(self.peek(), '{') {
            Some(self.value(Some(full))?)
        } else {
            None
        };
        if looped || body.is_none() {
            self.skip_statement();
        }
        Ok(body)
    }

    fn field(&self, v: &Value) -> Field {
        let text = self.text[v.start..v.end].to_string();
        let lit = match &v.val {
            Val::Str(s) => Lit::Str(s.clone()),
            Val::Int => Lit::Int(text.clone()),
            _ => Lit::Expr,
        };
        Field {
            lit,
            text,
            line: self.lines.line(v.start),
        }
    }

    /// What a container's body declares, when it declares a partition key.
    fn declared(&self, body: &Value) -> Option<Declared> {
        let name = member(body, "name").and_then(|v| match &v.val {
            Val::Str(s) => s.rsplit('/').next().map(str::to_string),
            // `'${account}/db/orders'`: the literal tail.
            _ => {
                let t = &self.text[v.start..v.end];
                let tail = t.strip_suffix('\'')?.rsplit('/').next()?;
                (!tail.contains(['$', '\'', '\\'])).then(|| tail.to_string())
            }
        });
        let expr = |v: &Value, what| {
            Some(Paths::Expr {
                what,
                text: self.text[v.start..v.end].to_string(),
            })
        };
        let (mut id, mut kind, mut version) = (None, None, None);
        let props = member(body, "properties")?;
        let (at, paths) = match &props.val {
            Val::Obj(_) => {
                let resource = member(props, "resource")?;
                match &resource.val {
                    Val::Obj(_) => {
                        id = member(resource, "id").map(|v| self.field(v));
                        let pk = member(resource, "partitionKey")?;
                        match &pk.val {
                            Val::Obj(_) => {
                                kind = member(pk, "kind").map(|v| self.field(v));
                                version = member(pk, "version").map(|v| self.field(v));
                                let p = member(pk, "paths")?;
                                let paths = match &p.val {
                                    Val::Arr(items) => Some(Paths::List(
                                        items.iter().map(|i| self.field(i)).collect(),
                                    )),
                                    _ => expr(p, "the partition key paths are"),
                                };
                                (p, paths)
                            }
                            _ => (pk, expr(pk, "the partition key is")),
                        }
                    }
                    _ => (resource, expr(resource, "the container's resource is")),
                }
            }
            _ => (props, expr(props, "the container's properties are")),
        };
        let container = match id.map(|f| f.lit) {
            Some(Lit::Str(s)) => Some(s),
            _ => name,
        };
        Some(Declared {
            container,
            line: self.lines.line(at.start),
            paths: paths?,
            kind,
            version,
        })
    }
}

/// The member `key` of an object value.
fn member<'v>(v: &'v Value, key: &str) -> Option<&'v Value> {
    match &v.val {
        Val::Obj(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
        _ => None,
    }
}

/// Every container resource of a Bicep file.
pub(super) fn read(text: &str, file: &str) -> Result<Vec<Declared>, IacError> {
    let lines = Lines::new(text);
    let fail = |(at, msg): (usize, String)| {
        IacError::Invalid(
            file.to_string(),
            lines.line(at),
            format!("cannot read this Bicep: {msg}"),
        )
    };
    let toks = Lexer {
        text,
        bytes: text.as_bytes(),
        pos: 0,
    }
    .tokens()
    .map_err(fail)?;
    let mut p = Parser {
        text,
        toks,
        pos: 0,
        lines: Lines::new(text),
        out: Vec::new(),
        depth: 0,
    };
    loop {
        p.skip_newlines();
        if p.peek().is_none() {
            break;
        }
        if p.ident_is(p.pos, "resource") {
            p.resource(None).map_err(fail)?;
        } else {
            p.skip_statement();
        }
    }
    Ok(p.out)
}
