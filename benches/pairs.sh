#!/usr/bin/env bash
# Issue #69's measurements, as interleaved pairs on the same files in one run (docs/benchmarks.md,
# "Pairs"): the machine's speed changes by 1.5x within an hour, so every figure is a ratio of two
# runs made seconds apart, or a rate quoted with the machine probe beside it.
#
#   benches/pairs.sh                          # full-size files, 5 pairs of each
#   BENCH_DOCS=20000 BENCH_PAIRS=1 benches/pairs.sh   # smoke run on small files
#
# Three comparisons, each pair's two runs back to back, their order alternating:
#   auto      `analyze FILE` (the automatic search) against the explicit 4 candidates, on the
#             shuffled highcard file (5,000 Zipf tenants, 200,000 users, a nested device object,
#             free text, random order): the automatic mode's time over the explicit run's
#   duckdb    the explicit 4 candidates against DuckDB's same GROUP BYs
#             (benches/peer_highcard.py): DuckDB's time over pkadvisor's
#   unique    `-c /id` on 10 M random UUIDs (the unique50 file, 679 MB): MB/s and peak RSS, one
#             run per pair slot (no peer: the rate is the target)
#
# Environment:
#   BENCH_PAIRS     pairs per comparison (default 5)
#   BENCH_DOCS      documents per file (default: the generator's, 2 M and 10 M)
#   BENCH_THREADS   threads for both tools (default 2)
#   PKADVISOR_BIN   use this binary instead of building one
#   CARGO_TARGET_DIR respected for the build
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

PAIRS="${BENCH_PAIRS:-5}"
THREADS="${BENCH_THREADS:-2}"
DOCS="${BENCH_DOCS:-}"
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
VENV=bench-data/venv
PY="$VENV/bin/python"
OUT=bench-data/pairs-last.md

log() { printf '[pairs] %s\n' "$*" >&2; }
mkdir -p bench-data

if [[ -z "${PKADVISOR_BIN:-}" ]]; then
    log "building pkadvisor and the generator (release)"
    cargo build --release --bin pkadvisor --example gen_highcard --example machine_probe
else
    cargo build --release --example gen_highcard --example machine_probe
fi
PKADVISOR_BIN="${PKADVISOR_BIN:-$TARGET_DIR/release/pkadvisor}"
GEN="$TARGET_DIR/release/examples/gen_highcard"
PROBE="$TARGET_DIR/release/examples/machine_probe"
# shellcheck source=benches/common.sh
source benches/common.sh
ensure_duckdb

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# timed CMD...: runs CMD, prints "seconds peak_kb" (its output discarded)
timed() {
    if ! /usr/bin/time -f '%e %M' -o "$TMP/t" "$@" >"$TMP/out" 2>"$TMP/err"; then
        log "failed: $*"; cat "$TMP/err" >&2; exit 1
    fi
    cat "$TMP/t"
}

FOUR='/tenantId,/userId,/device/type,/tenantId>/userId'
shuffled=$(data highcard --shape highcard)
unique=$(data unique50 --shape unique-id50)
cat "$shuffled" "$unique" > /dev/null   # warm the page cache

explicit=("$PKADVISOR_BIN" analyze "$shuffled" -c "$FOUR" --threads "$THREADS" --format json -q -o "$TMP/e.json")
auto=("$PKADVISOR_BIN" analyze "$shuffled" --threads "$THREADS" --format json -q -o "$TMP/a.json")
duck=("$PY" benches/peer_highcard.py --engine duckdb --candidates "$FOUR" --threads "$THREADS" "$shuffled")
ids=("$PKADVISOR_BIN" analyze "$unique" -c /id --threads "$THREADS" --format json -q -o "$TMP/u.json")
unique_mb=$(( $(stat -L -c %s "$unique") / 1000000 ))

{
    echo "Pairs of $(date -u +%Y-%m-%dT%H:%MZ), pkadvisor $(git rev-parse --short HEAD 2>/dev/null || echo '?'),"
    echo "$(nproc) cores, $THREADS threads each, $PAIRS pairs, load average before: $(cut -d' ' -f1-3 /proc/loadavg)."
    echo "Machine probe before: $(probe)."
    echo
    echo "| pair | auto s | peak MB | explicit s | auto / explicit | DuckDB s | explicit s | DuckDB / explicit | /id on UUIDs s | MB/s | peak MB |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
} > "$OUT"

for ((p = 1; p <= PAIRS; p++)); do
    log "pair $p/$PAIRS"
    if ((p % 2)); then
        read -r as am < <(timed "${auto[@]}"); read -r es _ < <(timed "${explicit[@]}")
        read -r e2 _ < <(timed "${explicit[@]}"); read -r ds _ < <(timed "${duck[@]}")
    else
        read -r es _ < <(timed "${explicit[@]}"); read -r as am < <(timed "${auto[@]}")
        read -r ds _ < <(timed "${duck[@]}"); read -r e2 _ < <(timed "${explicit[@]}")
    fi
    read -r us um < <(timed "${ids[@]}")
    python3 - "$p" "$as" "$am" "$es" "$ds" "$e2" "$us" "$um" "$unique_mb" >> "$OUT" <<'PY'
import sys
p, a, am, e, d, e2, u, um, mb = sys.argv[1:]
a, e, d, e2, u = map(float, (a, e, d, e2, u))
print(f"| {p} | {a:.2f} | {int(am) / 1024:.0f} | {e:.2f} | {a / e:.2f} | {d:.2f} | {e2:.2f} | "
      f"{d / e2:.2f} | {u:.2f} | {int(mb) / u:.0f} | {int(um) / 1024:.0f} |")
PY
done
echo >> "$OUT"
echo "Candidates of the automatic search: $(python3 -c "import json,sys; print(', '.join(c['spec'] for c in json.load(open(sys.argv[1]))['candidates']))" "$TMP/a.json")." >> "$OUT"
echo "Load average after: $(cut -d' ' -f1-3 /proc/loadavg). Machine probe after: $(probe)." >> "$OUT"
cat "$OUT"
log "written to $OUT"
