#!/usr/bin/env python3
"""Regenerates the malformed-input corpus: python3 tests/corpus/gen.py

Each case is a small file and a line of manifest.json: the candidates, extra flags, what a run
without --skip-invalid must do (exit code, a fragment of stderr), and with --skip-invalid the
exit code and the counts (records read, analyzed, skipped). `records` is counted here,
independently of pkadvisor: lines that hold anything but JSON whitespace, array elements, or CSV
data rows. tests/corpus.rs runs every case with --threads 1 and 2.
"""
import gzip, json, os

here = os.path.dirname(os.path.abspath(__file__))
files = os.path.join(here, "files")
os.makedirs(files, exist_ok=True)
cases = []

def case(name, data, records, analyzed, strict_exit=0, strict_msg="", skip_exit=None,
         cands="/a", extra=(), skipped=None, report=""):
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    with open(os.path.join(files, name), "wb") as f:
        f.write(data)
    if skip_exit is None:
        skip_exit = 0 if records is not None else strict_exit
    cases.append({
        "file": name, "candidates": cands, "extra": list(extra),
        "strict_exit": strict_exit, "strict_message": strict_msg,
        "skip_exit": skip_exit, "records": records, "analyzed": analyzed,
        "skipped": None if records is None else (skipped if skipped is not None else records - analyzed),
        "report_fragment": report,
    })

BAD = "expected"  # most JSON syntax errors say what was expected
# --- JSON Lines: valid and tricky-but-valid
case("ok.jsonl", '{"a":1}\n{"a":"x"}\n', 2, 2)
case("blank_lines.jsonl", '\n{"a":1}\n\n  \n{"a":2}\n\n', 2, 2)
case("crlf.jsonl", '{"a":1}\r\n{"a":2}\r\n', 2, 2)
case("bom.jsonl", '\ufeff{"a":1}\n{"a":2}\n', 2, 2)
case("no_final_newline.jsonl", '{"a":1}\n{"a":2}', 2, 2)
case("unicode_escapes.jsonl", '{"a":"\\u00e9t\\u00e9"}\n{"a":"\\ud83d\\ude00"}\n', 2, 2)
case("duplicate_keys.jsonl", '{"a":1,"a":2}\n', 1, 1)
# A key path no document holds is a mistake, not a key to rank: exit 2 naming the nearest path.
case("overwritten_parent.jsonl", '{"a":{"b":"x"},"a":5}\n', None, None, 2,
     "the one document read does not hold /a/b; did you mean /a?", cands="/a/b")
case("nested_missing.jsonl", '{"a":{"c":1}}\n{"b":2}\n', None, None, 2,
     "none of the 2 documents read holds /a/b; did you mean /a/c", cands="/a/b")
case("null_key.jsonl", '{"a":null}\n{"a":1}\n', 2, 2)
case("bool_key.jsonl", '{"a":true}\n{"a":false}\n', 2, 2)
case("number_forms.jsonl", '{"a":1.0}\n{"a":1e0}\n{"a":1}\n{"a":-0}\n{"a":0}\n', 5, 5)
case("emoji_key.jsonl", '{"a":"\U0001F600"}\n', 1, 1)
case("escaped_slash.jsonl", '{"a":"x\\/y"}\n', 1, 1)
case("depth_127.jsonl", '{"a":1,"z":' + "[" * 126 + "]" * 126 + "}\n", 1, 1)
case("whitespace_inside.jsonl", ' { "a" : 1 , "b" : [ 1 , 2 ] } \n', 1, 1)
case("quoted_path.jsonl", '{"x y":{"c":3}}\n', 1, 1, cands='/"x y"/c')
case("synthetic_parts.jsonl", '{"a":"p","b":9007199254740993}\n', 1, 1, cands="/a+/b")
case("time_key.jsonl", '{"t":"2024-03-01T10:00:00Z"}\n{"t":1709287200}\n', 2, 2, cands="day(/t)")
case("gzip.jsonl.gz", gzip.compress(b'{"a":1}\n{"a":2}\n', mtime=0), 2, 2)
# --- JSON Lines: malformed records (stop without --skip-invalid; counted with it)
case("truncated.jsonl", '{"a":1}\n{"a":\n{"a":3}\n', 3, 2, 2, ":2:")
case("not_object_array.jsonl", '[1,2]\n{"a":1}\n', 2, 1, 2, "expected a JSON object")
case("not_object_number.jsonl", '5\n{"a":1}\n', 2, 1, 2, "expected a JSON object")
case("not_object_null.jsonl", 'null\n', 1, 0, 2, "expected a JSON object", skip_exit=2)
case("trailing_garbage.jsonl", '{"a":1} x\n{"a":2}\n', 2, 1, 2, ":1:")
case("trailing_comma.jsonl", '{"a":1,}\n{"a":2}\n', 2, 1, 2, "expected a property name")
case("missing_colon.jsonl", '{"a" 1}\n{"a":2}\n', 2, 1, 2, "expected `:`")
case("single_quotes.jsonl", "{'a':1}\n{\"a\":2}\n", 2, 1, 2, "property name in double quotes")
case("nan.jsonl", '{"a":NaN}\n{"a":2}\n', 2, 1, 2, "expected a JSON value")
case("comment.jsonl", '// c\n{"a":2}\n', 2, 1, 2, ":1:")
case("unterminated_string.jsonl", '{"a":"x}\n{"a":2}\n', 2, 1, 2, ":1:")
case("control_char.jsonl", '{"a":"x\ty"}\n{"a":2}\n', 2, 1, 2, ":1:")
case("invalid_utf8.jsonl", b'{"a":"\xff"}\n{"a":2}\n', 2, 1, 2, "UTF-8")
case("lone_surrogate_value.jsonl", '{"a":"\\ud800"}\n{"a":2}\n', 2, 1, 2, "surrogate")
case("lone_surrogate_name.jsonl", '{"o":{"\\udc00":1},"a":1}\n{"a":2}\n', 2, 1, 2, "surrogate")
case("depth_200.jsonl", '{"z":' + "[" * 200 + "]" * 200 + "}\n{\"a\":1}\n", 2, 1, 2, "nesting deeper")
case("form_feed_line.jsonl", '{"a":1}\n\f\n', 2, 1, 2, ":2:")
case("vertical_tab_line.jsonl", '{"a":1}\n\v\n', 2, 1, 2, ":2:")
case("two_objects_one_line.jsonl", '{"a":1}{"a":2}\n', 1, 0, 2, ":1:", skip_exit=2)
case("all_bad.jsonl", 'x\ny\n', 2, 0, 2, ":1:", skip_exit=2)
# --- Key errors: the document is fine, its key cannot be computed (counted per candidate)
case("composite_key.jsonl", '{"a":{"b":1}}\n{"a":2}\n', 2, 2)
case("huge_number_key.jsonl", '{"a":1e400}\n{"a":2}\n', 2, 2)
case("bad_timestamp.jsonl", '{"t":"yesterday"}\n{"t":"2024-01-01"}\n', 2, 2, cands="day(/t)")
# --- Files and limits
case("empty.jsonl", '', None, None, 2, "empty")
case("whitespace_only.jsonl", ' \n\n\t\n', None, None, 2, "empty")
case("long_record.jsonl", '{"a":"' + "x" * 5000 + '"}\n{"a":1}\n', 2, 1, 2, "over the 2000-byte limit",
     extra=["--max-record-bytes", "2KB"])
case("long_line_no_newline.jsonl", '{"a":"' + "x" * 5000, None, None, 2, "longer than 2000 bytes",
     extra=["--max-record-bytes", "2KB"])
case("corrupt.jsonl.gz", b"\x1f\x8b\x08\x00garbage", None, None, 2, "corrupt.jsonl.gz")
# --- JSON arrays
case("array_ok.json", '[{"a":1},\n {"a":2}]', 2, 2)
case("array_empty.json", '[]', None, None, 2, "empty")
case("array_non_object.json", '[{"a":1}, 5, {"a":2}]', 3, 2, 2, "expected a JSON object")
case("array_unterminated.json", '[{"a":1},{"a":2}', None, None, 2, "array")
case("array_trailing_comma.json", '[{"a":1},]', None, None, 2, "json")
case("array_garbage_after.json", '[{"a":1}] x', None, None, 2, "after")
case("array_pretty.json", '[\n  {\n    "a": 1\n  },\n  {\n    "a": "x"\n  }\n]\n', 2, 2)
case("array_bom.json", '\ufeff[{"a":1}]', 1, 1)
case("array_long_element.json", '[{"a":"' + "x" * 5000 + '"},\n {"a":1}]', 2, 1, 2,
     "over the 2000-byte limit", extra=["--max-record-bytes", "2KB"])
case("array_runaway_element.json", '[{"a":1},\n {"a":"' + "x" * 5000, None, None, 2,
     "array_runaway_element.json:2:2: an array element longer than 2000 bytes",
     extra=["--max-record-bytes", "2KB"])
# --- CSV
case("ok.csv", 'a,b\n1,x\n2,y\n', 2, 2)
case("crlf.csv", 'a,b\r\n1,x\r\n2,y\r\n', 2, 2)
case("bom.csv", '\ufeffa,b\n1,x\n', 1, 1)
case("blank_rows.csv", 'a,b\n1,x\n,\n,\n2,y\n', 4, 2, 2, "blank row")
case("quoted_newline.csv", 'a,b\n"1\n2",x\n3,y\n', 2, 2)
case("unterminated_quote.csv", 'a,b\n1,"x\n2,y\n3,z\n', None, None, 2, "never closed")
case("too_many_fields.csv", 'a,b\n1,x,extra\n2,y\n', 2, 1, 2, "fields")
case("too_few_fields.csv", 'a,b\n1\n2,y\n', 2, 1, 2, "fields")
case("duplicate_header.csv", 'a,a\n1,2\n', 1, 1, strict_msg="repeats the name `a`")
case("invalid_utf8_field.csv", b'a,b\n1,\xff\n2,y\n', 2, 1, 2, "column `b`")
case("invalid_utf8_header.csv", b'a,\xff\n1,2\n', None, None, 2, ":1:")
case("header_only.csv", 'a,b\n', None, None, 2, "empty")
case("empty.csv", '', None, None, 2, "header")
# A row past the limit is a bad record; one running on past the read buffer stops the run.
case("long_row.csv", 'a,b\n1,"' + "x" * 12000 + '"\n2,y\n', 2, 1, 2, "over the 2000-byte limit",
     extra=["--max-record-bytes", "2KB"])
case("runaway_row.csv", 'a,b\n1,x\n2,"' + "x" * 40000, None, None, 2, "runaway_row.csv:3:1: a CSV row longer than 2000 bytes",
     extra=["--max-record-bytes", "2KB"])
case("numbers_and_strings.csv", 'a\n007\n7\nx\n', 3, 3)
# --- Separators, big integers and access logs
case("separator_in_value.jsonl", '{"a":"x-y","b":"z"}\n{"a":"x","b":"y-z"}\n', 2, 2, cands="/a+/b",
     report="SEPARATOR_IN_VALUE")
case("separator_other.jsonl", '{"a":"x-y","b":"z"}\n{"a":"x","b":"y-z"}\n', 2, 2, cands="/a+/b",
     extra=["--separator", "|"], report="x-y|z")
case("big_integers.jsonl", '{"a":9007199254740993,"b":"s"}\n{"a":9007199254740992,"b":"s"}\n', 2, 2,
     cands="/a+/b", report="9007199254740993-s")
case("ops_log.jsonl", '{"op":"write","a":1,"ru":7}\n{"op":"frob","a":1}\n', 2, 2)
case("ops_bad_op.jsonl", '{"a":1}\n{"a":2}\n', 2, 2, 2, 'ops_log.jsonl:2:1: `op` must be "read", "write" or "query", got "frob"',
     skip_exit=2, extra=["--ops", "ops_log.jsonl"])
# An `ru` of 1e308 is finite but was accepted: a few such lines sum to infinity.
case("ops_huge_ru_log.jsonl", '{"op":"read","a":1,"ru":1e308}\n', 1, 1)
case("ops_huge_ru.jsonl", '{"a":1}\n', 1, 1, 2,
     "ops_huge_ru_log.jsonl:1:1: `ru` must be a number of request units from 0 to 1e6, got 1e308",
     skip_exit=2, extra=["--ops", "ops_huge_ru_log.jsonl"])
# --- Arguments: the input is fine, a flag is out of range (exit 2, never an abort)
for flag, value, msg in [("--physical-partitions", "4294967295", "at most 100000"),
                         ("--ru", "1e15", "at most 100000"),
                         ("--autoscale-max-ru", "1e15", "at most 100000"),
                         ("--writes-per-sec", "1e308", "at most 1e9"),
                         ("--total-size", "1" + "0" * 300, "at most 1,000 PB"),
                         ("--max-record-bytes", "0", "--max-record-bytes"),
                         # 2^32 aborted (SIGABRT) allocating the list of partitions.
                         ("--top", "4294967296", "--top 4294967296: must be from 0 to 100,000"),
                         ("--max-candidates", "5000", "--max-candidates 5000: must be from 1 to 1,000"),
                         ("--limit", "item_bytes=1e308", "limit `item_bytes` = `1e308` is out of range")]:
    case("arg_%s.jsonl" % flag.strip("-").replace("-", "_"), '{"a":1}\n', 1, 1, 2, msg, skip_exit=2,
         extra=[flag, value])
case("arg_tiny_capacity.jsonl", '{"a":1}\n', 1, 1, 2, "must be at least 1", skip_exit=2,
     extra=["--ru", "1000", "--limit", "manual_ru_per_partition=0.000001"])
case("production_below_sample.jsonl", '{"a":1}\n{"a":2}\n{"a":3}\n', 3, 3, 2, "smaller than the 3 documents analyzed",
     skip_exit=2, extra=["--total-docs", "2"])
case("output_is_input.jsonl", '{"a":1}\n', 1, 1, 2, "one of the inputs", skip_exit=2,
     extra=["-o", "./output_is_input.jsonl"])
case("listed_twice.jsonl", '{"a":1}\n{"a":2}\n', 2, 2, 0, "read once", extra=["./listed_twice.jsonl"])
# --- Directory walks: a symbolic-link loop and a second name for a file are each read once
import shutil
walk = os.path.join(files, "walk_loop")
shutil.rmtree(walk, ignore_errors=True)
os.makedirs(os.path.join(walk, "sub"))
with open(os.path.join(walk, "a.jsonl"), "w") as f:
    f.write('{"a":1}\n{"a":2}\n')
os.symlink(".", os.path.join(walk, "self"))
os.symlink("..", os.path.join(walk, "sub", "up"))
os.symlink("a.jsonl", os.path.join(walk, "alias.jsonl"))
os.symlink("nowhere.jsonl", os.path.join(walk, "dangling.jsonl"))
cases.append({"file": "walk_loop", "candidates": "/a", "extra": [], "strict_exit": 0,
              "strict_message": "symbolic-link loop", "skip_exit": 0, "records": 2, "analyzed": 2,
              "skipped": 0, "report_fragment": ""})

with open(os.path.join(here, "manifest.json"), "w") as f:
    json.dump(cases, f, indent=1)
print(len(cases), "cases")
