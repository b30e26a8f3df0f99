#!/usr/bin/env bash
# Builds the pkadvisor wheel (pyproject.toml: maturin, binary bindings), installs it into a
# FRESH virtualenv without network access (the wheel must be self-contained) and runs the
# README's quick-start command with the `pkadvisor` the wheel put on PATH.
#
#   ci/wheel.sh [--profile release|dev] [--out DIR]
#
#   --profile  the Cargo profile of the binary in the wheel (default release, what is published;
#              .ci/run uses dev, which reuses the debug build `cargo test` just made)
#   --out      where the wheel goes (default: $CARGO_TARGET_DIR or target, then /wheels)
#
# Needs Python 3.8+ with venv, and PyPI (or a mirror pip is configured for) for maturin, which
# is installed into its own virtualenv under the target dir. Prints each phase's time.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
PROFILE=release
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="$TARGET_DIR/wheels"
while [ $# -gt 0 ]; do
    case "$1" in
        --profile) PROFILE="$2"; shift 2 ;;
        --out) OUT="$2"; shift 2 ;;
        *) echo "ci/wheel.sh: unknown argument $1 (--profile release|dev, --out DIR)" >&2; exit 2 ;;
    esac
done
case "$PROFILE" in
    release | dev) ;;
    *) echo "ci/wheel.sh: --profile is release or dev, not $PROFILE" >&2; exit 2 ;;
esac
log() { echo "[wheel] $*" >&2; }
now() { date +%s.%N; }
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f} s')" "$1" "$(now)"; }

t0=$(now)
TOOLS="$TARGET_DIR/wheel-tools"
if [ ! -x "$TOOLS/bin/maturin" ]; then
    log "installing maturin into $TOOLS"
    python3 -m venv "$TOOLS"
    "$TOOLS/bin/python" -m pip install --quiet --disable-pip-version-check 'maturin>=1.7,<2'
fi
log "maturin $("$TOOLS/bin/maturin" --version | cut -d' ' -f2) ready in $(since "$t0")"

t1=$(now)
mkdir -p "$OUT"
rm -f "$OUT"/pkadvisor-*.whl
# --locked comes from pyproject.toml ([tool.maturin] locked = true): the wheel holds the
# Cargo.lock that was tested.
"$TOOLS/bin/maturin" build --profile "$PROFILE" --out "$OUT" --quiet
WHEEL=$(ls "$OUT"/pkadvisor-*.whl)
log "built $(basename "$WHEEL") ($(du -k "$WHEEL" | cut -f1) KB) in $(since "$t1")"

t2=$(now)
VENV=$(mktemp -d)/venv
trap 'rm -rf "$(dirname "$VENV")"' EXIT
python3 -m venv "$VENV"
# --no-index: nothing but the wheel is installed, so it must carry everything it needs.
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-index "$WHEEL"
log "installed into a fresh virtualenv in $(since "$t2")"

t3=$(now)
export PATH="$VENV/bin:$PATH"
found=$(command -v pkadvisor)
if [ "$found" != "$VENV/bin/pkadvisor" ]; then
    log "FAIL: pkadvisor on PATH is $found, not the wheel's $VENV/bin/pkadvisor"
    exit 1
fi
# The README's quick-start command, run from the installed wheel.
rc=0
pkadvisor analyze fixtures/events.jsonl --candidates '/tenantId,/userId,/tenantId>/userId' \
    > "$VENV/../quickstart.txt" 2> "$VENV/../quickstart.err" || rc=$?
if [ "$rc" != 0 ]; then
    log "FAIL: the quick start exited $rc"
    cat "$VENV/../quickstart.err" >&2
    exit 1
fi
want='No workload: keys safe for storage (first by storage: /userId); the queries decide'
if ! grep -qxF "$want" "$VENV/../quickstart.txt"; then
    log "FAIL: the quick start's output lacks the line '$want':"
    head -20 "$VENV/../quickstart.txt" >&2
    exit 1
fi
log "the quick start ran from the wheel (exit 0, '$want') in $(since "$t3")"
log "total $(since "$t0"); wheel: $WHEEL"
