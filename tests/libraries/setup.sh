#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Creates, or reuses, the virtualenv the library checks run in
# (tests/libraries/, docs/library-checks.md) and prints its python.
# Where it lives: pyenv.sh. Pip's own cache (~/.cache/pip) keeps the wheels,
# and the wheel DeepSpeed's sdist builds, for the next new virtualenv.
set -euo pipefail
source "$(dirname "$0")/pyenv.sh"
venv="$(pyenv_dir)"
stamp="$(pyenv_stamp "$venv")"
if [ -f "$stamp" ]; then
  echo "$venv/bin/python"
  exit 0
fi
# Not finished last time (interrupted, or a failed install): start over
# rather than trust what is there.
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
"$(pyenv_base_python)" -m venv "$venv" >&2
pip=("$venv/bin/python" -m pip --quiet --disable-pip-version-check)
"${pip[@]}" install -r "$libraries_dir/requirements.txt" >&2
# DeepSpeed's setup.py imports torch, so it builds against the torch above;
# DS_BUILD_OPS=0 compiles none of its CUDA extensions.
DS_BUILD_OPS=0 "${pip[@]}" install --no-build-isolation -r "$libraries_dir/requirements-deepspeed.txt" >&2
"${pip[@]}" check >&2
touch "$stamp"
echo "$venv/bin/python"
