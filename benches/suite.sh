#!/usr/bin/env bash
# Issue #28's benchmark suite: pkadvisor against DuckDB doing the same GROUP BYs, on files of
# several shapes (docs/benchmarks.md, "Shapes").
#
#   benches/suite.sh                                   # every shape, full size, 3 rounds
#   BENCH_DOCS=20000 BENCH_RUNS=1 benches/suite.sh     # smoke run on small files
#   BENCH_SHAPES="prefixed auto" benches/suite.sh      # some shapes only
#
# Shapes (file, candidates):
#   shuffled   highcard file (tenant Zipf, user uniform, random order), 4 candidates
#   clustered  the same lines sorted by tenant then user, the same 4 candidates
#   prefixed   long shared prefixes (tenant-00000032, user-000123456): hierarchical keys whose
#              16-byte heads are shared within a tenant, 4 candidates
#   unique     10 M random UUIDs, /id
#   unique50   the same ids with a 50-value key beside them (issue #28's own file), /id
#   ten        the prefixed file, 10 candidates at once (two near-unique: /id and /url)
#   nested     the prefixed file, nested paths (/ctx/org/unit/id, /device/os and a pair)
#   kinds      four kinds of document in turn (order, customer, payment, event: each its own
#              properties in its own order, as a container of several entity types holds them),
#              4 candidates (/tenantId, /userId, /type and the pair)
#   auto       the prefixed file, `analyze FILE` with no candidate (the automatic search); the
#              peer does the ten shape's 10 GROUP BYs (the automatic mode analyses more
#              candidates than that, some of which DuckDB cannot express as one GROUP BY)
#   gzip       the shuffled file compressed with `gzip -6` (as an export is often shipped), the
#              same 4 candidates; both tools decompress it (DuckDB's read_csv by its extension)
#   zstd       the shuffled file compressed with `zstd -3`, the same 4 candidates
#   array      the shuffled file's lines as one top-level JSON array (`[`, the lines joined by
#              `,` and a newline, `]`), as an export tool writes it; the same 4 candidates; the
#              peer reads each element with read_json_objects(format='array')
#
# Before and after the runs it prints a probe of the machine (examples/machine_probe.rs: a CPU
# loop, the latency of a read from memory, the cost of faulting in fresh memory, the bandwidth
# of reading memory already touched): compare two
# tables' probes before their seconds (docs/benchmarks.md, "The machine's state").
# pkadvisor's system seconds and page faults (minor faults, from /usr/bin/time) show how much
# of a run went to faulting in fresh memory, which this kind of VM makes dear.
#
# Environment:
#   BENCH_RUNS      rounds per shape (default 3); each round runs pkadvisor and DuckDB, the
#                   order alternating from round to round
#   BENCH_DOCS      documents per file (default: the generator's, 2 M and 10 M)
#   BENCH_THREADS   threads for both tools (default 2)
#   BENCH_SHAPES    which shapes (default: all twelve)
#   PKADVISOR_BIN   use this binary instead of building one
#   BENCH_PROFILE   release (default), profiling (release with line tables, for perf) or
#                   debug (a check of the harness only)
#   CARGO_TARGET_DIR respected for the build
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

RUNS="${BENCH_RUNS:-3}"
THREADS="${BENCH_THREADS:-2}"
SHAPES="${BENCH_SHAPES:-shuffled clustered prefixed unique unique50 ten nested kinds auto gzip zstd array}"
DOCS="${BENCH_DOCS:-}"
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
VENV=bench-data/venv
PY="$VENV/bin/python"
OUT=bench-data/suite-last.md

log() { printf '[suite] %s\n' "$*" >&2; }
mkdir -p bench-data

PROFILE="${BENCH_PROFILE:-release}"
case $PROFILE in
    release) PFLAG=(--release) ;;
    profiling) PFLAG=(--profile profiling) ;;
    debug) PFLAG=() ;;
    *) log "BENCH_PROFILE is release, profiling or debug, not $PROFILE"; exit 2 ;;
esac
if [[ -z "${PKADVISOR_BIN:-}" ]]; then
    log "building pkadvisor and the generator ($PROFILE)"
    cargo build "${PFLAG[@]}" --bin pkadvisor --example gen_highcard --example machine_probe
else
    cargo build "${PFLAG[@]}" --example gen_highcard --example machine_probe
fi
PKADVISOR_BIN="${PKADVISOR_BIN:-$TARGET_DIR/$PROFILE/pkadvisor}"
GEN="$TARGET_DIR/$PROFILE/examples/gen_highcard"
PROBE="$TARGET_DIR/$PROFILE/examples/machine_probe"
# shellcheck source=benches/common.sh
source benches/common.sh
ensure_duckdb

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# derived FILE SUFFIX CMD...: FILE turned into FILE's stem + SUFFIX once by CMD (which reads FILE
# on its standard input and writes the result on its standard output); prints the new path
derived() {
    local src=$1 file="${1%.jsonl}$2"; shift 2
    if [[ ! -s "$file" ]]; then
        log "writing $file from $src"
        "$@" < "$src" > "$file.tmp"
        mv "$file.tmp" "$file"
    fi
    echo "$file"
}
# The lines of standard input as one JSON array: `[`, the lines joined by `,` and a newline, `]`.
as_array() { echo "["; sed '$!s/$/,/'; echo "]"; }

# time_run NAME CMD...: appends "seconds rss_kb user_seconds system_seconds minor_faults" to
# $TMP/NAME.times
time_run() {
    local name=$1; shift
    if ! /usr/bin/time -f '%e %M %U %S %R' -o "$TMP/t" "$@" >"$TMP/$name.out" 2>"$TMP/err"; then
        log "$name failed:"; cat "$TMP/err" >&2; exit 1
    fi
    cat "$TMP/t" >> "$TMP/$name.times"
}

FOUR='/tenantId,/userId,/device/type,/tenantId>/userId'
TEN='/tenantId,/userId,/device/type,/device/os,/tenantId>/userId,/id,/url,/ctx/org/unit/id,/tenantId>/device/type,/ctx/org/unit/id>/userId'
NESTED='/ctx/org/unit/id,/device/os,/ctx/org/unit/id>/device/type'
KINDS='/tenantId,/userId,/type,/tenantId>/userId'

{
    echo "Benchmark suite of $(date -u +%Y-%m-%dT%H:%MZ), pkadvisor $(git rev-parse --short HEAD 2>/dev/null || echo '?'),"
    echo "$("$PY" -c 'import duckdb; print("duckdb", duckdb.__version__)'), $(nproc) cores" \
        "($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $THREADS threads each," \
        "$RUNS interleaved rounds, load average before: $(cut -d' ' -f1-3 /proc/loadavg)."
    echo "Machine probe before: $(probe)."
    echo
    echo "| shape | file MB | candidates | pkadvisor median s (min–max) | MB/s | peak RSS MB | user s | system s | page faults (k) | DuckDB median s (min–max) | peak RSS MB | DuckDB time / pkadvisor's |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
} > "$OUT"

for shape in $SHAPES; do
    case $shape in
        shuffled) file=$(data highcard --shape highcard); cands=$FOUR ;;
        clustered) file=$(data highcard-clustered --shape highcard --order clustered); cands=$FOUR ;;
        prefixed) file=$(data prefixed --shape prefixed); cands=$FOUR ;;
        unique) file=$(data unique --shape unique-id); cands='/id' ;;
        unique50) file=$(data unique50 --shape unique-id50); cands='/id' ;;
        ten) file=$(data prefixed --shape prefixed); cands=$TEN ;;
        nested) file=$(data prefixed --shape prefixed); cands=$NESTED ;;
        kinds) file=$(data kinds --shape kinds); cands=$KINDS ;;
        auto) file=$(data prefixed --shape prefixed); cands=$TEN ;;
        gzip) file=$(derived "$(data highcard --shape highcard)" .jsonl.gz gzip -6); cands=$FOUR ;;
        zstd) file=$(derived "$(data highcard --shape highcard)" .jsonl.zst zstd -q -3); cands=$FOUR ;;
        array) file=$(derived "$(data highcard --shape highcard)" -array.json as_array); cands=$FOUR ;;
        *) log "unknown shape $shape"; exit 2 ;;
    esac
    # MB/s is of the JSON analysed: for a compressed file, of its uncompressed bytes.
    case $shape in
        gzip | zstd) bytes=$(stat -L -c %s "${file%.*}") ;;
        *) bytes=$(stat -L -c %s "$file") ;;
    esac
    cat "$file" > /dev/null   # warm the page cache
    rm -f "$TMP"/*.times
    if [[ $shape == auto ]]; then
        pk=("$PKADVISOR_BIN" analyze "$file" --threads "$THREADS" --format json -q -o "$TMP/report.json")
    else
        pk=("$PKADVISOR_BIN" analyze "$file" -c "$cands" --threads "$THREADS" --format json -q -o "$TMP/report.json")
    fi
    duck=("$PY" benches/peer_highcard.py --engine duckdb --candidates "$cands" --threads "$THREADS" "$file")
    for ((r = 0; r < RUNS; r++)); do
        log "$shape: round $((r + 1))/$RUNS"
        if ((r % 2 == 0)); then
            time_run pkadvisor "${pk[@]}"; time_run duckdb "${duck[@]}"
        else
            time_run duckdb "${duck[@]}"; time_run pkadvisor "${pk[@]}"
        fi
    done
    # Exactness: DuckDB's groups and documents per candidate equal pkadvisor's.
    python3 - "$TMP" <<'PY'
import json, sys
d = sys.argv[1]
rep = json.load(open(f"{d}/report.json"))
mine = {c["spec"]: (c["logical_partitions"], c["documents"]) for c in rep["candidates"]}
peer = json.loads(open(f"{d}/duckdb.out").read())
for spec, v in peer["candidates"].items():
    if spec in mine and mine[spec] != (v["groups"], v["documents"]):
        sys.exit(f"MISMATCH {spec}: DuckDB {(v['groups'], v['documents'])}, pkadvisor {mine[spec]}")
print(f"exact: {sum(s in mine for s in peer['candidates'])} candidates agree", file=sys.stderr)
PY
    n=$(awk -F, '{print NF}' <<< "$cands")
    [[ $shape == auto ]] && n="auto ($(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['candidates']))" "$TMP/report.json"))"
    python3 - "$TMP" "$shape" "$bytes" "$n" >> "$OUT" <<'PY'
import statistics, sys
d, shape, nbytes, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
def read(tool):
    runs = [tuple(map(float, l.split())) for l in open(f"{d}/{tool}.times")]
    return [[r[i] for r in runs] for i in range(5)]
pt, pr, pu, ps, pf = read("pkadvisor")
dt, dr, _, _, _ = read("duckdb")
pm, dm = statistics.median(pt), statistics.median(dt)
print(f"| {shape} | {nbytes / 1e6:.0f} | {n} | {pm:.2f} ({min(pt):.2f}–{max(pt):.2f}) | {nbytes / 1e6 / pm:.0f} | "
      f"{statistics.median(pr) / 1024:.0f} | {statistics.median(pu):.2f} | {statistics.median(ps):.2f} | "
      f"{statistics.median(pf) / 1000:.0f} | {dm:.2f} ({min(dt):.2f}–{max(dt):.2f}) | "
      f"{statistics.median(dr) / 1024:.0f} | {dm / pm:.2f} |")
PY
done
echo >> "$OUT"
echo "Load average after: $(cut -d' ' -f1-3 /proc/loadavg)." >> "$OUT"
echo "Machine probe after: $(probe)." >> "$OUT"
cat "$OUT"
log "written to $OUT"
