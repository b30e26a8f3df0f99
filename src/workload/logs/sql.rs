//! The part of the Cosmos DB SQL dialect that decides routing, parsed (not matched with regular
//! expressions): `SELECT … FROM root [alias] [JOIN a IN path]* [WHERE cond] [ORDER BY paths]`,
//! with AND/OR/NOT, comparisons, `IN`, `BETWEEN`, `ARRAY_CONTAINS`, `STARTSWITH`, `IS_DEFINED`
//! and any other function, parameters (`@p`) and the service's obfuscated names
//! (`r1["p1__12"]`, `"str1__13"`, `@param1__14`).
//!
//! A query is reduced to its *shape*: the text with every literal and parameter replaced by `?`
//! and `IN` lists collapsed (the key two executions share), the properties its filter fixes
//! (`eq`, `in N`) and those it only constrains (a range, `ARRAY_CONTAINS` on the array,
//! `STARTSWITH`, `IS_DEFINED`, one side of an `OR`, under a `NOT`), and its `ORDER BY`.

use std::collections::BTreeMap;

/// The longest query text parsed (the rest is counted as unreadable).
pub const MAX_QUERY_CHARS: usize = 256 * 1024;
/// The deepest nesting of parentheses and operators parsed.
const MAX_DEPTH: usize = 64;

/// How a filter constrains one property.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// `= value`: fixes it.
    Eq,
    /// `IN (…)` with this many values (`None`: a parameter array, count unknown): fixes it to N.
    In(Option<u32>),
    /// `<`, `>`, `BETWEEN`, `!=`: fixes nothing.
    Range,
    /// `STARTSWITH(p, …)`: a prefix range.
    StartsWith,
    /// `ARRAY_CONTAINS(p, …)`: the property is an array (never a key).
    ArrayContains,
    /// `IS_DEFINED(p)` and the like.
    Defined,
    /// An argument of another function, or compared with another property.
    Other,
    /// Fixed on one side of an `OR` only.
    OneSideOfOr,
    /// Under a `NOT`.
    Negated,
    /// An element of an array (`JOIN t IN c.tags … t.x`, `c.a[0]`).
    ArrayItem,
}

impl Class {
    /// Whether the class fixes the property's value (and so may route to a partition).
    pub fn fixes(self) -> bool {
        matches!(self, Class::Eq | Class::In(_))
    }

    /// The label shown in the workload file's comments.
    pub fn label(self) -> String {
        match self {
            Class::Eq => "eq".into(),
            Class::In(Some(n)) => format!("IN ({n})"),
            Class::In(None) => "IN (@array, count unknown)".into(),
            Class::Range => "range".into(),
            Class::StartsWith => "STARTSWITH".into(),
            Class::ArrayContains => "ARRAY_CONTAINS (array)".into(),
            Class::Defined => "IS_DEFINED".into(),
            Class::Other => "function or comparison".into(),
            Class::OneSideOfOr => "one side of OR".into(),
            Class::Negated => "under NOT".into(),
            Class::ArrayItem => "array element".into(),
        }
    }
}

/// One query text, reduced.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// The text with literals and parameters as `?`, `IN` lists as `(…)`, one space between
    /// tokens, keywords in capitals: two executions of one query share it.
    pub shape: String,
    /// Each property the filter mentions (path as `/a/b`) and how.
    pub filter: BTreeMap<String, Class>,
    /// `ORDER BY` paths, in order.
    pub order_by: Vec<String>,
    /// Whether property names are the service's obfuscated ones (`p1__12`).
    pub obfuscated: bool,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Str,
    Num,
    Param(String),
    Punct(&'static str),
}

const PUNCTS: [&str; 25] = [
    "!=", "<>", "<=", ">=", "||", "??", "(", ")", "[", "]", "{", "}", ",", ".", "=", "<", ">", "+",
    "-", "*", "/", "%", "?", ":", "!",
];

fn tokenize(text: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '-' && chars.get(i + 1) == Some(&'-') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '\'' || c == '"' {
            i += 1;
            let mut s = String::new();
            loop {
                match chars.get(i) {
                    None => return Err("a string literal is not closed".into()),
                    Some('\\') => {
                        s.extend(chars.get(i + 1));
                        i += 2;
                    }
                    Some(&q) if q == c => {
                        i += 1;
                        break;
                    }
                    Some(&ch) => {
                        s.push(ch);
                        i += 1;
                    }
                }
            }
            // A bracketed property name keeps its text: `c["tenantId"]`.
            if out.last() == Some(&Tok::Punct("[")) {
                out.push(Tok::Ident(format!("\u{0}{s}")));
            } else {
                out.push(Tok::Str);
            }
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                if matches!(chars[i], 'e' | 'E') && matches!(chars.get(i + 1), Some('+' | '-')) {
                    i += 1;
                }
                i += 1;
            }
            out.push(Tok::Num);
        } else if c == '@' || c.is_alphabetic() || c == '_' || c == '$' {
            let start = i;
            i += 1;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$')
            {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            if c == '@' {
                out.push(Tok::Param(word));
            } else {
                out.push(Tok::Ident(word));
            }
        } else if let Some(p) = PUNCTS.iter().find(|p| {
            p.chars()
                .enumerate()
                .all(|(k, pc)| chars.get(i + k) == Some(&pc))
        }) {
            out.push(Tok::Punct(p));
            i += p.chars().count();
        } else {
            return Err(format!("unexpected character `{}`", c.escape_debug()));
        }
    }
    Ok(out)
}

fn is_kw(t: Option<&Tok>, kw: &str) -> bool {
    matches!(t, Some(Tok::Ident(w)) if w.eq_ignore_ascii_case(kw))
}

const KEYWORDS: [&str; 26] = [
    "SELECT", "DISTINCT", "TOP", "VALUE", "FROM", "AS", "JOIN", "IN", "WHERE", "AND", "OR", "NOT",
    "BETWEEN", "ORDER", "BY", "ASC", "DESC", "GROUP", "OFFSET", "LIMIT", "LIKE", "ESCAPE",
    "EXISTS", "TRUE", "FALSE", "NULL",
];

/// The normalised text of a token stream (see [`Parsed::shape`]).
fn shape_of(toks: &[Tok]) -> String {
    let mut out: Vec<String> = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        // `IN ( … )` collapsed: the list's length varies between executions.
        if is_kw(Some(t), "IN") && toks.get(i + 1) == Some(&Tok::Punct("(")) {
            let mut depth = 0;
            let mut j = i + 1;
            while j < toks.len() {
                match toks[j] {
                    Tok::Punct("(") => depth += 1,
                    Tok::Punct(")") => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            if !toks[i + 2..j.min(toks.len())]
                .iter()
                .any(|t| is_kw(Some(t), "SELECT"))
            {
                out.push("IN (…)".into());
                i = j + 1;
                continue;
            }
        }
        out.push(match t {
            Tok::Ident(w) if w.starts_with('\u{0}') => {
                serde_json::to_string(&w[1..]).unwrap_or_default()
            }
            Tok::Ident(w) if KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(w)) => {
                w.to_ascii_uppercase()
            }
            Tok::Ident(w) => w.clone(),
            Tok::Str | Tok::Num | Tok::Param(_) => "?".into(),
            Tok::Punct(p) => (*p).to_string(),
        });
        i += 1;
    }
    let mut s = out.join(" ");
    for (from, to) in [
        (" . ", "."),
        (" [ ", "["),
        (" ]", "]"),
        (" ( ", "("),
        (" )", ")"),
        (" ,", ","),
    ] {
        s = s.replace(from, to);
    }
    s
}

/// What a boolean expression implies about each property.
#[derive(Debug, Clone, Default)]
struct Cond {
    map: BTreeMap<String, Class>,
}

impl Cond {
    fn one(path: String, class: Class) -> Cond {
        let mut map = BTreeMap::new();
        map.insert(path, class);
        Cond { map }
    }

    fn and(mut self, other: Cond) -> Cond {
        for (p, c) in other.map {
            let e = self.map.entry(p).or_insert(c);
            *e = match (*e, c) {
                (Class::Eq, _) | (_, Class::Eq) => Class::Eq,
                (Class::In(a), Class::In(b)) => Class::In(match (a, b) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                }),
                (Class::In(n), _) | (_, Class::In(n)) => Class::In(n),
                (a, b) => a.min(b),
            };
        }
        self
    }

    fn or(self, other: Cond) -> Cond {
        let mut map = BTreeMap::new();
        let count = |c: Class| match c {
            Class::Eq => Some(1),
            Class::In(n) => n,
            _ => None,
        };
        for (p, a) in &self.map {
            let c = match other.map.get(p) {
                Some(&b) if a.fixes() && b.fixes() => Class::In(match (count(*a), count(b)) {
                    (Some(x), Some(y)) => Some(x.saturating_add(y)),
                    _ => None,
                }),
                Some(&b) if !a.fixes() && !b.fixes() => (*a).min(b),
                _ if a.fixes() => Class::OneSideOfOr,
                _ => *a,
            };
            map.insert(p.clone(), c);
        }
        for (p, b) in other.map {
            map.entry(p)
                .or_insert(if b.fixes() { Class::OneSideOfOr } else { b });
        }
        Cond { map }
    }

    fn negate(mut self) -> Cond {
        for c in self.map.values_mut() {
            if c.fixes() {
                *c = Class::Negated;
            }
        }
        self
    }

    fn demote(mut self, to: Class) -> Cond {
        for c in self.map.values_mut() {
            if c.fixes() {
                *c = to;
            }
        }
        self
    }
}

/// An operand: a property path, a constant, or an expression over properties.
#[derive(Debug, Clone)]
enum Val {
    Path(String),
    /// A literal or parameter; `Some(n)` for an array literal of n items, `Param` arrays None.
    Const(Option<u32>),
    Param,
    /// Anything else: the properties it mentions, as a condition (a boolean function's result).
    Expr(Cond),
}

impl Val {
    fn mentions(self, class: Class) -> Cond {
        match self {
            Val::Path(p) => Cond::one(p, class),
            Val::Expr(c) => c.demote(class),
            Val::Const(_) | Val::Param => Cond::default(),
        }
    }

    fn into_cond(self) -> Cond {
        match self {
            // `WHERE c.active`: the property is true.
            Val::Path(p) => Cond::one(p, Class::Eq),
            Val::Expr(c) => c,
            Val::Const(_) | Val::Param => Cond::default(),
        }
    }
}

struct Parser<'a> {
    toks: &'a [Tok],
    pos: usize,
    depth: usize,
    /// Names of the document (`c`, `root r` → both).
    roots: Vec<String>,
    /// JOIN aliases → the array property they iterate.
    joins: Vec<(String, String)>,
    obfuscated: bool,
}

type R<T> = Result<T, String>;

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn kw(&self, kw: &str) -> bool {
        is_kw(self.peek(), kw)
    }

    fn eat_kw(&mut self, kw: &str) -> bool {
        let yes = self.kw(kw);
        self.pos += usize::from(yes);
        yes
    }

    fn punct(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(q)) if *q == p)
    }

    fn eat(&mut self, p: &str) -> bool {
        let yes = self.punct(p);
        self.pos += usize::from(yes);
        yes
    }

    fn expect(&mut self, p: &str) -> R<()> {
        if self.eat(p) {
            Ok(())
        } else {
            Err(format!("expected `{p}` at token {}", self.pos + 1))
        }
    }

    fn ident(&mut self) -> R<String> {
        match self.peek() {
            Some(Tok::Ident(w)) if !w.starts_with('\u{0}') => {
                let w = w.clone();
                self.pos += 1;
                Ok(w)
            }
            _ => Err(format!("expected a name at token {}", self.pos + 1)),
        }
    }

    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!("nested more than {MAX_DEPTH} levels deep"));
        }
        Ok(())
    }

    /// Skips to the next top-level token satisfying `stop` (or the end).
    fn skip_until(&mut self, stop: &dyn Fn(&Tok) -> bool) {
        let mut depth = 0i32;
        while let Some(t) = self.peek() {
            match t {
                Tok::Punct("(" | "[" | "{") => depth += 1,
                Tok::Punct(")" | "]" | "}") => depth -= 1,
                t if depth == 0 && stop(t) => return,
                _ => {}
            }
            self.pos += 1;
        }
    }

    fn query(&mut self) -> R<(Cond, Vec<String>)> {
        if !self.eat_kw("SELECT") {
            return Err("not a SELECT query".into());
        }
        self.skip_until(&|t| is_kw(Some(t), "FROM"));
        if !self.eat_kw("FROM") {
            // `SELECT VALUE 1`: no container read.
            return Ok((Cond::default(), Vec::new()));
        }
        let first = self.ident()?;
        if self.eat_kw("IN") {
            // `FROM t IN c.tags`: every item is an array element.
            let v = self.path_of(&first)?;
            self.joins.push((first, v));
        } else {
            self.roots.push(first);
            self.eat_kw("AS");
            if let Some(Tok::Ident(w)) = self.peek() {
                let clause = ["JOIN", "WHERE", "ORDER", "GROUP", "OFFSET"];
                if !clause.iter().any(|k| w.eq_ignore_ascii_case(k)) && !w.starts_with('\u{0}') {
                    self.roots.push(w.clone());
                    self.pos += 1;
                }
            }
        }
        while self.eat_kw("JOIN") {
            if self.punct("(") {
                return Err("a JOIN on a subquery is not read".into());
            }
            let alias = self.ident()?;
            if !self.eat_kw("IN") {
                return Err("expected `IN` after the JOIN alias".into());
            }
            let array = self.path_of(&alias)?;
            self.joins.push((alias, array));
        }
        let cond = if self.eat_kw("WHERE") {
            let n = self.or()?.into_cond();
            if !(self.peek().is_none() || self.kw("ORDER") || self.kw("GROUP") || self.kw("OFFSET"))
            {
                return Err(format!(
                    "unexpected token {} after the WHERE clause",
                    self.pos + 1
                ));
            }
            n
        } else {
            Cond::default()
        };
        if self.eat_kw("GROUP") {
            self.skip_until(&|t| is_kw(Some(t), "ORDER") || is_kw(Some(t), "OFFSET"));
        }
        let mut order = Vec::new();
        if self.eat_kw("ORDER") {
            if !self.eat_kw("BY") {
                return Err("expected BY after ORDER".into());
            }
            loop {
                if let Val::Path(p) = self.additive()? {
                    order.push(p);
                }
                let _ = self.eat_kw("ASC") || self.eat_kw("DESC");
                if !self.eat(",") {
                    break;
                }
            }
        }
        Ok((cond, order))
    }

    /// The array path an alias iterates (`c.tags` after `JOIN t IN`).
    fn path_of(&mut self, alias: &str) -> R<String> {
        match self.primary()? {
            Val::Path(p) => Ok(p),
            Val::Expr(c) if !c.map.is_empty() => {
                Ok(c.map.keys().next().cloned().unwrap_or_default())
            }
            _ => Err(format!(
                "`{alias}` does not iterate a property of the document"
            )),
        }
    }

    fn or(&mut self) -> R<Val> {
        self.enter()?;
        let mut left = self.and()?;
        while self.eat_kw("OR") {
            let right = self.and()?;
            left = Val::Expr(left.into_cond().or(right.into_cond()));
        }
        self.depth -= 1;
        Ok(left)
    }

    fn and(&mut self) -> R<Val> {
        let mut left = self.not()?;
        while self.eat_kw("AND") {
            let right = self.not()?;
            left = Val::Expr(left.into_cond().and(right.into_cond()));
        }
        Ok(left)
    }

    fn not(&mut self) -> R<Val> {
        if self.eat_kw("NOT") || self.eat("!") {
            self.enter()?;
            let inner = self.not()?;
            self.depth -= 1;
            return Ok(Val::Expr(inner.into_cond().negate()));
        }
        self.comparison()
    }

    fn comparison(&mut self) -> R<Val> {
        let left = self.additive()?;
        let negated = self.kw("NOT")
            && (is_kw(self.toks.get(self.pos + 1), "IN")
                || is_kw(self.toks.get(self.pos + 1), "BETWEEN")
                || is_kw(self.toks.get(self.pos + 1), "LIKE"));
        if negated {
            self.pos += 1;
        }
        if self.eat_kw("IN") {
            self.expect("(")?;
            let mut n = 0u32;
            let mut list = Cond::default();
            if !self.punct(")") {
                loop {
                    let v = self.additive()?;
                    n = n.saturating_add(1);
                    list = list.and(v.mentions(Class::Other));
                    if !self.eat(",") {
                        break;
                    }
                }
            }
            self.expect(")")?;
            let class = if negated {
                Class::Negated
            } else {
                Class::In(Some(n))
            };
            return Ok(Val::Expr(self.compare(left, class).and(list)));
        }
        if self.eat_kw("BETWEEN") {
            let lo = self.additive()?;
            if !self.eat_kw("AND") {
                return Err("expected AND in BETWEEN".into());
            }
            let hi = self.additive()?;
            let c = left
                .mentions(Class::Range)
                .and(lo.mentions(Class::Other))
                .and(hi.mentions(Class::Other));
            return Ok(Val::Expr(if negated { c.negate() } else { c }));
        }
        if self.eat_kw("LIKE") {
            let pat = self.additive()?;
            if self.eat_kw("ESCAPE") {
                self.additive()?;
            }
            return Ok(Val::Expr(
                left.mentions(Class::Range).and(pat.mentions(Class::Other)),
            ));
        }
        let op = match self.peek() {
            Some(Tok::Punct(p @ ("=" | "!=" | "<>" | "<" | "<=" | ">" | ">="))) => *p,
            _ => return Ok(left),
        };
        self.pos += 1;
        let right = self.additive()?;
        if op == "=" {
            return Ok(Val::Expr(match (&left, &right) {
                (Val::Path(_), Val::Const(_) | Val::Param) => self.compare(left, Class::Eq),
                (Val::Const(_) | Val::Param, Val::Path(_)) => self.compare(right, Class::Eq),
                _ => left
                    .mentions(Class::Other)
                    .and(right.mentions(Class::Other)),
            }));
        }
        let class = if op == "!=" || op == "<>" {
            Class::Negated
        } else {
            Class::Range
        };
        Ok(Val::Expr(left.mentions(class).and(right.mentions(class))))
    }

    /// `v` compared with a constant by `class` (its path's class when it is one).
    fn compare(&self, v: Val, class: Class) -> Cond {
        match v {
            Val::Path(p) => Cond::one(p, class),
            other => other.mentions(Class::Other),
        }
    }

    fn additive(&mut self) -> R<Val> {
        self.enter()?;
        let mut left = self.unary()?;
        while let Some(Tok::Punct("+" | "-" | "*" | "/" | "%" | "||" | "??")) = self.peek() {
            self.pos += 1;
            let right = self.unary()?;
            left = Val::Expr(
                left.mentions(Class::Other)
                    .and(right.mentions(Class::Other)),
            );
        }
        self.depth -= 1;
        Ok(left)
    }

    fn unary(&mut self) -> R<Val> {
        if self.eat("-") || self.eat("+") {
            return match self.unary()? {
                Val::Const(n) => Ok(Val::Const(n)),
                v => Ok(Val::Expr(v.mentions(Class::Other))),
            };
        }
        let v = self.primary()?;
        // The ternary `a ? b : c`.
        if self.eat("?") {
            let b = self.or()?;
            self.expect(":")?;
            let c = self.or()?;
            return Ok(Val::Expr(
                v.mentions(Class::Other)
                    .and(b.mentions(Class::Other))
                    .and(c.mentions(Class::Other)),
            ));
        }
        Ok(v)
    }

    fn primary(&mut self) -> R<Val> {
        self.enter()?;
        let v = self.primary_inner();
        self.depth -= 1;
        v
    }

    fn primary_inner(&mut self) -> R<Val> {
        match self.peek().cloned() {
            None => Err("the query ends inside an expression".into()),
            Some(Tok::Str | Tok::Num) => {
                self.pos += 1;
                Ok(Val::Const(None))
            }
            Some(Tok::Param(_)) => {
                self.pos += 1;
                Ok(Val::Param)
            }
            Some(Tok::Punct("(")) => {
                self.pos += 1;
                if self.kw("SELECT") {
                    return Err("a subquery in the filter is not read".into());
                }
                let v = self.or()?;
                self.expect(")")?;
                Ok(v)
            }
            Some(Tok::Punct("[")) => {
                self.pos += 1;
                let mut n = 0u32;
                let mut c = Cond::default();
                if !self.punct("]") {
                    loop {
                        c = c.and(self.additive()?.mentions(Class::Other));
                        n = n.saturating_add(1);
                        if !self.eat(",") {
                            break;
                        }
                    }
                }
                self.expect("]")?;
                Ok(if c.map.is_empty() {
                    Val::Const(Some(n))
                } else {
                    Val::Expr(c)
                })
            }
            Some(Tok::Punct("{")) => {
                self.skip_until(&|t| *t == Tok::Punct("}"));
                self.expect("}")?;
                Ok(Val::Const(None))
            }
            Some(Tok::Ident(w)) => {
                self.pos += 1;
                if ["TRUE", "FALSE", "NULL", "UNDEFINED"]
                    .iter()
                    .any(|k| w.eq_ignore_ascii_case(k))
                {
                    return Ok(Val::Const(None));
                }
                if w.eq_ignore_ascii_case("EXISTS") && self.punct("(") {
                    return Err("EXISTS (subquery) is not read".into());
                }
                if self.punct("(") || (w.eq_ignore_ascii_case("udf") && self.punct(".")) {
                    return self.call(&w);
                }
                self.path(&w)
            }
            Some(t) => Err(format!("unexpected {t:?} at token {}", self.pos + 1)),
        }
    }

    /// A function call; the current token is `(` (or `.` of `udf.name`).
    fn call(&mut self, name: &str) -> R<Val> {
        let mut name = name.to_ascii_uppercase();
        if self.eat(".") {
            name = format!("UDF.{}", self.ident()?);
        }
        self.expect("(")?;
        let mut args = Vec::new();
        if !self.punct(")") {
            loop {
                args.push(self.or()?);
                if !self.eat(",") {
                    break;
                }
            }
        }
        self.expect(")")?;
        let mut it = args.into_iter();
        let (a, b) = (it.next(), it.next());
        let rest = it.fold(Cond::default(), |c, v| c.and(v.mentions(Class::Other)));
        let c = match (name.as_str(), a, b) {
            ("ARRAY_CONTAINS", Some(Val::Path(arr)), Some(x)) => {
                Cond::one(arr, Class::ArrayContains).and(x.mentions(Class::Other))
            }
            // `ARRAY_CONTAINS(@ids, c.id)`: `c.id IN (@ids)`.
            ("ARRAY_CONTAINS", Some(Val::Param), Some(Val::Path(p))) => {
                Cond::one(p, Class::In(None))
            }
            ("ARRAY_CONTAINS", Some(Val::Const(n)), Some(Val::Path(p))) => {
                Cond::one(p, Class::In(n))
            }
            ("STARTSWITH", Some(a), Some(b)) => {
                a.mentions(Class::StartsWith).and(b.mentions(Class::Other))
            }
            (
                "IS_DEFINED" | "IS_NULL" | "IS_STRING" | "IS_NUMBER" | "IS_BOOL" | "IS_ARRAY"
                | "IS_OBJECT" | "IS_PRIMITIVE",
                Some(a),
                b,
            ) => a
                .mentions(Class::Defined)
                .and(b.map_or_else(Cond::default, |b| b.mentions(Class::Other))),
            (_, a, b) => a
                .map_or_else(Cond::default, |a| a.mentions(Class::Other))
                .and(b.map_or_else(Cond::default, |b| b.mentions(Class::Other))),
        };
        Ok(Val::Expr(c.and(rest)))
    }

    /// A property path starting at the name `first`: `c.a.b`, `c["a"]`, `t.x` (JOIN alias).
    fn path(&mut self, first: &str) -> R<Val> {
        let join = self
            .joins
            .iter()
            .find(|(a, _)| a == first)
            .map(|(_, p)| p.clone());
        let is_root = self.roots.iter().any(|r| r == first);
        let mut segments: Vec<String> = Vec::new();
        let mut indexed = false;
        loop {
            if self.eat(".") {
                segments.push(self.ident()?);
            } else if self.punct("[") {
                self.pos += 1;
                match self.peek().cloned() {
                    Some(Tok::Ident(w)) if w.starts_with('\u{0}') => {
                        self.pos += 1;
                        segments.push(w[1..].to_string());
                    }
                    _ => {
                        indexed = true;
                        self.additive()?;
                    }
                }
                self.expect("]")?;
                if indexed {
                    break;
                }
            } else {
                break;
            }
        }
        // Trailing accessors after an index: `c.a[0].b` still reads an array element.
        while self.eat(".") || self.punct("[") {
            if self.eat("[") {
                self.additive()?;
                self.expect("]")?;
            } else {
                self.ident()?;
            }
        }
        if self.obfuscated_names(&segments) {
            self.obfuscated = true;
        }
        if let Some(array) = join {
            return Ok(Val::Expr(Cond::one(array, Class::ArrayItem)));
        }
        if !is_root || segments.is_empty() {
            // An unknown name (a projection alias, a bare identifier): nothing to route on.
            return Ok(Val::Const(None));
        }
        let p = render_path(&segments);
        if indexed {
            return Ok(Val::Expr(Cond::one(p, Class::ArrayItem)));
        }
        Ok(Val::Path(p))
    }

    fn obfuscated_names(&self, segments: &[String]) -> bool {
        segments.iter().any(|s| is_obfuscated_name(s))
    }
}

/// Whether `s` is one of the service's obfuscated property names (`p1__12`).
pub fn is_obfuscated_name(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('p') else {
        return false;
    };
    let Some((a, b)) = rest.split_once("__") else {
        return false;
    };
    !a.is_empty()
        && !b.is_empty()
        && a.bytes().all(|c| c.is_ascii_digit())
        && b.bytes().all(|c| c.is_ascii_digit())
}

/// A path in the candidate grammar: `/a/b`, a segment that is not a plain name quoted
/// (`/"plan tier"`), an obfuscated name marked `/"?p1__12"` so it can never match a real key.
fn render_path(segments: &[String]) -> String {
    let mut out = String::new();
    for s in segments {
        out.push('/');
        let plain = !s.is_empty()
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !is_obfuscated_name(s);
        if plain {
            out.push_str(s);
        } else {
            let shown = if is_obfuscated_name(s) {
                format!("?{s}")
            } else {
                s.clone()
            };
            out.push('"');
            for c in shown.chars() {
                if c == '"' || c == '\\' {
                    out.push('\\');
                }
                out.push(c);
            }
            out.push('"');
        }
    }
    out
}

/// Parses one query text.
pub fn parse(text: &str) -> Result<Parsed, String> {
    if text.len() > MAX_QUERY_CHARS {
        return Err(format!("longer than {MAX_QUERY_CHARS} bytes"));
    }
    let toks = tokenize(text)?;
    let mut p = Parser {
        toks: &toks,
        pos: 0,
        depth: 0,
        roots: Vec::new(),
        joins: Vec::new(),
        obfuscated: false,
    };
    let (cond, order_by) = p.query()?;
    if p.pos < toks.len() && !p.kw("OFFSET") {
        return Err(format!("unexpected token {} after the query", p.pos + 1));
    }
    Ok(Parsed {
        shape: shape_of(&toks),
        filter: cond.map,
        order_by,
        obfuscated: p.obfuscated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(text: &str) -> Vec<(String, Class)> {
        parse(text).unwrap().filter.into_iter().collect()
    }

    fn v(items: &[(&str, Class)]) -> Vec<(String, Class)> {
        items.iter().map(|(p, c)| (p.to_string(), *c)).collect()
    }

    #[test]
    fn filters_are_classified_by_what_they_fix() {
        use Class::*;
        assert_eq!(
            f("SELECT * FROM c WHERE c.customerId = @id ORDER BY c.ts DESC"),
            v(&[("/customerId", Eq)])
        );
        assert_eq!(
            f("select * from c where c.t = 'a' and c.u in ('x','y','z') and c.ts > 5"),
            v(&[("/t", Eq), ("/ts", Range), ("/u", In(Some(3)))])
        );
        // OR of equalities on one property is an IN; across properties it fixes neither.
        assert_eq!(
            f("SELECT * FROM c WHERE c.a = 1 OR c.a = 2"),
            v(&[("/a", In(Some(2)))])
        );
        assert_eq!(
            f("SELECT * FROM c WHERE c.a = 1 OR c.b = 2"),
            v(&[("/a", OneSideOfOr), ("/b", OneSideOfOr)])
        );
        assert_eq!(
            f("SELECT * FROM c WHERE NOT (c.a = 1)"),
            v(&[("/a", Negated)])
        );
        assert_eq!(f("SELECT * FROM c WHERE c.a != 1"), v(&[("/a", Negated)]));
        assert_eq!(
            f("SELECT * FROM c WHERE c.t = @t AND c.ts BETWEEN @a AND @b"),
            v(&[("/t", Eq), ("/ts", Range)])
        );
        assert_eq!(
            f("SELECT * FROM c WHERE ARRAY_CONTAINS(c.tags, 'red') AND c.t = 1"),
            v(&[("/t", Eq), ("/tags", ArrayContains)])
        );
        assert_eq!(
            f("SELECT * FROM c WHERE ARRAY_CONTAINS(@ids, c.id)"),
            v(&[("/id", In(None))])
        );
        assert_eq!(
            f("SELECT * FROM c WHERE ARRAY_CONTAINS(['a','b'], c.id)"),
            v(&[("/id", In(Some(2)))])
        );
        assert_eq!(
            f("SELECT * FROM c WHERE STARTSWITH(c.name, 'ab') AND IS_DEFINED(c.x)"),
            v(&[("/name", StartsWith), ("/x", Defined)])
        );
        // JOIN aliases are array elements; bracketed names are properties.
        assert_eq!(
            f("SELECT c.id FROM c JOIN t IN c.tags WHERE t.name = 'x' AND c[\"tenant id\"] = @t"),
            v(&[("/\"tenant id\"", Eq), ("/tags", ArrayItem)])
        );
        // `root r`: both names are the document; nested paths.
        assert_eq!(
            f("SELECT VALUE r FROM root r WHERE r.a.b = 1 AND r.c[0] = 2"),
            v(&[("/a/b", Eq), ("/c", ArrayItem)])
        );
        assert_eq!(f("SELECT * FROM c"), v(&[]));
        assert_eq!(f("SELECT * FROM c WHERE c.active"), v(&[("/active", Eq)]));
        assert_eq!(
            f("SELECT * FROM c WHERE LOWER(c.a) = 'x'"),
            v(&[("/a", Other)])
        );
    }

    #[test]
    fn shapes_ignore_literals_and_in_list_lengths() {
        let a =
            parse("SELECT * FROM c WHERE c.t = 'a' AND c.u IN (1, 2, 3) ORDER BY c.ts").unwrap();
        let b = parse("select *  from c where c.t = \"zz\" and c.u in (9)  order by c.ts").unwrap();
        assert_eq!(a.shape, b.shape);
        assert_eq!(
            a.shape,
            "SELECT * FROM c WHERE c.t = ? AND c.u IN (…) ORDER BY c.ts"
        );
        assert_eq!(a.order_by, vec!["/ts".to_string()]);
        let c = parse("SELECT TOP 10 * FROM c WHERE c.t = @t OFFSET 0 LIMIT 5").unwrap();
        assert_eq!(
            c.shape,
            "SELECT TOP ? * FROM c WHERE c.t = ? OFFSET ? LIMIT ?"
        );
    }

    #[test]
    fn obfuscated_texts_keep_their_shape_and_hide_names() {
        // The service's own rendering (MicrosoftDocs/azure-docs#36846).
        let p = parse(
            "SELECT * FROM r1 WHERE (((r1[\"p1__12\"] = 1) AND CONTAINS(r1[\"p2__19\"], \"str1__13\")) AND (r1.p1__12 = 1))",
        )
        .unwrap();
        assert!(p.obfuscated);
        assert_eq!(
            p.filter.into_iter().collect::<Vec<_>>(),
            v(&[("/\"?p1__12\"", Class::Eq), ("/\"?p2__19\"", Class::Other)])
        );
        let q = parse("SELECT * FROM c WHERE c.p1__10 = @param1__14").unwrap();
        assert!(q.obfuscated);
        assert_eq!(q.shape, "SELECT * FROM c WHERE c.p1__10 = ?");
    }

    #[test]
    fn unreadable_texts_say_why() {
        assert!(parse("UPDATE c SET x = 1")
            .unwrap_err()
            .contains("not a SELECT"));
        assert!(parse("SELECT * FROM c WHERE c.a = 'x")
            .unwrap_err()
            .contains("not closed"));
        assert!(parse("SELECT * FROM c WHERE (c.a = 1")
            .unwrap_err()
            .contains("expected `)`"));
        assert!(
            parse("SELECT * FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.x)")
                .unwrap_err()
                .contains("EXISTS")
        );
        let deep = format!(
            "SELECT * FROM c WHERE {}c.a = 1{}",
            "(".repeat(500),
            ")".repeat(500)
        );
        assert!(parse(&deep).unwrap_err().contains("nested more than"));
        assert!(parse(&"x".repeat(MAX_QUERY_CHARS + 1))
            .unwrap_err()
            .contains("longer"));
        assert!(parse("SELECT * FROM c WHERE c.a = 1 #")
            .unwrap_err()
            .contains("unexpected character"));
    }
}
