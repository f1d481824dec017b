#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Sets up, builds and runs every test (CTest, the library checks of
# tests/libraries included), then each fuzz target for a
# bounded time (HEADROOM_FUZZ_SECONDS each, default 30; 0 skips them) from
# a fixed seed (HEADROOM_FUZZ_SEED, default 1), so what fails here fails the
# same way on any machine; exploring from random seeds is scripts/fuzz.sh by
# hand (docs/robustness.md). CI runs exactly this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
fuzz_seconds=${HEADROOM_FUZZ_SECONDS:-30}
if [ "$fuzz_seconds" -gt 0 ]; then scripts/install-deps.sh --fuzz; else scripts/install-deps.sh; fi
# The library checks' virtualenv (tests/libraries/setup.sh: about 5 GiB from
# PyPI the first time, reused after) downloads while the build compiles; the
# checks then must run, not skip (docs/library-checks.md).
libraries_log=$(mktemp)
(time tests/libraries/setup.sh) > "$libraries_log" 2>&1 &
libraries_setup=$!
trap 'kill "$libraries_setup" 2>/dev/null || true; rm -f "$libraries_log"' EXIT
scripts/build.sh -DHEADROOM_WARNINGS_AS_ERRORS=ON
if ! wait "$libraries_setup"; then
  cat "$libraries_log"
  echo "tests/libraries/setup.sh failed: the library checks cannot run" >&2
  exit 1
fi
echo "library checks' virtualenv: $(grep '/bin/python$' "$libraries_log" | tail -1), $(grep '^real' "$libraries_log" | tr '\t' ' ')"
export HEADROOM_REQUIRE_LIBRARIES=1
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
[ "$fuzz_seconds" -eq 0 ] || HEADROOM_FUZZ_SEED=${HEADROOM_FUZZ_SEED:-1} scripts/fuzz.sh "$fuzz_seconds"
