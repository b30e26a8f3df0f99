#!/usr/bin/env bash
# Runs the steps of the GitHub Action (action.yml) and of the Azure Pipelines template
# (ci/azure-pipelines/pkadvisor.yml) as their runners would (ci/run_steps.py), against the
# bundled CI fixtures, installing the wheel ci/wheel.sh built:
#
#   * a renamed key property (fixtures/ci/renamed.jsonl): the job fails with exit 1, the
#     annotation points at line 581, and the SARIF is uploaded / published when asked;
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

# run NAME EXPECTED_CODE github|azure FILE ARGS...: runs the steps, keeps stdout+stderr in
# $TMP/NAME.log, checks the exit code.
run() {
    local name=$1 want=$2 kind=$3 file=$4
    shift 4
    local rc=0
    TMPDIR="$SCRATCH" "$PY" ci/run_steps.py "$kind" "$file" "$@" > "$TMP/$name.log" 2>&1 || rc=$?
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
# sarif FILE RULE...: FILE is valid SARIF 2.1.0 and its results have exactly these rule ids.
sarif() {
    local file=$1
    shift
    "$PY" - "$file" tests/data/sarif-schema-2.1.0.json "$@" <<'PY' || fail "SARIF $file"
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

GH=(github action.yml --input "wheel=$WHEEL")
AZ=(azure ci/azure-pipelines/pkadvisor.yml --param "wheel=$WHEEL")

run gh-fail 1 "${GH[@]}" --input sample=fixtures/ci/renamed.jsonl --input key=/customerId \
    --input "sarif=$TMP/gh-fail.sarif" --input upload-sarif=true
has gh-fail "::error file=fixtures/ci/renamed.jsonl,line=581,title=SCHEMA_KEY_MISSING::20 of 600 documents lack the key path /customerId"
has gh-fail "pkadvisor check: FAIL"
has gh-fail "would run github/codeql-action/upload-sarif@v3 with sarif_file=$TMP/gh-fail.sarif category=pkadvisor"
has gh-fail "pkadvisor: the partition key fails the policy (exit 1)"
sarif "$TMP/gh-fail.sarif" SCHEMA_KEY_MISSING

run gh-pass 0 "${GH[@]}" --input config=fixtures/ci/pkadvisor.toml --input "sarif=$TMP/gh-pass.sarif"
has gh-pass "pkadvisor check: PASS"
has gh-pass "::: skipped: Upload SARIF to code scanning"
lacks gh-pass "would run github/codeql-action/upload-sarif"
sarif "$TMP/gh-pass.sarif"

# Two samples, one per line, the second with numbers where the key is a string; no SARIF: the
# report is printed.
run gh-two-samples 1 "${GH[@]}" --input "sample=fixtures/ci/sample.jsonl
fixtures/ci/number.jsonl" --input key=/customerId --input sarif= --input upload-sarif=true
has gh-two-samples "title=SCHEMA_KEY_TYPE_CHANGED::"
has gh-two-samples "::: skipped: Upload SARIF to code scanning"

run gh-missing 2 "${GH[@]}" --input sample=fixtures/ci/no-such-sample.jsonl --input key=/customerId \
    --input "sarif=$TMP/gh-missing.sarif" --input upload-sarif=true
has gh-missing "pkadvisor: usage or input error (exit 2)"
lacks gh-missing "would run github/codeql-action/upload-sarif"

run az-fail 1 "${AZ[@]}" --param sample=fixtures/ci/renamed.jsonl --param key=/customerId \
    --param "sarif=$TMP/az-fail.sarif" --param publishSarif=true
has az-fail "##vso[task.logissue type=error;sourcepath=fixtures/ci/renamed.jsonl;linenumber=581;code=SCHEMA_KEY_MISSING]"
has az-fail "would publish $TMP/az-fail.sarif as CodeAnalysisLogs"
has az-fail "pkadvisor: the partition key fails the policy (exit 1)"
sarif "$TMP/az-fail.sarif" SCHEMA_KEY_MISSING

run az-pass 0 "${AZ[@]}" --param config=fixtures/ci/pkadvisor.toml --param "sarif=$TMP/az-pass.sarif"
has az-pass "pkadvisor check: PASS"
lacks az-pass "would publish"
sarif "$TMP/az-pass.sarif"

run az-missing 2 "${AZ[@]}" --param sample=fixtures/ci/no-such-sample.jsonl --param key=/customerId \
    --param "sarif=$TMP/az-missing.sarif"

echo "action and pipeline steps: $failures failure(s) in $(( $(date +%s) - start )) s"
[ "$failures" = 0 ]
