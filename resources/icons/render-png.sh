#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Renders headroom.svg to the PNG sizes under hicolor/ (committed, so builds
# need no SVG renderer). Run after editing the SVG; needs rsvg-convert
# (Debian: librsvg2-bin).
set -euo pipefail
cd "$(dirname "$0")"
for size in 16 22 24 32 48 64 128 256 512; do
  mkdir -p "hicolor/${size}x${size}"
  rsvg-convert -w "$size" -h "$size" headroom.svg -o "hicolor/${size}x${size}/headroom.png"
done
