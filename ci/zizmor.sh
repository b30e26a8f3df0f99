#!/usr/bin/env bash
# zizmor (GitHub Actions static analysis) on the action and the documented workflow, offline:
# unpinned `uses:`, credentials kept by checkout, broad permissions, template injection,
# writes to GITHUB_ENV/GITHUB_PATH. Exit 1 on any finding (docs/hardening.md).
#
# Needs PyPI (or a mirror) once for zizmor, installed into a virtualenv under the target dir.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=1.32.0
VENV="${CARGO_TARGET_DIR:-$PWD/target}/zizmor-$VERSION"
if [ ! -x "$VENV/bin/zizmor" ]; then
    python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "zizmor==$VERSION"
fi
"$VENV/bin/zizmor" --offline --no-progress action.yml docs/examples/pkadvisor.yml
