#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# CTest's entry to one library check: runs tests/libraries/CHECK.py with the
# virtualenv's python (setup.sh). HEADROOM_CLI names the built headroom-cli.
#   run.sh test_deepspeed_config.py
# Without the virtualenv the check is skipped (exit 77, CTest's SKIP_RETURN_CODE)
# and says how to make it; with HEADROOM_REQUIRE_LIBRARIES=1 (scripts/test.sh)
# that is a failure instead, so CI cannot pass without running them.
set -euo pipefail
source "$(dirname "$0")/pyenv.sh"
venv="$(pyenv_dir)"
if [ ! -f "$(pyenv_stamp "$venv")" ]; then
  echo "the library checks' virtualenv is not set up ($venv): run tests/libraries/setup.sh" \
       "(about 5 GiB from PyPI, once; docs/library-checks.md)"
  [ "${HEADROOM_REQUIRE_LIBRARIES:-0}" = 1 ] && exit 1
  exit 77
fi
cd "$libraries_dir"
exec "$venv/bin/python" "$1"
