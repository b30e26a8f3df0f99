#!/usr/bin/env python3
"""Peers for issue #9's benchmarks: the partition-key work pkadvisor does, in DuckDB or polars.

    python benches/peer_highcard.py --engine duckdb|polars --shape highcard|unique FILE [--threads 2]
    python benches/peer_highcard.py --engine duckdb --candidates '/a,/b/c,/a>/b/c' FILE

The same work as `pkadvisor analyze` on the files of examples/gen_highcard.rs, in one pass over
the JSON Lines file:
  * each line is read once and the key paths are extracted from it;
  * per candidate, a GROUP BY key with count(*) and sum(line bytes), and the number of groups.
highcard: the candidates /tenantId, /userId, /device/type and /tenantId>/userId (the pair).
unique:   the candidate /id.
Line bytes are the UTF-8 bytes of the line without its newline; pkadvisor counts minified bytes,
which equal them here (the generator writes no whitespace outside strings).

DuckDB: each line as one VARCHAR (read_csv with an unused delimiter and no quoting), the paths
extracted with one json_extract_string(line, [paths]) per line into a temp table, then one
GROUP BY per candidate (the fastest equivalent formulation, benches/peer_duckdb.py).
A FILE ending in .json is a top-level JSON array: each element is read as the line
(read_json_objects with format='array'; DuckDB only).
polars: the same line column (read_csv with an unused separator and no quoting), the paths
extracted with str.json_path_match per path, then one group_by per candidate on the lazily
computed frame, collected together (collect_all) so the scan is shared. Measured alternatives
on a 20,000-line file: json_decode into a struct needs a schema and was not faster;
read_ndjson never sees the line bytes (not the same work).

Prints one JSON line: engine, version, threads, documents, per candidate {groups, documents,
bytes}, and the seconds measured inside Python (imports excluded; /usr/bin/time around the
process includes them).
"""

import argparse
import json
import os
import sys
import time

CANDIDATES = {
    "highcard": {
        "/tenantId": ["t"],
        "/userId": ["u"],
        "/device/type": ["r"],
        "/tenantId>/userId": ["t", "u"],
    },
    "unique": {"/id": ["i"]},
}
PATHS = {
    "highcard": {"t": "$.tenantId", "u": "$.userId", "r": "$.device.type"},
    "unique": {"i": "$.id"},
}


def generic(spec):
    """CANDIDATES and PATHS for a comma-separated candidate list such as
    "/tenantId,/device/type,/tenantId>/userId" (paths of property names only); each path is
    extracted once however many candidates use it."""
    paths, cands = {}, {}
    for cand in spec.split(","):
        cols = []
        for path in cand.split(">"):
            json_path = "$." + ".".join(path.strip("/").split("/"))
            col = next((c for c, p in paths.items() if p == json_path), None)
            if col is None:
                col = f"c{len(paths)}"
                paths[col] = json_path
            cols.append(col)
        cands[cand] = cols
    return cands, paths


def run_duckdb(path, shape, threads):
    import duckdb

    con = duckdb.connect(":memory:")
    con.execute(f"SET threads = {threads}")
    con.execute("SET preserve_insertion_order = false")
    p = path.replace("'", "''")
    if path.endswith(".json"):
        # A top-level JSON array: each element's text as the line (its bytes as written).
        src = (
            f"(SELECT json AS line FROM read_json_objects('{p}', format='array', "
            f"maximum_object_size=16777216))"
        )
    else:
        src = (
            f"read_csv('{p}', columns={{'line': 'VARCHAR'}}, header=false, delim=chr(1), "
            f"quote='', escape='', new_line='\\n', auto_detect=false, max_line_size=16777216)"
        )
    cols = PATHS[shape]
    names = list(cols)

    extract = ", ".join(f"j[{i + 1}] AS {c}" for i, c in enumerate(names))
    con.execute(
        f"CREATE TEMP TABLE k AS SELECT {extract}, strlen(line) AS n FROM "
        f"(SELECT line, json_extract_string(line, {[cols[c] for c in names]!r}) AS j FROM {src})"
    )
    out = {}
    for cand, keys in CANDIDATES[shape].items():
        k = ", ".join(keys)
        groups, docs, nbytes = con.execute(
            f"SELECT count(*), sum(d), sum(b) FROM "
            f"(SELECT {k}, count(*) AS d, sum(n) AS b FROM k GROUP BY {k})"
        ).fetchone()
        out[cand] = {"groups": groups, "documents": int(docs), "bytes": int(nbytes)}
    return duckdb.__version__, out


def run_polars(path, shape, threads):
    import polars as pl

    lines = pl.scan_csv(
        path,
        has_header=False,
        separator="\x01",
        quote_char=None,
        new_columns=["line"],
        schema_overrides={"line": pl.Utf8},
    )
    cols = PATHS[shape]
    k = lines.select(
        [pl.col("line").str.json_path_match(p).alias(c) for c, p in cols.items()]
        + [pl.col("line").str.len_bytes().cast(pl.UInt64).alias("n")]
    ).cache()
    frames = []
    for keys in CANDIDATES[shape].values():
        frames.append(
            k.group_by(keys)
            .agg(pl.len().alias("d"), pl.col("n").sum().alias("b"))
            .select(
                pl.len().alias("groups"),
                pl.col("d").sum().alias("documents"),
                pl.col("b").sum().alias("bytes"),
            )
        )
    results = pl.collect_all(frames)
    out = {}
    for cand, df in zip(CANDIDATES[shape], results):
        row = df.row(0)
        out[cand] = {"groups": int(row[0]), "documents": int(row[1]), "bytes": int(row[2])}
    return pl.__version__, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--engine", choices=["duckdb", "polars"], required=True)
    ap.add_argument("--shape", choices=["highcard", "unique"])
    ap.add_argument("--candidates", help="comma-separated candidates instead of a --shape's")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    if args.candidates:
        CANDIDATES["custom"], PATHS["custom"] = generic(args.candidates)
        args.shape = "custom"
    elif not args.shape:
        ap.error("--shape or --candidates is needed")
    os.environ["POLARS_MAX_THREADS"] = str(args.threads)
    t0 = time.perf_counter()
    run = run_duckdb if args.engine == "duckdb" else run_polars
    version, res = run(args.file, args.shape, args.threads)
    elapsed = time.perf_counter() - t0
    docs = {v["documents"] for v in res.values()}
    if len(docs) != 1:
        sys.exit(f"peer_highcard: candidates disagree on the documents: {res}")
    print(
        json.dumps(
            {
                "engine": args.engine,
                "version": version,
                "threads": args.threads,
                "documents": docs.pop(),
                "candidates": res,
                "seconds": round(elapsed, 3),
            }
        )
    )


if __name__ == "__main__":
    main()
