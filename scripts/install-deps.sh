#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs what Headroom needs to build on Debian 12, only what is missing.
#   scripts/install-deps.sh [--fuzz]
# --fuzz adds what scripts/fuzz.sh needs: clang and libFuzzer's runtime
# (libclang_rt.fuzzer, in libclang-rt-14-dev, only recommended by clang-14).
set -euo pipefail
# libcurl4-openssl-dev: models from the Hugging Face Hub (optional at CMake
# level, docs/hub.md; the OpenSSL flavour, as Debian's own curl uses).
packages=(cmake g++ make pkg-config nlohmann-json3-dev qt6-base-dev qt6-tools-dev qt6-tools-dev-tools
          qt6-l10n-tools libqcustomplot-dev qt6-svg-dev fonts-noto-cjk qt6-translations-l10n libcurl4-openssl-dev
          python3-venv)  # python3-venv: the library checks' virtualenv (tests/libraries/setup.sh)
[ "${1:-}" = --fuzz ] && packages+=(clang-14 libclang-rt-14-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
echo "Installing: ${missing[*]}"
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
