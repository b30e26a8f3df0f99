#!/usr/bin/env bash
# Runs the steps of the GitHub Action (action.yml) and of the Azure Pipelines template
# (ci/azure-pipelines/pkadvisor.yml) as their runners would (ci/run_steps.py), against the
# bundled CI fixtures, installing the wheel ci/wheel.sh built:
#
#   * a renamed key property (fixtures/ci/renamed.jsonl): the job fails with exit 1, the
#     annotation points at line 581, and the SARIF (written under the runner's temporary
#     folder) is uploaded / published when asked;
#   * the install: a wheel from no index, or (a stand-in cargo) the action's own source;
#   * a hostile pull request's checkout (a linked pkadvisor.sarif, a pkadvisor.toml, a linked
#     sample folder, a `--help` sample): the gate unchanged, no file outside the run's changed;
#   * the passing config (fixtures/ci/pkadvisor.toml): exit 0, nothing uploaded when not asked;
#   * a missing sample: exit 2;
#   * nothing is left in the temporary folder after a run;
#   * every SARIF written is valid against the vendored SARIF 2.1.0 schema
#     (tests/data/sarif-schema-2.1.0.json) and holds the violations expected.
#
#   ci/action-test.sh [WHEEL]      (default: the one wheel in $CARGO_TARGET_DIR/wheels)
#
# Needs Python 3 with venv and PyPI (or a mirror) for PyYAML and jsonschema, installed into a
# virtualenv under the target dir.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
WHEEL="${1:-}"
if [ -z "$WHEEL" ]; then
    WHEEL=$(ls "$TARGET_DIR"/wheels/pkadvisor-*.whl 2>/dev/null | head -1 || true)
fi
if [ ! -f "$WHEEL" ]; then
    echo "ci/action-test.sh: no wheel (build one with ci/wheel.sh, or name it)" >&2
    exit 2
fi
WHEEL=$(cd "$(dirname "$WHEEL")" && pwd)/$(basename "$WHEEL")
start=$(date +%s)
TOOLS="$TARGET_DIR/action-test-tools"
if [ ! -x "$TOOLS/bin/python" ] || ! "$TOOLS/bin/python" -c 'import yaml, jsonschema' 2>/dev/null; then
    python3 -m venv "$TOOLS"
    "$TOOLS/bin/python" -m pip install --quiet --disable-pip-version-check 'PyYAML>=6' 'jsonschema>=4.18'
fi
PY="$TOOLS/bin/python"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# The runs' temporary folder: empty again after each run (run_steps.py removes its own).
SCRATCH="$TMP/scratch"
mkdir "$SCRATCH"
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# run NAME EXPECTED_CODE github|azure FILE ARGS...: runs the steps in the working directory
# ($PWD: the repository, or a pull request's checkout), keeps stdout+stderr in $TMP/NAME.log,
# checks the exit code. The runner's temporary folder is $TMP/NAME.temp (kept for the checks).
run() {
    local name=$1 want=$2 kind=$3 file=$4
    shift 4
    local rc=0
    TMPDIR="$SCRATCH" "$PY" "$ROOT/ci/run_steps.py" --temp "$TMP/$name.temp" "$kind" "$file" "$@" \
        > "$TMP/$name.log" 2>&1 || rc=$?
    if [ "$rc" != "$want" ]; then
        fail "$name: exit $rc, expected $want"
        tail -30 "$TMP/$name.log" >&2
    else
        echo "ok: $name exits $rc"
    fi
    if [ -n "$(ls -A "$SCRATCH")" ]; then
        fail "$name: left in its temporary folder: $(ls -A "$SCRATCH" | head -3 | tr '\n' ' ')"
        find "$SCRATCH" -mindepth 1 -delete
    fi
}
# has NAME TEXT: the run's log holds TEXT (a fixed string, on one line).
has() { grep -qF -- "$2" "$TMP/$1.log" || fail "$1: the log lacks: $2"; }
lacks() { if grep -qF -- "$2" "$TMP/$1.log"; then fail "$1: the log holds: $2"; fi; }
# output NAME KEY: the value of a step output (`check.sarif`) or Azure variable the run printed.
output() { sed -n "s/^::: \(output\|variable\) $2=//p" "$TMP/$1.log" | tail -1; }
# sarif_of NAME RULE...: the run wrote its SARIF under its own temporary folder, it was the one
# offered, and it is valid SARIF 2.1.0 with exactly these rule ids.
sarif_of() {
    local name=$1 key=check.sarif file
    shift
    if grep -q '^::: variable ' "$TMP/$name.log"; then key=pkadvisorSarif; fi
    file=$(output "$name" "$key")
    case "$file" in
        "$TMP/$name.temp/"*) sarif "$file" "$@" ;;
        *) fail "$name: the SARIF offered, '$file', is not under the run's temporary folder" ;;
    esac
}
# sarif FILE RULE...: FILE is valid SARIF 2.1.0 and its results have exactly these rule ids.
sarif() {
    local file=$1
    shift
    "$PY" - "$file" "$ROOT/tests/data/sarif-schema-2.1.0.json" "$@" <<'PY' || fail "SARIF $file"
import json, sys
import jsonschema
doc = json.load(open(sys.argv[1]))
schema = json.load(open(sys.argv[2]))
cls = jsonschema.validators.validator_for(schema)
errors = sorted(cls(schema).iter_errors(doc), key=lambda e: list(e.path))
for e in errors[:5]:
    print(f"{sys.argv[1]}: not SARIF 2.1.0 at {list(e.path)}: {e.message}", file=sys.stderr)
rules = sorted(r["ruleId"] for run in doc["runs"] for r in run["results"])
want = sorted(sys.argv[3:])
if rules != want:
    print(f"{sys.argv[1]}: results {rules}, expected {want}", file=sys.stderr)
sys.exit(1 if errors or rules != want else 0)
PY
}

ROOT=$PWD
UPLOAD="github/codeql-action/upload-sarif@8aad20d150bbac5944a9f9d289da16a4b0d87c1e"
GH=(github "$ROOT/action.yml" --input "wheel=$WHEEL")
AZ=(azure "$ROOT/ci/azure-pipelines/pkadvisor.yml" --param "wheel=$WHEEL")

run gh-fail 1 "${GH[@]}" --input sample=fixtures/ci/renamed.jsonl --input key=/customerId \
    --input upload-sarif=true
has gh-fail "::error file=fixtures/ci/renamed.jsonl,line=581,title=SCHEMA_KEY_MISSING::20 of 600 documents lack the key path /customerId"
has gh-fail "pkadvisor check: FAIL"
has gh-fail "would run $UPLOAD with sarif_file=$TMP/gh-fail.temp/runner-temp/pkadvisor-"
has gh-fail "pkadvisor: the partition key fails the policy (exit 1)"
has gh-fail "::: output check.exit-code=1"
sarif_of gh-fail SCHEMA_KEY_MISSING

run gh-pass 0 "${GH[@]}" --input config=fixtures/ci/pkadvisor.toml
has gh-pass "pkadvisor check: PASS"
has gh-pass "::: skipped: Upload SARIF to code scanning"
lacks gh-pass "would run github/codeql-action/upload-sarif"
sarif_of gh-pass

# Two samples, one per line, the second with numbers where the key is a string; no SARIF: the
# report is printed.
run gh-two-samples 1 "${GH[@]}" --input "sample=fixtures/ci/sample.jsonl
fixtures/ci/number.jsonl" --input key=/customerId --input sarif=false --input upload-sarif=true
has gh-two-samples "title=SCHEMA_KEY_TYPE_CHANGED::"
has gh-two-samples "::: skipped: Upload SARIF to code scanning"
[ -z "$(output gh-two-samples check.sarif)" ] || fail "gh-two-samples: a SARIF offered without one asked"

# Exit 2 before anything is written: no SARIF offered.
run gh-missing 2 "${GH[@]}" --input sample=fixtures/ci/no-such-sample.jsonl --input key=/customerId \
    --input upload-sarif=true
has gh-missing "pkadvisor: usage or input error (exit 2)"
lacks gh-missing "would run github/codeql-action/upload-sarif"
[ -z "$(output gh-missing check.sarif)" ] || fail "gh-missing: a SARIF offered after exit 2"

# The inputs this version refuses, with the fix: a SARIF path (it would be in the checkout; a
# newline in it once rewrote exit-code) and a PyPI version (a name on an index is not pinned).
run gh-sarif-path 2 "${GH[@]}" --input sample=fixtures/ci/renamed.jsonl --input key=/customerId \
    --input "sarif=pkadvisor.sarif
exit-code=0"
has gh-sarif-path "the sarif input is true or false"
[ "$(output gh-sarif-path check.exit-code)" = 2 ] || fail "gh-sarif-path: exit-code rewritten"
run gh-version 2 "${GH[@]}" --input version=1.0.0 --input sample=fixtures/ci/renamed.jsonl \
    --input key=/customerId
has gh-version "the version input is no longer offered"

# Without a wheel the action builds its own source: `cargo install --locked --path` the action's
# folder, into a folder named by the source's hash (a stand-in cargo records its arguments and
# installs the wheel's binary); nothing comes from an index, PATH is left alone.
FAKE="$TMP/fake-bin"
mkdir -p "$FAKE"
"$PY" - "$WHEEL" "$FAKE/pkadvisor" <<'PY'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    name = next(n for n in z.namelist() if n.endswith("/scripts/pkadvisor"))
    open(sys.argv[2], "wb").write(z.read(name))
os.chmod(sys.argv[2], 0o755)
PY
printf '%s\n' '#!/usr/bin/env bash' 'echo "fake cargo: $*" >&2' 'root=' \
    'while [ $# -gt 0 ]; do if [ "$1" = --root ]; then root=$2; fi; shift; done' \
    "mkdir -p \"\$root/bin\" && cp \"$FAKE/pkadvisor\" \"\$root/bin/pkadvisor\"" > "$FAKE/cargo"
chmod +x "$FAKE/cargo"
PATH="$FAKE:$PATH" run gh-cargo 1 github "$ROOT/action.yml" --input sample=fixtures/ci/renamed.jsonl \
    --input key=/customerId
has gh-cargo "fake cargo: install --locked --quiet --path $ROOT --root $TMP/gh-cargo.temp/runner-temp/pkadvisor-build-"
has gh-cargo "would run actions/cache@0057852bfaa89a56745cba8c7296529d2fc39830 with path=$TMP/gh-cargo.temp/runner-temp/pkadvisor-build-"
lacks gh-cargo "pip install"
has gh-cargo "::: output install.exe=$TMP/gh-cargo.temp/runner-temp/pkadvisor-bin/pkadvisor"
# PATH is left alone: no step adds to it (a virtualenv's pip and python would shadow the job's).
for log in "$TMP"/*.log; do
    if grep -q "prependpath" "$log"; then fail "$log: a step changed PATH"; fi
done
if grep -q GITHUB_PATH action.yml; then fail "action.yml writes GITHUB_PATH"; fi

run az-fail 1 "${AZ[@]}" --param sample=fixtures/ci/renamed.jsonl --param key=/customerId \
    --param publishSarif=true
has az-fail "##vso[task.logissue type=error;sourcepath=fixtures/ci/renamed.jsonl;linenumber=581;code=SCHEMA_KEY_MISSING]"
has az-fail "would publish $TMP/az-fail.temp/pkadvisor-"
has az-fail "pkadvisor: the partition key fails the policy (exit 1)"
sarif_of az-fail SCHEMA_KEY_MISSING

run az-pass 0 "${AZ[@]}" --param config=fixtures/ci/pkadvisor.toml
has az-pass "pkadvisor check: PASS"
lacks az-pass "would publish"
sarif_of az-pass

run az-missing 2 "${AZ[@]}" --param sample=fixtures/ci/no-such-sample.jsonl --param key=/customerId \
    --param publishSarif=true
has az-missing "::: skipped: Publish SARIF (CodeAnalysisLogs)"
run az-no-source 2 azure "$ROOT/ci/azure-pipelines/pkadvisor.yml" \
    --param sample=fixtures/ci/renamed.jsonl --param key=/customerId
has az-no-source "nothing to install from"

# A hostile pull request's checkout: `pkadvisor.sarif` committed as a link to an executable
# (the victim), a `pkadvisor.toml` whose policy would pass the failing sample, a sample folder
# with a link to a folder outside it, and a file named `--help`. The workflow names the folder
# and the key. The gate still fails (exit 1) on the sample's own data, nothing outside the
# run's folders changes, the outside values never appear, and the SARIF offered is the run's.
PR="$TMP/pr"
mkdir -p "$PR/samples" "$TMP/victim" "$TMP/outside"
cp fixtures/ci/renamed.jsonl "$PR/samples/orders.jsonl"
printf '#!/bin/sh\necho the victim ran\n' > "$TMP/victim/pip"
chmod 755 "$TMP/victim/pip"
ln -s "$TMP/victim/pip" "$PR/pkadvisor.sarif"
printf 'key = "/customerId"\nsample = ["samples"]\n[policy]\nmax_undefined_share = 1.0\n' > "$PR/pkadvisor.toml"
for i in $(seq 1 50); do echo '{"customerId":"outside-secret-value"}'; done > "$TMP/outside/secret.jsonl"
ln -s "$TMP/outside" "$PR/samples/linked"
echo '{"customerId":"c1"}' > "$PR/--help"
snapshot() { (cd "$TMP" && find pr victim outside -printf '%p %y %m %s %l\n' | sort && sha256sum victim/pip outside/secret.jsonl); }
before=$(snapshot)
hostile() {
    local name=$1 want=$2
    shift 2
    (cd "$PR" && run "$name" "$want" "$@")
    lacks "$name" "outside-secret-value"
    lacks "$name" "the victim ran"
    [ "$(snapshot)" = "$before" ] || fail "$name: files outside the run's folders changed"
}
hostile gh-pr 1 "${GH[@]}" --input sample=samples --input key=/customerId --input upload-sarif=true
has gh-pr "symbolic link out of the folder named"
has gh-pr "::error file=samples/orders.jsonl,line=581,title=SCHEMA_KEY_MISSING"
sarif_of gh-pr SCHEMA_KEY_MISSING
hostile gh-pr-help 2 "${GH[@]}" --input "sample=samples
--help" --input key=/customerId --input upload-sarif=true
has gh-pr-help "cannot tell the format from the extension"
lacks gh-pr-help "Usage:"
lacks gh-pr-help "would run github/codeql-action/upload-sarif"
hostile az-pr 1 "${AZ[@]}" --param sample=samples --param key=/customerId --param publishSarif=true
has az-pr "symbolic link out of the folder named"
sarif_of az-pr SCHEMA_KEY_MISSING
hostile az-pr-help 2 "${AZ[@]}" --param "sample=samples
--help" --param key=/customerId
lacks az-pr-help "Usage:"
[ -L "$PR/pkadvisor.sarif" ] || fail "the pull request's pkadvisor.sarif link was replaced"

echo "action and pipeline steps: $failures failure(s) in $(( $(date +%s) - start )) s"
[ "$failures" = 0 ]
