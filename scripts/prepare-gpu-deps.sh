#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Prepares, on a machine with apt and a network, what scripts/gpu-check.sh
# needs on a bare GPU machine (no apt, no network): the header-only
# nlohmann-json, from Debian's own package, unpacked into .deps/ (git-ignored).
# The engine, the CLI and the GPU tests need nothing else beyond a compiler,
# CMake and the CUDA toolkit: no Qt (HEADROOM_WITH_GUI=OFF), and no libcurl
# (the Hub access is optional and off unless found).
#
# Carry .deps with the working tree to the GPU machine (the device tool's
# `carry: [".deps"]`); gpu-check.sh points CMake at it when it is there.
#
#   scripts/prepare-gpu-deps.sh            # downloads and unpacks
#   DEPS_DIR=/elsewhere scripts/prepare-gpu-deps.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
deps=${DEPS_DIR:-$root/.deps}
packages=(nlohmann-json3-dev)

mkdir -p "$deps/debs" "$deps/root"
cd "$deps/debs"
for p in "${packages[@]}"; do
  if ! ls "${p}"_*.deb >/dev/null 2>&1; then
    # apt-get download needs no root: it fetches the .deb of the candidate version into the current folder.
    apt-get download "$p"
  fi
done
for deb in "$deps"/debs/*.deb; do
  dpkg-deb -x "$deb" "$deps/root"
done
# What CMake will find: nlohmann_jsonConfig.cmake under the unpacked /usr.
config=$(find "$deps/root" -name nlohmann_jsonConfig.cmake | head -n 1)
if [[ -z $config ]]; then
  echo "prepare-gpu-deps: no nlohmann_jsonConfig.cmake in the unpacked packages" >&2
  exit 1
fi
{
  echo "# Written by scripts/prepare-gpu-deps.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  for deb in "$deps"/debs/*.deb; do
    dpkg-deb -f "$deb" Package Version | paste -sd' '
  done
} >"$deps/MANIFEST"
cat "$deps/MANIFEST"
echo "prefix for CMake: $deps/root/usr ($(du -sh "$deps" | cut -f1) in all)"
