#!/usr/bin/env bash
# pkadvisor end-to-end benchmark against a DuckDB peer. See docs/benchmarks.md.
#
#   benches/run.sh                     # 1 GB file, 3 interleaved runs per tool
#   BENCH_BYTES=50000000 benches/run.sh
#   BENCH_PEER_ONLY=1 BENCH_BYTES=50000000 benches/run.sh   # no pkadvisor build/run
#
# Environment:
#   BENCH_BYTES      approximate size of the generated file (default 1000000000)
#   BENCH_FILE       data file (default bench-data/events-1g.jsonl for 1 GB,
#                    bench-data/events-<BENCH_BYTES>b.jsonl otherwise)
#   BENCH_SEED       generator seed (default 42)
#   BENCH_RUNS       timed runs per tool (default 3)
#   BENCH_THREADS    DuckDB threads (default 2 = all cores of the reference box)
#   BENCH_PEER_MODE  peer_duckdb.py --mode (default lines-tmp)
#   BENCH_NICE       niceness applied to BOTH tools (default 0)
#   BENCH_PEER_ONLY  1 = skip building/running pkadvisor (harness testing)
#   DUCKDB_VERSION   pip spec for the peer (default 2.0.0)
#   CARGO_TARGET_DIR respected for the binary paths
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

BENCH_BYTES="${BENCH_BYTES:-1000000000}"
if [[ "$BENCH_BYTES" == 1000000000 ]]; then
    DEFAULT_FILE=bench-data/events-1g.jsonl
else
    DEFAULT_FILE="bench-data/events-${BENCH_BYTES}b.jsonl"
fi
BENCH_FILE="${BENCH_FILE:-$DEFAULT_FILE}"
BENCH_SEED="${BENCH_SEED:-42}"
BENCH_RUNS="${BENCH_RUNS:-3}"
BENCH_THREADS="${BENCH_THREADS:-2}"
BENCH_PEER_MODE="${BENCH_PEER_MODE:-lines-tmp}"
BENCH_NICE="${BENCH_NICE:-0}"
BENCH_PEER_ONLY="${BENCH_PEER_ONLY:-0}"
DUCKDB_VERSION="${DUCKDB_VERSION:-2.0.0}"

TARGET_DIR="${CARGO_TARGET_DIR:-target}"
PKADVISOR="$TARGET_DIR/release/pkadvisor"
GEN="$TARGET_DIR/release/examples/gen_events"
VENV=bench-data/venv
PEER_PY="$VENV/bin/python"
OUT=bench-data/last-run.txt

log() { printf '[bench] %s\n' "$*" >&2; }

mkdir -p bench-data

# ---------------------------------------------------------------- build
if [[ "$BENCH_PEER_ONLY" == 1 ]]; then
    # Harness testing: the generator is std-only, so if the crate does not
    # build right now, compile the example on its own.
    if [[ ! -s "$BENCH_FILE" ]]; then
        log "building generator (release)"
        if ! cargo build --release --example gen_events; then
            log "cargo build failed; compiling examples/gen_events.rs standalone with rustc"
            rustc -O --edition 2021 examples/gen_events.rs -o bench-data/gen_events
            GEN=bench-data/gen_events
        fi
    fi
else
    log "building pkadvisor + generator (release)"
    cargo build --release --bin pkadvisor --example gen_events
fi

# ---------------------------------------------------------------- data
if [[ ! -s "$BENCH_FILE" ]]; then
    log "generating $BENCH_FILE (~$BENCH_BYTES bytes, seed $BENCH_SEED)"
    "$GEN" --bytes "$BENCH_BYTES" --seed "$BENCH_SEED" --out "$BENCH_FILE.tmp"
    mv "$BENCH_FILE.tmp" "$BENCH_FILE"
fi
FILE_BYTES=$(stat -c %s "$BENCH_FILE")
FILE_LINES=$(wc -l < "$BENCH_FILE")

# ---------------------------------------------------------------- peer
if [[ ! -x "$PEER_PY" ]] || ! "$PEER_PY" -c 'import duckdb' 2>/dev/null; then
    log "installing duckdb==$DUCKDB_VERSION into $VENV"
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "duckdb==$DUCKDB_VERSION"
fi
DUCKDB_VER=$("$PEER_PY" -c 'import duckdb; print(duckdb.__version__)')

# ---------------------------------------------------------------- runs
PK_CMD=("$PKADVISOR" analyze "$BENCH_FILE"
    -c /tenantId -c /userId -c '/tenantId>/userId' -c /device/region
    --format json --output /dev/null --quiet)
PEER_CMD=("$PEER_PY" benches/peer_duckdb.py "$BENCH_FILE" --threads "$BENCH_THREADS" --mode "$BENCH_PEER_MODE")

TIMES_DIR=$(mktemp -d)
trap 'rm -rf "$TIMES_DIR"' EXIT

# run_timed NAME CMD...: wall-clock seconds appended to $TIMES_DIR/NAME
run_timed() {
    local name=$1; shift
    local tf="$TIMES_DIR/$name.time" out="$TIMES_DIR/$name.out"
    if ! nice -n "$BENCH_NICE" /usr/bin/time -f '%e %M' -o "$tf" "$@" >"$out" 2>"$TIMES_DIR/$name.err"; then
        log "$name FAILED:"; cat "$TIMES_DIR/$name.err" >&2; exit 1
    fi
    read -r secs maxrss < "$tf"
    echo "$secs" >> "$TIMES_DIR/$name.all"
    echo "$maxrss" >> "$TIMES_DIR/$name.rss"
    log "$name run: ${secs}s, max RSS $((maxrss / 1024)) MiB"
}

if [[ "$BENCH_PEER_ONLY" != 1 ]]; then
    # Pre-flight: the binary must really analyze (a stub that exits 0 would
    # otherwise produce meaningless timings, since the timed runs write to /dev/null).
    "$PKADVISOR" analyze fixtures/tiny.jsonl -c /tenantId --format json \
        --output "$TIMES_DIR/preflight.json" --quiet
    if ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TIMES_DIR/preflight.json" 2>/dev/null; then
        log "pre-flight failed: pkadvisor wrote no JSON report for fixtures/tiny.jsonl"; exit 1
    fi
fi

log "warming the page cache ($FILE_BYTES bytes)"
cat "$BENCH_FILE" > /dev/null

for ((i = 1; i <= BENCH_RUNS; i++)); do
    log "round $i/$BENCH_RUNS"
    if [[ "$BENCH_PEER_ONLY" != 1 ]]; then
        run_timed pkadvisor "${PK_CMD[@]}"
    fi
    run_timed duckdb "${PEER_CMD[@]}"
done
PEER_RESULT=$(cat "$TIMES_DIR/duckdb.out")

# ---------------------------------------------------------------- report
python3 - "$TIMES_DIR" "$FILE_BYTES" "$FILE_LINES" "$BENCH_FILE" "$DUCKDB_VER" \
    "$BENCH_THREADS" "$PEER_RESULT" "$BENCH_PEER_MODE" > "$TIMES_DIR/report.txt" <<'PY'
import json, os, statistics, sys, datetime, platform
d, nbytes, nlines, path, ddb, threads, peer, mode = sys.argv[1:9]
nbytes, nlines = int(nbytes), int(nlines)

def load(name):
    p = os.path.join(d, name + ".all")
    if not os.path.exists(p):
        return None
    ts = [float(x) for x in open(p).read().split()]
    rss = [int(x) for x in open(os.path.join(d, name + ".rss")).read().split()]
    return ts, max(rss)

rows = {}
for name in ("pkadvisor", "duckdb"):
    r = load(name)
    if r:
        rows[name] = r
cpu = "?"
try:
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip(); break
except OSError:
    pass
print(f"pkadvisor benchmark  {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M:%SZ}")
print(f"file:    {path}  {nbytes} bytes ({nbytes/1e6:.1f} MB), {nlines} lines")
print(f"machine: {os.cpu_count()} cores, {cpu}, {platform.system()} {platform.release()}")
print(f"peer:    duckdb {ddb}, threads={threads}, benches/peer_duckdb.py --mode {mode}")
print(f"work:    -c /tenantId -c /userId -c '/tenantId>/userId' -c /device/region")
print()
print(f"{'tool':<12}{'median s':>10}{'MB/s':>10}{'max RSS MiB':>13}   runs (s)")
for name, (ts, rss) in rows.items():
    med = statistics.median(ts)
    print(f"{name:<12}{med:>10.2f}{nbytes/1e6/med:>10.0f}{rss/1024:>13.0f}   "
          + " ".join(f"{t:.2f}" for t in ts))
if len(rows) == 2:
    ratio = statistics.median(rows["pkadvisor"][0]) / statistics.median(rows["duckdb"][0])
    print()
    print(f"ratio pkadvisor/duckdb (median time): {ratio:.2f}"
          f"  ({'pkadvisor faster' if ratio < 1 else 'duckdb faster'})")
print()
try:
    res = json.loads(peer)
    if res["rows"] != nlines:
        print(f"WARNING: peer counted {res['rows']} rows, file has {nlines} lines")
    print("peer result: rows=%d, " % res["rows"] + ", ".join(
        f"{k}={v['partitions']} partitions" for k, v in res["candidates"].items()))
except Exception:
    print("peer result: " + peer.strip())
PY
cp "$TIMES_DIR/report.txt" "$OUT"
cat "$OUT"
log "written to $OUT"
