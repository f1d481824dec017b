#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Sets up, builds and runs every test (CTest), then each fuzz target for a
# bounded time (HEADROOM_FUZZ_SECONDS each, default 30; 0 skips them; see
# docs/robustness.md). CI runs exactly this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
fuzz_seconds=${HEADROOM_FUZZ_SECONDS:-30}
if [ "$fuzz_seconds" -gt 0 ]; then scripts/install-deps.sh --fuzz; else scripts/install-deps.sh; fi
scripts/build.sh -DHEADROOM_WARNINGS_AS_ERRORS=ON
(
  cd build
  ctest --output-on-failure -j"$(nproc)"
  # The install tree (what the .deb holds, docs/packaging.md) works from a
  # temporary prefix: both programs answer --version there without a display.
  prefix=$(mktemp -d)
  trap 'rm -rf "$prefix"' EXIT
  cmake --install . --prefix "$prefix" > install.log
  for program in headroom-cli headroom; do
    env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$prefix/bin/$program" --version
  done
)
[ "$fuzz_seconds" -eq 0 ] || scripts/fuzz.sh "$fuzz_seconds"
