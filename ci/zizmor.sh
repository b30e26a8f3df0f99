#!/usr/bin/env bash
# The release workflow's static audit: zizmor (https://docs.zizmor.sh) at its strictest persona
# over .github/workflows/, offline (no GitHub token; the online audits need one). zizmor is
# installed from PyPI into its own virtualenv under the target dir, pinned, the first time.
#
#   ci/zizmor.sh [FILE...]    default: .github/workflows/
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS="${CARGO_TARGET_DIR:-$PWD/target}/zizmor-tools"
if [ ! -x "$TOOLS/bin/zizmor" ]; then
    python3 -m venv "$TOOLS"
    "$TOOLS/bin/python" -m pip install --quiet --disable-pip-version-check 'zizmor==1.32.0'
fi
if [ $# -eq 0 ]; then
    set -- .github/workflows/
fi
"$TOOLS/bin/zizmor" --offline --persona=auditor --no-progress "$@"
