use super::*;
use crate::testing::{JsonGen, XorShift};

/// An element's bytes, line and column.
type Element = (Vec<u8>, u64, u64);

/// The elements of `text` read in buffers of `chunk` bytes into blocks of about `block` bytes,
/// block by block; or the error's line, column and message.
fn read(text: &[u8], chunk: usize, block: usize) -> Result<Vec<Vec<Element>>, (u64, u64, String)> {
    let inner = std::io::BufReader::with_capacity(chunk, std::io::Cursor::new(text.to_vec()));
    let mut r = JsonArrayReader::new(inner, 0, "a.json".into()).block_bytes(block);
    let mut out = Vec::new();
    loop {
        match r.next_block() {
            Ok(None) => return Ok(out),
            Ok(Some(b)) => {
                let Framing::Spans(spans) = &b.framing else {
                    panic!("spans")
                };
                out.push(
                    spans
                        .iter()
                        .map(|s| (b.data()[s.start..s.end].to_vec(), s.line, s.column))
                        .collect(),
                );
            }
            Err(IngestError::Structure {
                line,
                column,
                message,
                ..
            }) => return Err((line, column, message)),
            Err(e) => panic!("{e}"),
        }
    }
}

fn elements(text: &str) -> Result<Vec<(String, u64, u64)>, IngestError> {
    let mut r = JsonArrayReader::new(
        std::io::Cursor::new(text.as_bytes().to_vec()),
        0,
        "a.json".into(),
    );
    let mut out = Vec::new();
    while let Some(b) = r.next_block()? {
        let Framing::Spans(spans) = &b.framing else {
            panic!("spans")
        };
        for s in spans {
            out.push((
                String::from_utf8(b.data()[s.start..s.end].to_vec()).unwrap(),
                s.line,
                s.column,
            ));
        }
    }
    Ok(out)
}

/// The reader this one replaced, one byte at a time through the same states, with its line and
/// column counted at every byte: the model the run-at-a-time reader must equal, element for
/// element, block for block and error for error.
fn model(text: &[u8], chunk: usize, block: usize) -> Result<Vec<Vec<Element>>, (u64, u64, String)> {
    let (mut state, mut depth, mut in_string, mut escape) = (State::Start, 0u32, false, false);
    let (mut line, mut column) = (1u64, 1u64);
    let (mut elem, mut elem_end, mut elem_at) = (Vec::new(), 0, (1, 1));
    let mut elements = 0u64;
    let (mut blocks, mut data_len, mut current) = (Vec::new(), 0usize, Vec::new());
    let err = |line, column, m: &str| Err((line, column, m.to_string()));
    for piece in text.chunks(chunk.max(1)) {
        for &b in piece {
            let ws = b.is_ascii_whitespace();
            match state {
                State::Start | State::BeforeElement | State::Done if ws => {}
                State::Start if b != b'[' => {
                    return err(line, column, "expected `[`: a .json input must be an array of documents (use --input-format jsonl for JSON Lines)");
                }
                State::Start => state = State::BeforeElement,
                State::BeforeElement if b == b']' => {
                    if elements > 0 {
                        return err(line, column, "trailing `,` before `]`: remove it");
                    }
                    state = State::Done;
                }
                State::Done => {
                    return err(
                        line,
                        column,
                        "unexpected data after the closing `]` of the array",
                    );
                }
                State::BeforeElement | State::InElement => {
                    let starts = state == State::BeforeElement;
                    if !starts && !in_string && depth == 0 && (b == b',' || b == b']') {
                        elem.truncate(elem_end);
                        data_len += elem.len();
                        current.push((std::mem::take(&mut elem), elem_at.0, elem_at.1));
                        elem_end = 0;
                        elements += 1;
                        state = if b == b',' {
                            State::BeforeElement
                        } else {
                            State::Done
                        };
                    } else {
                        if starts {
                            state = State::InElement;
                            elem_at = (line, column);
                        }
                        elem.push(b);
                        if !ws || in_string {
                            elem_end = elem.len();
                        }
                        if in_string {
                            if escape {
                                escape = false;
                            } else if b == b'\\' {
                                escape = true;
                            } else if b == b'"' {
                                in_string = false;
                            }
                        } else {
                            match b {
                                b'"' => in_string = true,
                                b'{' | b'[' => depth += 1,
                                b'}' | b']' => depth = depth.saturating_sub(1),
                                _ => {}
                            }
                        }
                    }
                }
            }
            if b == b'\n' {
                line += 1;
                column = 1;
            } else if b & 0xC0 != 0x80 {
                column += 1;
            }
        }
        if data_len >= block {
            blocks.push(std::mem::take(&mut current));
            data_len = 0;
        }
    }
    match state {
        State::Done => {
            if !current.is_empty() {
                blocks.push(current);
            }
            Ok(blocks)
        }
        State::Start => err(line, column, "empty input: expected a JSON array `[...]`"),
        _ => err(line, column, "unexpected end of input inside the top-level array: the file is truncated or the closing `]` is missing"),
    }
}

/// A generated array: `n` values (documents, strings with escapes and accents, numbers,
/// nested arrays) with whitespace and newlines between them, on one line or many.
fn array(g: &mut JsonGen, n: usize) -> Vec<u8> {
    let mut text = String::from(["[", " [\n", "\n[\r\n  "][g.next() as usize % 3]);
    for i in 0..n {
        if i > 0 {
            text.push_str([",", ", ", ",\n  ", " ,\t"][g.next() as usize % 4]);
        }
        match g.next() % 6 {
            0 => {
                text.push_str("{\"name\": \"Zoë \\\"Ω\\\" ,]}\", \"tags\": [\"日本\", \"a\\\\\"]}")
            }
            1 => text.push_str("\"€ in a string, with [brackets] and \\\\\""),
            _ => g.value(&mut text, 0),
        }
    }
    text.push_str(["]", "]\n", " ]\r\n\n"][g.next() as usize % 3]);
    text.into_bytes()
}

#[test]
fn splits_elements_with_positions() {
    let text = "[\n  {\"a\": \"x,]\"},\n  {\"b\": [1, {\"c\": 2}]}\n]\n";
    let e = elements(text).unwrap();
    assert_eq!(
        e,
        vec![
            ("{\"a\": \"x,]\"}".to_string(), 2, 3),
            ("{\"b\": [1, {\"c\": 2}]}".to_string(), 3, 3)
        ]
    );
}

#[test]
fn empty_array_has_no_records() {
    assert!(elements(" [ ] ").unwrap().is_empty());
}

#[test]
fn truncated_array_is_a_structure_error() {
    for (text, want) in [
        (
            "[{\"a\":1},\n{\"b\":",
            "a.json:2:6: unexpected end of input",
        ),
        ("{\"a\":1}", "a.json:1:1: expected `[`"),
        ("[{\"a\":1}] x", "a.json:1:11: unexpected data after"),
        ("[{\"a\":1},]", "a.json:1:10: trailing `,`"),
    ] {
        let err = elements(text).unwrap_err().to_string();
        assert!(err.contains(want), "{text:?}: {err}");
    }
}

#[test]
fn columns_count_characters_and_escapes_cross_buffers() {
    // `é` is two bytes, `€` three: the second element starts at character 11 of line 1 (byte
    // 14), the third at character 14 (byte 17). In buffers of every size, a backslash that ends
    // one buffer escapes the quote that starts the next.
    let text = "[\"é€\\\"x\", 7 ,{\"k\":\"a\\\\\"}]";
    for chunk in 1..=text.len() {
        let got = read(text.as_bytes(), chunk, 1 << 20).unwrap();
        let got: Vec<Element> = got.into_iter().flatten().collect();
        assert_eq!(
            got,
            vec![
                (b"\"\xc3\xa9\xe2\x82\xac\\\"x\"".to_vec(), 1, 2),
                (b"7".to_vec(), 1, 11),
                (b"{\"k\":\"a\\\\\"}".to_vec(), 1, 14),
            ],
            "buffers of {chunk} bytes"
        );
    }
}

#[test]
fn equals_the_byte_at_a_time_reader_on_generated_and_mutated_arrays() {
    // 600 arrays and a one-byte mutant of each (mostly malformed: an unclosed string, a
    // stray bracket, data after `]`), each read in buffers of 1 to 64 bytes into blocks of 1
    // to 256 bytes: the same elements, positions, blocks and errors as the model's.
    let mut g = JsonGen(XorShift(0x5eed_a77a));
    let (mut valid, mut invalid, mut multi_block) = (0, 0, 0);
    for i in 0..600 {
        let text = array(&mut g, 1 + i % 12);
        let mut mutant = text.clone();
        g.mutate(&mut mutant);
        for t in [&text, &mutant] {
            let chunk = 1 + g.next() as usize % 64;
            let block = 1 + g.next() as usize % 256;
            let want = model(t, chunk, block);
            assert_eq!(
                read(t, chunk, block),
                want,
                "{:?}, buffers of {chunk}, blocks of {block}",
                String::from_utf8_lossy(t)
            );
            match want {
                Ok(b) if b.len() > 1 => multi_block += 1,
                Ok(_) => valid += 1,
                Err(_) => invalid += 1,
            }
        }
    }
    // The generator reached every case it is meant to.
    assert!(
        valid > 100 && invalid > 100 && multi_block > 100,
        "{valid} {invalid} {multi_block}"
    );
}

#[test]
fn random_bytes_of_the_structural_alphabet_frame_as_the_model_does() {
    let alphabet = b"[]{}\",\\ a\n\t\r\x0c\xc3\xa9:1";
    let mut x = XorShift(0x0b17_e5ab);
    for _ in 0..20_000 {
        let len = x.next() as usize % 40;
        let mut text = vec![b'['];
        text.extend((0..len).map(|_| alphabet[x.next() as usize % alphabet.len()]));
        let chunk = 1 + x.next() as usize % 16;
        let block = 1 + x.next() as usize % 32;
        assert_eq!(
            read(&text, chunk, block),
            model(&text, chunk, block),
            "{:?}",
            String::from_utf8_lossy(&text)
        );
    }
}

#[test]
fn an_element_open_past_the_record_bound_stops_the_run_at_its_start() {
    // A string that never closes after `[`: without the bound the reader would keep it all.
    let mut text = b"[{\"a\":1},\n  {\"b\":\"".to_vec();
    text.extend(std::iter::repeat_n(b'x', 10_000));
    let inner = std::io::BufReader::with_capacity(100, std::io::Cursor::new(text));
    let mut r = JsonArrayReader::new(inner, 0, "a.json".into()).max_record_bytes(1_000);
    let err = loop {
        match r.next_block() {
            Ok(Some(_)) => {}
            Ok(None) => panic!("no error"),
            Err(e) => break e,
        }
    };
    let msg = err.to_string();
    assert!(
        msg.starts_with("a.json:2:3: an array element longer than 1000 bytes"),
        "{msg}"
    );
    assert!(msg.contains("raise --max-record-bytes"), "{msg}");
    // At the bound exactly, still open at a buffer's end, an element is read on.
    let text = format!("[\"{}\"]", "y".repeat(998));
    let inner = std::io::BufReader::with_capacity(1_001, std::io::Cursor::new(text.into_bytes()));
    let mut r = JsonArrayReader::new(inner, 0, "a.json".into()).max_record_bytes(1_000);
    let b = r.next_block().unwrap().unwrap();
    let Framing::Spans(spans) = &b.framing else {
        panic!("spans")
    };
    assert_eq!((spans.len(), spans[0].end - spans[0].start), (1, 1_000));
    // Past the bound but ended within the buffer: a record (the worker refuses it, as for a
    // line), and the next element after it.
    let text = format!("[\"{}\", 5]", "z".repeat(2_000));
    let inner =
        std::io::BufReader::with_capacity(64 << 10, std::io::Cursor::new(text.into_bytes()));
    let mut r = JsonArrayReader::new(inner, 0, "a.json".into()).max_record_bytes(1_000);
    let b = r.next_block().unwrap().unwrap();
    let Framing::Spans(spans) = &b.framing else {
        panic!("spans")
    };
    let lens: Vec<usize> = spans.iter().map(|s| s.end - s.start).collect();
    assert_eq!(lens, [2_002, 1]);
}
