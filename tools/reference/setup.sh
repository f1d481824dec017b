#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Creates (once) the reference tools' virtualenv, pinned by requirements.txt.
# HEADROOM_REF_VENV picks where it lives (default: .venv-ref at the repo root,
# git-ignored); reuse it between runs, it is large.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${HEADROOM_REF_VENV:-$root/.venv-ref}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet -r "$here/requirements.txt"
echo "$venv/bin/python"
