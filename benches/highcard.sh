#!/usr/bin/env bash
# Issue #9's benchmarks: pkadvisor against DuckDB and polars doing the same work on two
# high-cardinality files (docs/benchmarks.md, "High-cardinality data").
#
#   benches/highcard.sh                       # both full-size files, 5 interleaved rounds
#   BENCH_DOCS=20000 BENCH_RUNS=1 benches/highcard.sh   # smoke run on small files
#
# Environment:
#   BENCH_RUNS      rounds per file (default 5); each round runs every tool once, the order
#                   rotating from round to round
#   BENCH_DOCS      documents per file (default: the generator's, 2 M and 10 M)
#   BENCH_THREADS   threads for every tool (default 2)
#   BENCH_SHAPES    which files (default "highcard unique")
#   PKADVISOR_BIN   use this binary instead of building one
#   BENCH_PROFILE   release (default), profiling or debug: the build measured. profiling is
#                   release with line tables (Cargo.toml), for running perf on the same code;
#                   debug is a quick check of the harness and of the peers' agreement, as
#                   .ci/run does; its times mean nothing
#   CARGO_TARGET_DIR respected for the build
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

RUNS="${BENCH_RUNS:-5}"
THREADS="${BENCH_THREADS:-2}"
SHAPES="${BENCH_SHAPES:-highcard unique}"
DOCS="${BENCH_DOCS:-}"
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
VENV=bench-data/venv
PY="$VENV/bin/python"
OUT=bench-data/highcard-last.md

log() { printf '[highcard] %s\n' "$*" >&2; }
mkdir -p bench-data

PROFILE="${BENCH_PROFILE:-release}"
case $PROFILE in
    release) PFLAG=(--release) ;;
    profiling) PFLAG=(--profile profiling) ;;
    debug) PFLAG=() ;;
    *) log "BENCH_PROFILE is release, profiling or debug, not $PROFILE"; exit 2 ;;
esac
log "building pkadvisor and the generator ($PROFILE)"
cargo build "${PFLAG[@]}" --bin pkadvisor --example gen_highcard
PKADVISOR_BIN="${PKADVISOR_BIN:-$TARGET_DIR/$PROFILE/pkadvisor}"
GEN="$TARGET_DIR/$PROFILE/examples/gen_highcard"

if [[ ! -x "$PY" ]] || ! "$PY" -c 'import duckdb, polars' 2>/dev/null; then
    log "installing duckdb==2.0.0 and polars==1.35.2 into $VENV"
    [[ -x "$PY" ]] || python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check duckdb==2.0.0 polars==1.35.2
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# time_run NAME CMD...: appends "seconds rss_kb" to $TMP/NAME
time_run() {
    local name=$1; shift
    if ! /usr/bin/time -f '%e %M' -o "$TMP/t" "$@" >"$TMP/$name.out" 2>"$TMP/err"; then
        log "$name failed:"; cat "$TMP/err" >&2; exit 1
    fi
    cat "$TMP/t" >> "$TMP/$name.times"
}

{
    echo "Benchmark of $(date -u +%Y-%m-%dT%H:%MZ), pkadvisor $(git rev-parse --short HEAD 2>/dev/null || echo '?')," \
        "$("$PY" -c 'import duckdb, polars; print("duckdb", duckdb.__version__, "and polars", polars.__version__)'),"
    echo "$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $THREADS threads each, $RUNS interleaved rounds."
    echo
} > "$OUT"

for shape in $SHAPES; do
    case $shape in
        highcard) gshape=highcard; cands='/tenantId,/userId,/device/type,/tenantId>/userId' ;;
        unique) gshape=unique-id; cands='/id' ;;
        *) log "unknown shape $shape"; exit 2 ;;
    esac
    file="bench-data/$shape${DOCS:+-$DOCS}.jsonl"
    if [[ ! -s "$file" ]]; then
        log "generating $file"
        "$GEN" --shape "$gshape" ${DOCS:+--docs "$DOCS"} --out "$file.tmp"
        mv "$file.tmp" "$file"
    fi
    bytes=$(stat -L -c %s "$file")
    cat "$file" > /dev/null   # warm the page cache
    rm -f "$TMP"/*.times
    pk=("$PKADVISOR_BIN" analyze "$file" -c "$cands" --threads "$THREADS" --format json -q -o "$TMP/report.json")
    duck=("$PY" benches/peer_highcard.py --engine duckdb --shape "$shape" --threads "$THREADS" "$file")
    pola=("$PY" benches/peer_highcard.py --engine polars --shape "$shape" --threads "$THREADS" "$file")
    for ((r = 0; r < RUNS; r++)); do
        log "$shape: round $((r + 1))/$RUNS"
        for k in 0 1 2; do
            case $(((r + k) % 3)) in
                0) time_run pkadvisor "${pk[@]}" ;;
                1) time_run duckdb "${duck[@]}" ;;
                2) time_run polars "${pola[@]}" ;;
            esac
        done
    done
    # Exactness: every peer's groups, documents and bytes equal pkadvisor's report.
    python3 - "$TMP" <<'PY'
import json, sys
d = sys.argv[1]
rep = json.load(open(f"{d}/report.json"))
mine = {c["spec"]: (c["logical_partitions"], c["documents"]) for c in rep["candidates"]}
nbytes = rep["input"]["minified_bytes"]
for engine in ("duckdb", "polars"):
    peer = json.loads(open(f"{d}/{engine}.out").read())
    for spec, v in peer["candidates"].items():
        got = (v["groups"], v["documents"])
        if mine.get(spec) != got or v["bytes"] != nbytes:
            sys.exit(f"MISMATCH {engine} {spec}: peer {got} {v['bytes']} B, pkadvisor {mine.get(spec)} {nbytes} B")
print("exact: " + ", ".join(f"{s} {g} partitions" for s, (g, _) in mine.items()), file=sys.stderr)
PY
    python3 - "$TMP" "$file" "$bytes" "$cands" >> "$OUT" <<'PY'
import statistics, sys
d, file, nbytes, cands = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
rows = {}
for tool in ("pkadvisor", "duckdb", "polars"):
    runs = [tuple(map(float, l.split())) for l in open(f"{d}/{tool}.times")]
    rows[tool] = ([r[0] for r in runs], [r[1] for r in runs])
pk = statistics.median(rows["pkadvisor"][0])
print(f"`{file}` ({nbytes / 1e6:.0f} MB), candidates `{cands}`:")
print()
print("| tool | median s | min – max s | MB/s | median peak RSS MB | median time / pkadvisor's |")
print("|---|---|---|---|---|---|")
for tool, (ts, rss) in rows.items():
    m = statistics.median(ts)
    print(f"| {tool} | {m:.2f} | {min(ts):.2f} – {max(ts):.2f} | {nbytes / 1e6 / m:.0f} | "
          f"{statistics.median(rss) / 1024:.0f} | {m / pk:.2f} |")
print()
PY
done
cat "$OUT"
log "written to $OUT"
