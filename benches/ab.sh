#!/usr/bin/env bash
# Two pkadvisor binaries on the same command, interleaved (A, B, A, B, ...; the order of each
# pair alternating), so that a change's effect is measured against the machine's drift within
# the same minute (docs/benchmarks.md, "Pairs": the same binary's time moves 1.5x within an
# hour). Prints each binary's wall and CPU seconds (user + system) per run, their medians and
# ranges, and B's median over A's; checks that both wrote the same report (seconds masked).
#
#   benches/ab.sh BIN_A BIN_B [ANALYZE ARGS...]
#   benches/ab.sh /tmp/before target/release/pkadvisor bench-data/highcard.jsonl
#   BENCH_RUNS=12 benches/ab.sh A B bench-data/unique50.jsonl -c /id
#
# Without arguments after the binaries: the automatic search on the shuffled 1 GB file
# (`benches/pairs.sh` generates it). Each run writes JSON (`--format json -q`), with
# `--threads $BENCH_THREADS` (default 2).
#
# Environment:
#   BENCH_RUNS      runs of each binary (default 8)
#   BENCH_THREADS   threads for both (default 2)
set -euo pipefail

if [[ $# -lt 2 ]]; then
    sed -n '2,18p' "$0" >&2
    exit 2
fi
A=$(realpath "$1")
B=$(realpath "$2")
shift 2
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
RUNS="${BENCH_RUNS:-8}"
THREADS="${BENCH_THREADS:-2}"
if [[ $# -eq 0 ]]; then
    set -- bench-data/highcard.jsonl
fi
for f in "$A" "$B"; do
    [[ -x "$f" ]] || { echo "ab: $f is not an executable" >&2; exit 2; }
done

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# run NAME BIN: one run; appends "wall cpu" to $TMP/NAME, keeps the report (seconds masked)
run() {
    local name=$1 bin=$2
    shift 2
    if ! /usr/bin/time -f '%e %U %S' -o "$TMP/t" "$bin" analyze "$@" --threads "$THREADS" \
        --format json -q -o "$TMP/$name.json" >"$TMP/out" 2>"$TMP/err"; then
        echo "ab: $bin failed:" >&2
        cat "$TMP/err" >&2
        exit 1
    fi
    awk '{printf "%s %.2f\n", $1, $2 + $3}' "$TMP/t" >>"$TMP/$name"
    sed -i -E 's/"(profile_seconds|seconds)": [0-9.e-]+/"\1": 0/' "$TMP/$name.json"
}

for i in $(seq 1 "$RUNS"); do
    if (( i % 2 )); then
        run a "$A" "$@"
        run b "$B" "$@"
    else
        run b "$B" "$@"
        run a "$A" "$@"
    fi
done

# stats FILE COLUMN: "median (min–max)" of a column
stats() {
    sort -n -k"$2" "$1" | awk -v c="$2" '{v[NR] = $c} END {
        m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.2f (%.2f–%.2f)", m, v[1], v[NR]
    }'
}
median() { sort -n -k"$2" "$1" | awk -v c="$2" '{v[NR] = $c} END {
    print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "A/B of $(date -u +%Y-%m-%dT%H:%MZ), $RUNS interleaved runs each: analyze $* --threads $THREADS"
echo "A $A"
echo "B $B"
echo
echo "| binary | wall s, median (min–max) | CPU s, median (min–max) |"
echo "|---|---|---|"
echo "| A | $(stats "$TMP/a" 1) | $(stats "$TMP/a" 2) |"
echo "| B | $(stats "$TMP/b" 1) | $(stats "$TMP/b" 2) |"
echo
awk -v a="$(median "$TMP/a" 1)" -v b="$(median "$TMP/b" 1)" \
    -v ca="$(median "$TMP/a" 2)" -v cb="$(median "$TMP/b" 2)" \
    'BEGIN { printf "B / A: wall %.3f, CPU %.3f (medians)\n", b / a, cb / ca }'
if cmp -s "$TMP/a.json" "$TMP/b.json"; then
    echo "reports: identical"
else
    echo "reports: DIFFERENT (last run of each, seconds masked)"
    diff <(python3 -m json.tool "$TMP/a.json") <(python3 -m json.tool "$TMP/b.json") | head -20
fi
