//! Unit tests of `keys/extract/shape.rs`: every record read through [`Shapes`] gives what
//! [`scan_validated`] gives (values, whitespace, or the same error).

use super::*;

fn trie(paths: &[&[&str]]) -> PathTrie {
    let mut t = PathTrie::new();
    for p in paths {
        t.insert(p);
    }
    t
}

type Outcome<'a> = Result<(Vec<Extracted<'a>>, usize), ScanError>;

/// The record read through `shapes` and by the full scanner; asserts they agree.
fn agree<'a>(shapes: &mut Shapes, doc: &'a str, t: &PathTrie) -> Outcome<'a> {
    let text = std::str::from_utf8(doc.as_bytes()).ok();
    let mut a = Vec::new();
    let got = shapes
        .scan(doc.as_bytes(), text, t, &mut a)
        .map(|s| (a, s.whitespace_bytes));
    let mut b = Vec::new();
    let want = scan_validated(doc.as_bytes(), text, t, &mut b).map(|s| (b, s.whitespace_bytes));
    assert_eq!(got, want, "{doc}");
    got
}

#[test]
fn a_repeated_layout_is_read_from_its_holes() {
    let t = trie(&[&["id"], &["k"], &["d", "type"]]);
    let mut shapes = Shapes::default();
    agree(
        &mut shapes,
        r#"{"id":"a","k":"v1","d":{"type":"x"},"n":0}"#,
        &t,
    )
    .unwrap();
    assert!(!shapes.layouts.is_empty(), "learnt from the first record");
    let (v, ws) = agree(
        &mut shapes,
        r#"{"id":"b-2","k":7.5e3,"d":{"type":null},"n":-12}"#,
        &t,
    )
    .unwrap();
    assert_eq!(shapes.hits, 1, "the second record read by the layout");
    assert_eq!(v[0], Extracted::Str(Cow::Borrowed("b-2")));
    assert_eq!(v[1], Extracted::Number(b"7.5e3"));
    assert_eq!(v[2], Extracted::Null);
    assert_eq!(ws, 0);
    // Another order of the same properties: a miss, read by the full scanner.
    let (v, _) = agree(&mut shapes, r#"{"k":"v3","id":"c","n":1}"#, &t).unwrap();
    assert_eq!((shapes.hits, shapes.misses), (1, 1));
    assert_eq!(v[0], Extracted::Str(Cow::Borrowed("c")));
    assert_eq!(v[2], Extracted::Missing, "no /d/type here");
    assert_eq!(shapes.counts(), (1, 3), "1 of 3 records read by the layout");
}

#[test]
fn whitespace_composites_and_arrays_follow_the_layout_record() {
    // /d is an object here (Composite) and /d/type inside it; the array's scalars are holes of
    // no slot; the whitespace outside strings is the layout record's.
    let t = trie(&[&["d"], &["d", "type"], &["tags"]]);
    let mut shapes = Shapes::default();
    // 9 bytes of whitespace, none of them the spaces inside a name or a string.
    let first = "{ \"d\" : {\"type\":\"x\"}, \"tags\":[1, \"a b\", true], \"c d\":1 }\r";
    let (_, ws) = agree(&mut shapes, first, &t).unwrap();
    assert_eq!(ws, 9);
    let next = "{ \"d\" : {\"type\":false}, \"tags\":[22, \"\", null], \"c d\":\"e f\" }\r";
    let (v, ws) = agree(&mut shapes, next, &t).unwrap();
    assert_eq!(shapes.hits, 1);
    assert_eq!(ws, 9);
    assert_eq!(v[0], Extracted::Composite);
    assert_eq!(v[1], Extracted::Bool(false));
    assert_eq!(v[2], Extracted::Composite);
}

#[test]
fn a_record_breaking_the_layout_gets_the_scanners_error() {
    let t = trie(&[&["id"]]);
    let mut shapes = Shapes::default();
    agree(&mut shapes, r#"{"id":"a","n":1}"#, &t).unwrap();
    for bad in [
        "{\"id\":\"a\u{1}\",\"n\":1}",
        // A control byte or a backslash where the string's closing quote was: the rest
        // follows the layout, but the string never ends.
        "{\"id\":\"a\u{1},\"n\":1}",
        r#"{"id":"a\,"n":1}"#,
        r#"{"id":"a\q","n":1}"#,
        r#"{"id":"a","n":01}"#,
        r#"{"id":"a","n":-}"#,
        r#"{"id":"a","n":1}x"#,
        r#"{"id":"a","n":tru}"#,
        r#"{"id":"a","n":1"#,
    ] {
        assert!(agree(&mut shapes, bad, &t).is_err(), "{bad}");
    }
    assert_eq!(shapes.hits, 0);
    // An escape in a hole is read by the scanner's own routine, and unescaped; an object
    // where no key path reads is one hole too.
    let (v, _) = agree(&mut shapes, r#"{"id":"a\u00e9","n":{"x":[1,"\n"]}}"#, &t).unwrap();
    assert_eq!(v[0], Extracted::Str(Cow::Owned("aé".into())));
    assert_eq!(shapes.hits, 1);
}

#[test]
fn integers_in_a_hole_are_read_by_the_layout_and_others_by_the_scanner() {
    let t = trie(&[&["id"]]);
    let mut shapes = Shapes::default();
    agree(&mut shapes, r#"{"id":"a","n":1}"#, &t).unwrap();
    // Integers of every length (past the 8 bytes read at once), signs and zeros: the layout's.
    let read = [
        "0",
        "-0",
        "7",
        "-7",
        "12345678",
        "123456789",
        "-1234567890123456789012345",
        "10",
        "9007199254740993",
    ];
    for (k, n) in read.iter().enumerate() {
        let doc = format!(r#"{{"id":"a","n":{n}}}"#);
        agree(&mut shapes, &doc, &t).unwrap();
        assert_eq!(shapes.hits as usize, k + 1, "{doc}");
    }
    // Numbers that go on (a fraction, an exponent) are the scanner's routine's, read alike.
    for n in ["1.5", "-0.25", "1e5", "12E-3", "0.0"] {
        agree(&mut shapes, &format!(r#"{{"id":"a","n":{n}}}"#), &t).unwrap();
    }
    assert_eq!(shapes.hits as usize, read.len() + 5);
    // Bad numbers: the scanner's error, whichever reads them first.
    for n in ["01", "-01", "00", "-", "1.", "1e", "12x", "--1", "+1", "1-"] {
        let doc = format!(r#"{{"id":"a","n":{n}}}"#);
        assert!(agree(&mut shapes, &doc, &t).is_err(), "{doc}");
    }
}

#[test]
fn a_hole_is_read_at_its_depth() {
    // /a/b sits two levels down; the hole beside it holds nested arrays. Nesting is bounded at
    // 128 levels wherever it is: the layout path must count the levels above the hole.
    let t = trie(&[&["a", "b"]]);
    let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let doc = |n: usize| format!(r#"{{"a":{{"b":1,"c":{}}}}}"#, nested(n));
    let mut shapes = Shapes::default();
    agree(&mut shapes, &doc(3), &t).unwrap();
    // The root object is level 1, `a`'s object level 2: 126 arrays fit, 127 do not.
    let fits = doc(126);
    let (v, _) = agree(&mut shapes, &fits, &t).unwrap();
    assert_eq!(v[0], Extracted::Number(b"1"));
    assert_eq!(shapes.hits, 1);
    let e = agree(&mut shapes, &doc(127), &t).unwrap_err();
    assert_eq!(e.message, "nesting deeper than 128 levels");
}

#[test]
fn records_repeating_a_property_learn_no_layout() {
    // `{"a":{"b":1},"a":5}` has no /a/b: the second `a` resets it. No layout is learnt from
    // such a record, so the next one is read by the full scanner too.
    let t = trie(&[&["a"], &["a", "b"]]);
    let mut shapes = Shapes::default();
    let (v, _) = agree(&mut shapes, r#"{"a":{"b":1},"a":5}"#, &t).unwrap();
    assert_eq!(v[1], Extracted::Missing);
    assert!(shapes.layouts.is_empty());
    let (v, _) = agree(&mut shapes, r#"{"a":{"b":2},"a":6}"#, &t).unwrap();
    assert_eq!(
        (v[0].clone(), v[1].clone()),
        (Extracted::Number(b"6"), Extracted::Missing)
    );
    // Two records with no layout to learn: reading pauses rather than trying each record.
    assert_eq!((shapes.paused, shapes.pause), (FIRST_PAUSE, FIRST_PAUSE));
}

#[test]
fn a_name_with_an_escape_is_read_by_the_scanner() {
    // `\u0061` is `a`, a key path: the scanner unescapes names before looking them up.
    let t = trie(&[&["a"]]);
    let mut shapes = Shapes::default();
    for n in 1..4 {
        let doc = format!(r#"{{"\u0061":{n}}}"#);
        let (v, _) = agree(&mut shapes, &doc, &t).unwrap();
        assert_eq!(v[0], Extracted::Number(n.to_string().leak().as_bytes()));
    }
}

#[test]
fn a_layout_that_reads_most_records_is_kept() {
    // Two records in three follow one layout; every third has a property of its own. The
    // layout misses a third of the records, but it is not replaced by one that fits a single
    // record.
    let t = trie(&[&["a"]]);
    let mut shapes = Shapes::default();
    one_layout_and_one_offs(&mut shapes, &t);
    assert_eq!(shapes.counts(), (199, 300), "all but the first of 200");
}

/// 300 records through `shapes`: two in three of one layout, every third a property of its own.
fn one_layout_and_one_offs(shapes: &mut Shapes, t: &PathTrie) {
    for i in 0..300 {
        let doc = if i % 3 == 2 {
            format!(r#"{{"a":{i},"x{i}":0}}"#)
        } else {
            format!(r#"{{"a":{i},"b":"c"}}"#)
        };
        agree(shapes, &doc, t).unwrap();
    }
}

#[test]
fn two_layouts_alternating_are_both_learnt() {
    let t = trie(&[&["a"]]);
    let mut shapes = Shapes::default();
    let docs = [r#"{"a":1,"b":2}"#, r#"{"b":2,"a":1}"#];
    for i in 0..40 {
        agree(&mut shapes, docs[i % 2], &t).unwrap();
    }
    // Record 0 teaches the first layout; the odd records 1 to 15 are its 8 misses (the
    // even ones between, 7 hits), and record 15 teaches the second. Records 16 to 39 are
    // read: 7 + 24 of 40.
    assert_eq!(shapes.counts(), (31, 40));
    assert_eq!(shapes.layouts.len(), 2);
}

#[test]
fn kinds_of_record_in_turn_are_each_read_by_their_layout() {
    // A container of four kinds of document, in turn (orders after customers after
    // products, the worst order for a single layout).
    let t = trie(&[&["a"], &["id"]]);
    let kinds = [
        r#"{"id":"x","a":1,"b":2}"#,
        r#"{"id":"x","c":{"d":[1,2]},"a":3}"#,
        r#"{"a":"q","id":"y"}"#,
        r#"{"id":"z","e":true,"f":null}"#,
    ];
    let mut shapes = Shapes::default();
    for i in 0..400 {
        agree(&mut shapes, kinds[i % 4], &t).unwrap();
    }
    // By hand: record 0 teaches kind 0; its 8th miss (record 10) teaches kind 2 after 2
    // hits; the 8th miss after that (record 25) kind 1 after 7 hits; the 8th miss of kind 3
    // (record 55) kind 3 after 22 hits; records 56 to 399 are read: 2 + 7 + 22 + 344.
    assert_eq!(shapes.counts(), (375, 400));
    assert_eq!(shapes.layouts.len(), MAX_LAYOUTS);
    // The layouts' pause never started: each of them read records.
    assert_eq!((shapes.paused, shapes.pause), (0, 0));
}

#[test]
fn a_record_of_no_layout_beside_a_good_one_is_no_poor_mark() {
    // Every fifth record repeats a property (no layout can be learnt from it); the others
    // share one layout, which keeps reading them.
    let t = trie(&[&["a"]]);
    let mut shapes = Shapes::default();
    for i in 0..100 {
        let doc = if i % 5 == 4 {
            r#"{"a":1,"a":2}"#
        } else {
            r#"{"a":1,"b":2}"#
        };
        agree(&mut shapes, doc, &t).unwrap();
    }
    // 80 records of the layout, the first of them its teacher.
    assert_eq!(shapes.counts(), (79, 100));
    assert_eq!((shapes.poor, shapes.paused), (0, 0));
}

#[test]
fn a_layout_that_read_nothing_makes_room_for_a_new_kind() {
    // The records of `a_layout_that_reads_most_records_is_kept`: the one-offs fill the free
    // places with layouts that read nothing. Then a new kind of record arrives, every other
    // record: one of those layouts makes room for it.
    let t = trie(&[&["a"]]);
    let mut shapes = Shapes::default();
    one_layout_and_one_offs(&mut shapes, &t);
    assert_eq!(
        shapes.layouts.len(),
        MAX_LAYOUTS,
        "full: one useful, three one-offs"
    );
    let (before, _) = shapes.counts();
    for i in 0..200 {
        let doc = if i % 2 == 0 {
            r#"{"a":1,"b":"c"}"#
        } else {
            r#"{"b":"c","a":1}"#
        };
        agree(&mut shapes, doc, &t).unwrap();
    }
    // The new kind's 8th miss (its record 15 at the latest) teaches its layout; every record
    // after is read, with the 8 before of the old kind.
    let (after, _) = shapes.counts();
    assert!(after - before >= 200 - 8, "{} of 200 read", after - before);
}

#[test]
fn a_layout_that_reads_good_hits_records_clears_the_poor_streak() {
    // After a poor mark and a pause, a layout that reads GOOD_HITS records starts the streak
    // and the pause's doubling again from nothing: the 63rd record leaves them, the 64th
    // clears them.
    let t = trie(&[&["a"]]);
    let mut shapes = Shapes::default();
    let doc = r#"{"a":1,"b":2}"#;
    agree(&mut shapes, doc, &t).unwrap();
    (shapes.poor, shapes.pause) = (1, FIRST_PAUSE);
    for _ in 0..GOOD_HITS - 1 {
        agree(&mut shapes, doc, &t).unwrap();
    }
    assert_eq!((shapes.poor, shapes.pause), (1, FIRST_PAUSE));
    agree(&mut shapes, doc, &t).unwrap();
    assert_eq!((shapes.poor, shapes.pause), (0, 0));
}

#[test]
fn layouts_that_mostly_miss_are_dropped_then_paused() {
    // Every record of its own layout. Records 0, 8, 16 and 24 teach the four layouts (each
    // 8 misses after the last); at record 32 they are poor: one mark, and record 32's
    // layout replaces one; at record 40, the second mark: every layout dropped, and a pause
    // of FIRST_PAUSE records starts with record 41.
    let t = trie(&[&["a"]]);
    let mut shapes = Shapes::default();
    for i in 0..60 {
        let doc = format!(r#"{{"a":1,"x{i}":2}}"#);
        agree(&mut shapes, &doc, &t).unwrap();
        if i == 39 {
            assert_eq!((shapes.layouts.len(), shapes.poor), (MAX_LAYOUTS, 1));
        }
    }
    assert_eq!(shapes.pause, FIRST_PAUSE);
    assert_eq!(shapes.paused, FIRST_PAUSE - 19, "records 41 to 59 paused");
    assert!(shapes.layouts.is_empty());
    assert_eq!(shapes.counts(), (0, 60));
}

/// A small generator of JSON values (xorshift).
struct Gen(crate::testing::XorShift);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0.next()
    }

    fn pick<'s>(&mut self, xs: &[&'s str]) -> &'s str {
        xs[self.next() as usize % xs.len()]
    }

    fn scalar(&mut self) -> String {
        match self.next() % 9 {
            0 => self.pick(&["true", "false", "null"]).into(),
            1 => format!(
                "-{}.{}e+{}",
                self.next() % 100,
                self.next() % 10,
                self.next() % 9
            ),
            2 => (self.next() % 100_000).to_string(),
            3 => format!("-{}", self.next() >> (self.next() % 64)),
            4 => "\"\"".into(),
            5 => format!("\"a\\\"b{}\"", self.next() % 9),
            _ => format!("\"v{}é\"", self.next() % 1000),
        }
    }

    /// A value `depth` levels deep at most, with names drawn from a few (some key paths).
    fn value(&mut self, depth: u32) -> String {
        match self.next() % 6 {
            0 if depth > 0 => {
                let n = self.next() % 4;
                let items: Vec<String> = (0..n).map(|_| self.value(depth - 1)).collect();
                format!("[{}]", items.join(","))
            }
            1 | 2 if depth > 0 => self.object(depth - 1),
            _ => self.scalar(),
        }
    }

    fn object(&mut self, depth: u32) -> String {
        let n = self.next() % 5;
        let members: Vec<String> = (0..n)
            .map(|_| {
                let name = self.pick(&["a", "b", "c", "type", "x", "é"]);
                let ws = self.pick(&["", "", "", " "]);
                format!("\"{name}\"{ws}:{ws}{}", self.value(depth))
            })
            .collect();
        format!("{{{}}}", members.join(","))
    }
}

/// The spans of the scalar values of `doc` (valid JSON): strings that are no names, numbers,
/// `true`, `false` and `null`.
fn scalars(doc: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < doc.len() {
        match doc[i] {
            b'"' => {
                let start = i;
                i += 1;
                while doc[i] != b'"' {
                    i += if doc[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                let mut j = i;
                while doc[j] == b' ' {
                    j += 1;
                }
                if doc[j] != b':' {
                    out.push((start, i));
                }
            }
            b if b.is_ascii_alphanumeric() || b == b'-' => {
                let start = i;
                while doc[i].is_ascii_alphanumeric() || matches!(doc[i], b'-' | b'+' | b'.') {
                    i += 1;
                }
                out.push((start, i));
            }
            _ => i += 1,
        }
    }
    out
}

/// `layout` with every scalar replaced by a fresh one (same tokens otherwise).
fn refill(g: &mut Gen, layout: &str) -> String {
    let mut out = String::new();
    let mut at = 0;
    for (start, end) in scalars(layout.as_bytes()) {
        out.push_str(&layout[at..start]);
        out.push_str(&g.scalar());
        at = end;
    }
    out.push_str(&layout[at..]);
    out
}

#[test]
fn random_records_and_their_mutations_read_as_the_scanner_reads_them() {
    // Layouts of nested objects and arrays, each repeated with fresh scalars (hits), and
    // mutated one byte at a time (misses, errors, or records of another layout).
    let t = trie(&[
        &["a"],
        &["b"],
        &["a", "b"],
        &["a", "type"],
        &["c", "x", "a"],
        &["é"],
    ]);
    let mut g = Gen(crate::testing::XorShift(0x9e37_79b9_7f4a_7c15));
    let mut shapes = Shapes::default();
    let (mut oks, mut errors) = (0, 0);
    for _ in 0..300 {
        let layout = g.object(3);
        for _ in 0..20 {
            let doc = refill(&mut g, &layout);
            match agree(&mut shapes, &doc, &t) {
                Ok(_) => oks += 1,
                Err(_) => errors += 1,
            }
            let mut bytes = doc.into_bytes();
            let at = g.next() as usize % bytes.len();
            bytes[at] = *g
                .pick(&["\"", "\\", "{", "}", ",", ":", " ", "1", "-", "]", "\u{1}"])
                .as_bytes()
                .first()
                .unwrap();
            if let Ok(m) = String::from_utf8(bytes) {
                match agree(&mut shapes, &m, &t) {
                    Ok(_) => oks += 1,
                    Err(_) => errors += 1,
                }
            }
        }
    }
    // Both paths taken often: the comparison above is not vacuous.
    assert!(oks > 4_000 && errors > 1_000, "{oks} read, {errors} errors");
}

#[test]
fn the_layout_path_is_taken_for_repeated_layouts() {
    let t = trie(&[&["a"], &["c", "x", "a"]]);
    let mut g = Gen(crate::testing::XorShift(7));
    let mut shapes = Shapes::default();
    let layout = r#"{"a":1,"c":{"x":{"a":"q"},"y":[1,2]},"b":true}"#;
    let mut read = 0;
    for _ in 0..1_000 {
        let doc = refill(&mut g, layout);
        let before = shapes.hits;
        if agree(&mut shapes, &doc, &t).is_ok() && shapes.hits > before {
            read += 1;
        }
    }
    // Only records whose strings have an escape (1 in 9 scalars) miss.
    assert!(read > 400, "{read} of 1,000 read by the layout");
}
