#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# clang-format (.clang-format) on the lines you changed, not on whole files
# (STYLE.md: "applied to what you touch"; the existing code is not mass
# reformatted). Changed = differs from BASE (default: the merge base with
# main), committed or not.
#   scripts/format.sh            show what would change; exit 1 if anything would
#   scripts/format.sh --fix      reformat those lines in place
#   scripts/format.sh [--fix] BASE
set -euo pipefail
cd "$(dirname "$0")/.."
fix=0
if [ "${1:-}" = "--fix" ]; then
  fix=1
  shift
fi
base=${1:-$(git merge-base HEAD main 2> /dev/null || git rev-parse HEAD)}
command -v git-clang-format > /dev/null || { echo "format.sh: git-clang-format missing (Debian: apt-get install clang-format)" >&2; exit 2; }
extensions=cpp,h,cu,cuh
if [ "$fix" -eq 1 ]; then
  git clang-format --extensions "$extensions" --force "$base" -- engine app ui tests || true
  exit 0
fi
# --diff prints the changes it would make, or a "no modified files" /
# "did not modify any files" line when there are none.
out=$(git clang-format --diff --extensions "$extensions" "$base" -- engine app ui tests || true)
if [ -z "$out" ] || grep -qE '^(no modified files to format|clang-format did not modify any files)$' <<< "$out"; then
  echo "format.sh: the lines changed since ${base:0:12} are formatted"
  exit 0
fi
printf '%s\n' "$out"
echo "format.sh: the lines above need formatting (scripts/format.sh --fix)" >&2
exit 1
