#!/usr/bin/env bash
# Runs every case of tools/reference/cases.list with one pkadvisor binary and keeps each run's
# stdout, stderr, exit code and written files in one folder; two folders from two binaries are
# then compared byte for byte. A change that must not change behaviour (a refactoring) leaves
# them identical.
#
#   tools/reference.sh run BIN OUTDIR          # e.g. a build of main before the change
#   tools/reference.sh compare DIR_A DIR_B     # exit 1 and a diff when any run differs
#
# The runs use ../shared/data when it is there (skipped otherwise), no colour, no progress bar,
# and GITHUB_STEP_SUMMARY pointed at a file of the run's own, which is compared too.
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
run)
    bin=$(realpath "$2")
    out=$(mkdir -p "$3" && realpath "$3")
    F=fixtures R=tools/reference D=../shared/data
    n=0 skipped=0
    while IFS=$'\t' read -r name args; do
        [[ -z "$name" || "$name" == \#* ]] && continue
        if [[ "$args" == *'$D'* && ! -d "$D" ]]; then
            skipped=$((skipped + 1))
            continue
        fi
        OUT="$out/$name.files"
        # A folder used before keeps its step summary, which the run appends to: start afresh.
        rm -rf "$OUT"
        mkdir -p "$OUT"
        eval "set -- $args"
        rc=0
        NO_COLOR=1 GITHUB_STEP_SUMMARY="$OUT/step-summary.md" COLUMNS=120 \
            "$bin" "$@" >"$out/$name.stdout" 2>"$out/$name.stderr" </dev/null || rc=$?
        echo "$rc" >"$out/$name.rc"
        # Wall-clock seconds differ from run to run: masked.
        find "$out" -maxdepth 2 -path "$out/$name*" -type f -exec sed -i -E \
            -e 's/"(profile_seconds|seconds)": [0-9.e-]+/"\1": "<masked>"/' \
            -e 's/(profiled (on the first [0-9,]+ documents )?in )[0-9.]+s/\1<masked>s/' {} +
        rmdir "$OUT" 2>/dev/null || true
        n=$((n + 1))
    done <tools/reference/cases.list
    echo "reference: $n runs in $out ($skipped skipped: no $D)"
    ;;
compare)
    if diff -r "$2" "$3"; then
        echo "reference: every run identical ($(ls "$2"/*.rc | wc -l) runs)"
    else
        echo "reference: runs differ (above)" >&2
        exit 1
    fi
    ;;
*)
    sed -n '2,12p' "$0" >&2
    exit 2
    ;;
esac
