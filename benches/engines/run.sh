#!/usr/bin/env bash
# Engine integration: `pkadvisor sql` runs in real DuckDB and local Spark (local[2]) on
# fixtures/events.jsonl, `analyze --key-stats` reads the result, and the report must equal a
# direct run's (partitions, documents, top keys). Called by .ci/run; see docs/scale.md.
#
#   benches/engines/run.sh
#
# Environment:
#   ENGINES_VENV      virtualenv to create/reuse (default $TMPDIR/pkadvisor-engines-venv)
#   DUCKDB_SPEC       pip spec (default duckdb==2.0.0)
#   PYSPARK_SPEC      pip spec (default pyspark==4.3.0); needs Java 17 on PATH
#   CARGO_TARGET_DIR  respected for the binary path
# Fails (exit 1) if an engine cannot be installed or started: nothing is skipped.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
HERE=benches/engines
VENV="${ENGINES_VENV:-${TMPDIR:-/tmp}/pkadvisor-engines-venv}"
DUCKDB_SPEC="${DUCKDB_SPEC:-duckdb==2.0.0}"
PYSPARK_SPEC="${PYSPARK_SPEC:-pyspark==4.3.0}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
BIN="$TARGET/debug/pkadvisor"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/pkadvisor-engines.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

die() { echo "engines: FAIL: $*" >&2; exit 1; }

command -v java >/dev/null || die "java not found: local Spark needs Java 17 (apt-get install openjdk-17-jre-headless)"
if [[ ! -x "$VENV/bin/python" ]]; then
    python3 -m venv "$VENV" || die "cannot create the virtualenv $VENV (python3 -m venv)"
fi
"$VENV/bin/pip" install -q "$DUCKDB_SPEC" "$PYSPARK_SPEC" || die "pip install $DUCKDB_SPEC $PYSPARK_SPEC failed"
"$VENV/bin/python" -c "import duckdb, pyspark" || die "duckdb or pyspark is not importable from $VENV"
cargo build -q
[[ -x "$BIN" ]] || die "no binary at $BIN"

DATA=fixtures/events.jsonl
CANDS=(-c /tenantId -c /userId -c '/tenantId>/userId' -c '/"plan tier"+day(/ts)'
       -c /device/region -c '/amount+/type' -c '/type>hour(/ts)' -c '/tenantId+month(/ts)')

"$BIN" analyze "$DATA" "${CANDS[@]}" --format json -q > "$WORK/direct.json"

"$BIN" sql --engine duckdb --from "read_ndjson_objects('$DATA')" --json-column json \
    "${CANDS[@]}" --time-field /ts > "$WORK/duckdb.sql"
"$VENV/bin/python" "$HERE/run_query.py" duckdb "$WORK/duckdb.sql" "$WORK/duckdb.csv" \
    || die "DuckDB could not run the generated query ($WORK/duckdb.sql)"
"$BIN" analyze --key-stats "$WORK/duckdb.csv" "${CANDS[@]}" --format json -q > "$WORK/duckdb.json"
python3 "$HERE/compare.py" "$WORK/direct.json" "$WORK/duckdb.json" duckdb

"$BIN" sql --engine spark --from events --json-column value \
    "${CANDS[@]}" --time-field /ts > "$WORK/spark.sql"
"$VENV/bin/python" "$HERE/run_query.py" spark "$WORK/spark.sql" "$WORK/spark.jsonl" "$DATA" \
    || die "Spark could not run the generated query ($WORK/spark.sql)"
"$BIN" analyze --key-stats "$WORK/spark.jsonl" "${CANDS[@]}" --format json -q > "$WORK/spark.json"
python3 "$HERE/compare.py" "$WORK/direct.json" "$WORK/spark.json" spark

# Both engines measured the same bytes as pkadvisor (minified JSON).
python3 - "$WORK" <<'PY'
import json, sys
w = sys.argv[1]
b = {n: json.load(open(f"{w}/{n}.json"))["input"]["minified_bytes"] for n in ("direct", "duckdb", "spark")}
if len(set(b.values())) != 1:
    sys.exit(f"engines: FAIL: minified bytes differ: {b}")
print(f"ok   bytes: {b['direct']} minified bytes in all three runs")
PY
echo "engines: ok"
