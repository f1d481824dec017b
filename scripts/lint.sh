#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# clang-tidy (.clang-tidy) over engine/ and app/cli, from the compile commands
# of build/ (scripts/build.sh writes them). Prints every finding once, then
# the count by check, and exits 1 when there is any.
#   scripts/lint.sh                  every .cpp under engine/ and app/cli
#   scripts/lint.sh FILE...          those files only
# Not run by CI (docs/code-health.md); run it on what you change.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/compile_commands.json ]; then
  echo "lint.sh: build/compile_commands.json missing: run scripts/build.sh first" >&2
  exit 2
fi
command -v clang-tidy > /dev/null || { echo "lint.sh: clang-tidy missing (Debian: apt-get install clang-tidy)" >&2; exit 2; }
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files 'engine/*.cpp' 'app/cli/*.cpp')
fi
# The generated catalog source (build/engine/catalogdata.cpp) is not ours to lint.
log=build/clang-tidy.log
# One clang-tidy per file, in parallel; each writes its findings to its own
# file so that they do not interleave.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%s\n' "${files[@]}" | nl -nrz -w4 | \
  xargs -P "${LINT_JOBS:-$(nproc)}" -L 1 sh -c 'clang-tidy -p build --quiet "$1" > "'"$tmp"'/$0.txt" 2> /dev/null || true'
# A finding in a header shows up once per file that includes it: keep one.
cat "$tmp"/*.txt 2> /dev/null | grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error): ' | sed "s|^$PWD/||" | sort -u > "$log" || true
cat "$log"
echo
echo "clang-tidy: $(wc -l < "$log") findings in ${#files[@]} files (by check):"
sed -E 's/.*\[([^]]+)\]$/\1/' "$log" | sort | uniq -c | sort -rn
[ ! -s "$log" ]
