#!/usr/bin/env python3
"""The architecture's rules, checked over src/ (docs/architecture.md says why each holds).

    python3 tools/arch.py            # summary, and every violation; exit 1 when one is found
    python3 tools/arch.py --edges    # also every folder -> folder edge with the files behind it
    python3 tools/arch.py --long N   # also list every function longer than N lines

Reads `use crate::…` paths (grouped `use crate::{…}` included) and `crate::x::…` paths in code
(comments and string literals removed; `#[cfg(test)]` modules left out), and checks:

1. no import cycle between files of different top-level folders;
2. no file below the command line (anything but main.rs, lib.rs, cli/) imports `cli`, and
   nothing but main.rs, lib.rs and cli/ imports `commands`;
3. no import from a lower stage to a higher one (the STAGES order below);
4. no function over 120 lines in src/, none over 80 in advise/, analysis/ and report/;
5. no serde_json `Value` built from text outside `ingest/value.rs` (test code aside): serde_json
   with its `raw_value` feature reads one property name as raw JSON text (docs/hardening.md), so
   `serde_json::from_str::<Value>`, `let v: Value = serde_json::from_…`, `next_element::<Value>`
   and a `Value` field of a `Deserialize` type without `deserialize_with` are refused.
"""
import os
import re
import sys
from collections import defaultdict

SRC = 'src'
# Lowest first. A module may import modules of its own rank or lower only.
STAGES = [
    ['timing', 'progress', 'small_file', 'neutralise', 'testing'],
    ['cosmos'],
    ['keys'],
    ['fmt'],
    ['ingest'],
    ['stats', 'pipeline'],
    ['estimate', 'workload', 'ops', 'observed', 'sql'],
    ['model'],
    ['profile'],
    ['advise'],
    ['ci'],
    ['report'],
    ['analysis'],
    ['commands'],
    ['cli'],
    ['root'],
]
RANK = {m: i for i, ms in enumerate(STAGES) for m in ms}
STRICT_FN = {'advise': 80, 'analysis': 80, 'report': 80}
MAX_FN = 120


def module_of(rel):
    top = rel.split('/')[0]
    top = top[:-3] if top.endswith('.rs') else top
    return 'root' if top in ('lib', 'main') else top


def strip(text):
    """Comments and string/char literals blanked, line structure kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            i = j
        elif text.startswith('/*', i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith('/*', j):
                    depth, j = depth + 1, j + 2
                elif text.startswith('*/', j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append('\n' * text.count('\n', i, j))
            i = j
        elif c == 'r' and re.match(r'r#*"', text[i:i + 10]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == '_')):
            m = re.match(r'r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + len(m.group(0)))
            j = n if j < 0 else j + len(end)
            out.append('""' + '\n' * text.count('\n', i, j))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == '\\' else 1
            out.append('""' + '\n' * text.count('\n', i, j))
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:])
            if m:
                out.append("' '")
                i += len(m.group(0))
            else:  # a lifetime
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def closing_brace(text, j):
    """Index of the `}` that closes the `{` at `j` (or `len(text)` when none does)."""
    depth = 0
    while j < len(text):
        if text[j] == '{':
            depth += 1
        elif text[j] == '}':
            depth -= 1
            if depth == 0:
                break
        j += 1
    return j


def without_test_modules(text):
    """`#[cfg(test)] mod x { … }` blocks blanked (their lines kept)."""
    while True:
        m = re.search(r'#\[cfg\(test\)\]\s*(pub\s+)?mod\s+\w+\s*\{', text)
        if not m:
            return text
        j = closing_brace(text, m.end() - 1)
        text = text[:m.start()] + '\n' * text.count('\n', m.start(), j + 1) + text[j + 1:]


def targets(text):
    out = set()
    for m in re.finditer(r'\bcrate::\{([^;]*?)\}\s*;', text, flags=re.S):
        depth, item = 0, ''
        for ch in m.group(1) + ',':
            if ch == '{':
                depth += 1
            if ch == '}':
                depth -= 1
            if ch == ',' and depth == 0:
                name = item.strip().split('::')[0].strip()
                if re.fullmatch(r'[A-Za-z_]\w*', name or ''):
                    out.add(name)
                item = ''
            else:
                item += ch
    for m in re.finditer(r'\bcrate::([A-Za-z_]\w*)', text):
        out.add(m.group(1))
    return out


# Rule 5's patterns, on code with comments and literals blanked. `V` is serde_json's Value, named
# in full or, where the file imports it, alone.
RAW_VALUE_READERS = [
    r'\bfrom_(slice|str|reader)\s*::\s*<\s*V\s*>',
    r':\s*V\s*=\s*serde_json\s*::\s*from_(slice|str|reader)\b',
    r'\bnext_(element|value|key)\s*::\s*<\s*V\s*>',
]


def raw_value_reads(rel, code):
    """Rule 5's findings in one file's non-test code (`code` stripped, test modules blanked)."""
    if rel == 'ingest/value.rs' or rel.endswith('/tests.rs') or '/tests/' in rel:
        return []
    names = [r'serde_json\s*::\s*Value']
    if re.search(r'\buse\s+serde_json\s*::\s*(Value\b|\{[^}]*\bValue\b)', code):
        names.append(r'Value')
    v = '(?:' + '|'.join(names) + r')\b'
    out = []
    line = lambda i: code.count('\n', 0, i) + 1
    for pat in RAW_VALUE_READERS:
        for m in re.finditer(pat.replace('V', v), code):
            out.append(f'serde_json Value read from text: src/{rel}:{line(m.start())} '
                       '(use crate::ingest::value, docs/hardening.md)')
    # Fields of a type deriving Deserialize: `name: Value` or `name: Option<Value>`.
    for m in re.finditer(r'#\[derive\(([^)]*)\)\]\s*(pub(\([^)]*\))?\s+)?struct\s+\w+[^{;]*\{', code):
        if 'Deserialize' not in m.group(1):
            continue
        body_end = closing_brace(code, m.end() - 1)
        body = code[m.end():body_end]
        for f in re.finditer(r'(\w+)\s*:\s*(Option\s*<\s*)?' + v, body):
            before = body[:f.start()]
            attrs = before[before.rfind(',') + 1:] if ',' in before else before
            if 'deserialize_with' not in attrs:
                out.append(f'serde_json Value field without deserialize_with: '
                           f'src/{rel}:{line(m.end() + f.start())} {f.group(1)} '
                           '(add #[serde(deserialize_with = "crate::ingest::value::plain")])')
    return out


def functions(code):
    """(name, first line, lines) of every fn with a body."""
    found = []
    for m in re.finditer(r'\bfn\s+([A-Za-z_]\w*)', code):
        # the body's `{` is the first `{` at bracket depth 0 after the name, unless a `;` comes first
        j, depth = m.end(), 0
        while j < len(code):
            ch = code[j]
            if ch in '([<' and not (ch == '<' and code[j - 1] == '-'):
                depth += ch != '<' or code[j + 1] != '='
            elif ch in ')]>' and not (ch == '>' and code[j - 1] in '-='):
                depth -= 1
            elif ch == ';' and depth <= 0:
                j = -1
                break
            elif ch == '{' and depth <= 0:
                break
            j += 1
        if j < 0 or j >= len(code):
            continue
        k = closing_brace(code, j)
        start = code.count('\n', 0, m.start()) + 1
        end = code.count('\n', 0, k) + 1
        found.append((m.group(1), start, end - start + 1))
    return found


def main():
    args = sys.argv[1:]
    show_edges = '--edges' in args
    long_at = int(args[args.index('--long') + 1]) if '--long' in args else None
    files = sorted(os.path.relpath(os.path.join(d, f), SRC).replace(os.sep, '/')
                   for d, _, fs in os.walk(SRC) for f in fs if f.endswith('.rs'))
    mods = {module_of(f) for f in files}
    edges = defaultdict(set)
    problems = []
    fn_count = 0
    for rel in files:
        raw = open(os.path.join(SRC, rel), encoding='utf-8', errors='replace').read()
        code = strip(raw)
        a = module_of(rel)
        problems.extend(raw_value_reads(rel, without_test_modules(code)))
        for b in targets(without_test_modules(code)):
            if b in mods and b != a:
                edges[(a, b)].add(rel)
        for name, line, n in functions(code):
            fn_count += 1
            limit = STRICT_FN.get(a, MAX_FN)
            if n > limit:
                problems.append(f'long function: src/{rel}:{line} {name} is {n} lines (limit {limit})')
            elif long_at is not None and n > long_at:
                print(f'  src/{rel}:{line} {name}: {n} lines')
    graph = defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
    # cycles between folders (Tarjan)
    index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))
    sys.setrecursionlimit(10000)
    for v in sorted(mods):
        if v not in index:
            strong(v)
    for comp in sccs:
        problems.append('cycle between folders: ' + ' <-> '.join(comp))
        for a in comp:
            for b in sorted(graph[a]):
                if b in comp:
                    problems.append(f'    {a} -> {b}: ' + ', '.join(sorted(edges[(a, b)])))
    for (a, b), fs in sorted(edges.items()):
        if b == 'cli' and a not in ('cli', 'root'):
            problems.append(f'imports cli/ from below it: {a} -> cli: ' + ', '.join(sorted(fs)))
        elif b == 'commands' and a not in ('cli', 'root', 'commands'):
            problems.append(f'imports commands/ from below it: {a} -> commands: ' + ', '.join(sorted(fs)))
        elif a in RANK and b in RANK and RANK[b] > RANK[a]:
            problems.append(f'imports upward: {a} -> {b}: ' + ', '.join(sorted(fs)))
    unknown = sorted(m for m in mods if m not in RANK)
    for m in unknown:
        problems.append(f'module without a stage: {m} (add it to STAGES in tools/arch.py)')
    if show_edges:
        for (a, b), fs in sorted(edges.items()):
            print(f'{a} -> {b}: ' + ', '.join(sorted(fs)))
    for p in problems:
        print(p)
    print(f'arch: {len(files)} files, {len(mods)} top-level modules, {len(edges)} folder edges, '
          f'{len(sccs)} cycles between folders, {fn_count} functions, {len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
