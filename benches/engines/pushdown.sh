#!/usr/bin/env bash
# Times the push-down path on a generated file: `pkadvisor sql` in DuckDB and in local Spark
# (local[2]), and pkadvisor reading the file directly, for the same candidates. Not part of CI
# (minutes on the 2-core machine); the numbers are in docs/scale.md.
#
#   benches/engines/pushdown.sh                 # 1 GB
#   PUSHDOWN_BYTES=100000000 benches/engines/pushdown.sh
#
# Environment: ENGINES_VENV (as run.sh; must exist: run benches/engines/run.sh once),
# PUSHDOWN_BYTES (default 1000000000), PUSHDOWN_DIR (default $TMPDIR/pkadvisor-pushdown),
# CARGO_TARGET_DIR (the release binary is built there).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
VENV="${ENGINES_VENV:-${TMPDIR:-/tmp}/pkadvisor-engines-venv}"
BYTES="${PUSHDOWN_BYTES:-1000000000}"
DIR="${PUSHDOWN_DIR:-${TMPDIR:-/tmp}/pkadvisor-pushdown}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
mkdir -p "$DIR"
DATA="$DIR/events-$BYTES.jsonl"
if [[ ! -s "$DATA" ]]; then
    rustc -O --edition 2021 examples/gen_events.rs -o "$DIR/gen_events"
    "$DIR/gen_events" --bytes "$BYTES" --seed 42 --out "$DATA"
fi
cargo build -q --release --bin pkadvisor
BIN="$TARGET/release/pkadvisor"
CANDS=(-c /tenantId -c '/tenantId>/userId' -c /device/region -c '/tenantId+/type')
now() { date +%s.%N; }

t0=$(now)
"$BIN" analyze "$DATA" "${CANDS[@]}" --format json -q > "$DIR/direct.json"
t1=$(now)
echo "pkadvisor direct: $(echo "$t1 - $t0" | bc) s"

"$BIN" sql --engine duckdb --from "read_ndjson_objects('$DATA')" --json-column json "${CANDS[@]}" > "$DIR/duckdb.sql"
t0=$(now)
"$VENV/bin/python" benches/engines/run_query.py duckdb "$DIR/duckdb.sql" "$DIR/duckdb.csv"
t1=$(now)
"$BIN" analyze --key-stats "$DIR/duckdb.csv" "${CANDS[@]}" --format json -q > "$DIR/duckdb.json"
t2=$(now)
echo "duckdb: $(echo "$t1 - $t0" | bc) s (with interpreter start), analyze --key-stats $(echo "$t2 - $t1" | bc) s"
python3 benches/engines/compare.py "$DIR/direct.json" "$DIR/duckdb.json" duckdb

"$BIN" sql --engine spark --from events --json-column value "${CANDS[@]}" > "$DIR/spark.sql"
t0=$(now)
"$VENV/bin/python" benches/engines/run_query.py spark "$DIR/spark.sql" "$DIR/spark.jsonl" "$DATA" 2> >(grep -v WARN >&2)
t1=$(now)
"$BIN" analyze --key-stats "$DIR/spark.jsonl" "${CANDS[@]}" --format json -q > "$DIR/spark.json"
echo "spark local[2]: $(echo "$t1 - $t0" | bc) s (with JVM and session start)"
python3 benches/engines/compare.py "$DIR/direct.json" "$DIR/spark.json" spark
