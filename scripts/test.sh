#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Sets up, builds and runs every test (CTest). CI runs exactly this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh -DHEADROOM_WARNINGS_AS_ERRORS=ON
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
