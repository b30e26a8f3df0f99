#!/usr/bin/env bash
# zizmor (GitHub Actions static analysis, https://docs.zizmor.sh) at its strictest persona,
# offline (the online audits need a GitHub token): the action, the documented workflow and the
# release workflow. Unpinned `uses:`, credentials kept by checkout, broad permissions, template
# injection, writes to GITHUB_ENV/GITHUB_PATH. Exit 1 on any finding (docs/hardening.md).
#
#   ci/zizmor.sh [FILE...]    default: action.yml docs/examples/pkadvisor.yml .github/workflows/
#
# Needs PyPI (or a mirror) once for zizmor, installed pinned into a virtualenv under the target dir.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=1.32.0
VENV="${CARGO_TARGET_DIR:-$PWD/target}/zizmor-$VERSION"
if [ ! -x "$VENV/bin/zizmor" ]; then
    python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "zizmor==$VERSION"
fi
if [ $# -eq 0 ]; then
    set -- action.yml docs/examples/pkadvisor.yml .github/workflows/
fi
"$VENV/bin/zizmor" --offline --persona=auditor --no-progress "$@"
