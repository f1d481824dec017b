# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by setup.sh and run.sh: where the library checks' virtualenv lives.
#   HEADROOM_PYENV   the virtualenv's folder (default: below, in the user's cache)
#   HEADROOM_PYTHON  the interpreter that creates it (default: Debian's python3)
# The default folder's name carries a hash of the pinned requirements and of
# the interpreter, so a change to either makes a new virtualenv instead of
# reusing one that no longer matches; the old one stays until deleted.
libraries_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

pyenv_base_python() {
  if [ -n "${HEADROOM_PYTHON:-}" ]; then echo "$HEADROOM_PYTHON"
  elif [ -x /usr/bin/python3 ]; then echo /usr/bin/python3
  else command -v python3
  fi
}

pyenv_dir() {
  if [ -n "${HEADROOM_PYENV:-}" ]; then echo "$HEADROOM_PYENV"; return; fi
  local python key
  python="$(pyenv_base_python)"
  key=$( { cat "$libraries_dir"/requirements*.txt; "$python" -c 'import sys; print(sys.version)'; } | sha256sum)
  echo "${XDG_CACHE_HOME:-$HOME/.cache}/headroom/pyenv-${key:0:12}"
}

# Written last by setup.sh: a folder without it is a half-made virtualenv.
pyenv_stamp() { echo "$1/.headroom-complete"; }
