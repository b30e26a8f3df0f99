#!/usr/bin/env python3
"""Compares two pkadvisor JSON reports on what a key-statistics run must reproduce exactly:
per candidate, the logical partitions, documents (defined, Undefined, Null, without a key) and
the top partitions' keys and documents. Bytes may differ (the engine measures them).
Usage: compare.py DIRECT.json KEYSTATS.json LABEL ; exit 1 on any difference."""
import json
import sys

FIELDS = ["kind", "logical_partitions", "documents", "undefined_documents",
          "null_documents", "invalid_key_documents", "documents_per_partition"]


def view(path):
    report = json.load(open(path))
    out = {}
    for c in report["candidates"]:
        v = {f: c.get(f) for f in FIELDS}
        v["top"] = [(json.dumps(p["key"], sort_keys=True), p["documents"]) for p in c["top_partitions"]]
        out[c["spec"]] = v
    return report["input"]["records_analyzed"], out


def main():
    direct, keyed, label = sys.argv[1], sys.argv[2], sys.argv[3]
    (n1, a), (n2, b) = view(direct), view(keyed)
    bad = []
    if n1 != n2:
        bad.append(f"records_analyzed: direct {n1}, {label} {n2}")
    for spec in sorted(set(a) | set(b)):
        for f in sorted(set(a.get(spec, {})) | set(b.get(spec, {}))):
            x, y = a.get(spec, {}).get(f), b.get(spec, {}).get(f)
            if x != y:
                bad.append(f"{spec} {f}: direct {x!r}\n    {label} {y!r}")
    if bad:
        print(f"FAIL {label}: the key-statistics report differs from the direct run:")
        for line in bad:
            print("  " + line)
        sys.exit(1)
    print(f"ok   {label}: {len(a)} candidates, {n1} documents, same partitions and top keys")


if __name__ == "__main__":
    main()
