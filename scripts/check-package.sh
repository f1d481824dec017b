#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The release check of the Debian package (docs/packaging.md): builds build/
# (as scripts/build.sh does), makes the .deb with CPack, then installs it with
# apt on a clean Debian 12 root made by mmdebstrap and runs both programs there:
#   headroom-cli --version, headroom-cli plan, headroom --screenshot (offscreen,
#   English and Korean), and checks the installed desktop entry, AppStream
#   metainfo, icons, translations and man pages.
# Needs root (chroot) and the network (the Debian mirror this machine uses, or
# HEADROOM_DEBIAN_MIRROR). Takes several minutes; not part of CI (scripts/test.sh).
# Leaves the package in build/, the apt log and the screenshots in
# build/package-check/ (the root itself only when a check fails), and prints
# what it checked.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
  echo "check-package.sh: run as root (mmdebstrap and chroot need it)" >&2
  exit 2
fi

# Tools: mmdebstrap for the clean root, the validators for the desktop files.
tools=(mmdebstrap desktop-file-utils appstream)
missing=()
for p in "${tools[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

start=$(date +%s)
scripts/install-deps.sh
scripts/build.sh
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' build/CMakeCache.txt)
app_id=$(sed -n 's/^HEADROOM_APP_ID:STRING=//p' build/CMakeCache.txt)
rm -f build/headroom_*.deb
(cd build && cpack -G DEB > cpack.log 2>&1) || { cat build/cpack.log; exit 1; }
deb=$(ls build/headroom_"${version}"_*.deb)
echo "Package: $deb ($(stat -c %s "$deb") bytes)"
dpkg-deb --field "$deb" Package Version Architecture Section Depends Recommends Suggests

# The mirror: the one this machine's apt uses (deb822 or one-line format).
mirror=${HEADROOM_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
  mirror=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v security | head -n1 || true)
fi
if [ -z "$mirror" ]; then
  mirror=$(grep -hs '^deb ' /etc/apt/sources.list | awk '{print $2}' | grep -v security | head -n1 || true)
fi
mirror=${mirror:-http://deb.debian.org/debian}
security=${mirror%/debian}/debian-security
echo "Mirror: $mirror"

work=$PWD/build/package-check
rm -rf "$work"
mkdir -p "$work"
cp "$deb" "$work/"
debname=$(basename "$deb")

# What runs inside the clean root, after apt has installed the package.
cat > "$work/inside.sh" <<INSIDE
#!/bin/sh
set -eu
fail() { echo "check-package: FAILED: \$*" >&2; exit 1; }
echo "--- inside a clean Debian \$(cat /etc/debian_version)"
dpkg -s headroom | grep -E '^(Status|Version|Depends):'
out=\$(headroom-cli --version)
[ "\$out" = "headroom-cli ${version}" ] || fail "headroom-cli --version said '\$out'"
echo "headroom-cli --version: \$out"
out=\$(headroom --version)
[ "\$out" = "headroom ${version}" ] || fail "headroom --version said '\$out'"
echo "headroom --version: \$out"
headroom-cli plan > /tmp/plan.txt || fail "headroom-cli plan"
grep -q '^Peak ' /tmp/plan.txt || fail "headroom-cli plan printed no peak"
grep -q '^Verdict: ' /tmp/plan.txt || fail "headroom-cli plan printed no verdict"
head -n 4 /tmp/plan.txt
QT_QPA_PLATFORM=offscreen headroom --screenshot /tmp/shot.png || fail "headroom --screenshot"
QT_QPA_PLATFORM=offscreen headroom --screenshot /tmp/shot-ko.png --lang ko --view ladder || fail "headroom --screenshot --lang ko"
for f in /usr/share/applications/${app_id}.desktop /usr/share/metainfo/${app_id}.metainfo.xml \
         /usr/share/icons/hicolor/scalable/apps/${app_id}.svg /usr/share/icons/hicolor/48x48/apps/${app_id}.png \
         /usr/share/icons/hicolor/512x512/apps/${app_id}.png /usr/share/headroom/translations/headroom_ko.qm \
         /usr/share/man/man1/headroom-cli.1.gz /usr/share/man/man1/headroom.1.gz /usr/share/doc/headroom/copyright; do
  [ -s "\$f" ] || fail "missing \$f"
done
gzip -dc /usr/share/man/man1/headroom-cli.1.gz | grep -q '^\.TH HEADROOM-CLI 1' || fail "headroom-cli.1.gz is not the man page"
for sub in plan fit ladder models gpus bench export; do
  gzip -dc /usr/share/man/man1/headroom-cli.1.gz | grep -q "^\.B \$sub\\\$" || fail "the man page lacks the command \$sub"
done
echo "installed files: ok"
INSIDE

# mmdebstrap makes the root (variant apt: Essential packages and apt, the
# smallest root apt can work in) and runs the hooks in it with /proc, /sys
# and /dev mounted; apt-get resolves the package's dependencies from the mirror.
mmdebstrap --variant=apt --quiet \
  --customize-hook="copy-in $work/$debname $work/inside.sh /tmp" \
  --customize-hook="chroot \"\$1\" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
      -o APT::Install-Recommends=true /tmp/$debname > $work/apt.log 2>&1 || { tail -n 30 $work/apt.log; exit 1; }" \
  --customize-hook='chroot "$1" sh /tmp/inside.sh' \
  --customize-hook="copy-out /tmp/shot.png /tmp/shot-ko.png $work" \
  bookworm "$work/root" "deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
  "deb $security bookworm-security main"

# The screenshots came out, are PNGs of the window, and are not nearly empty:
# the two views measured 170 and 178 KB on 2026-11-22 (docs/packaging.md).
for shot in "$work/shot.png" "$work/shot-ko.png"; do
  [ "$(head -c 8 "$shot" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || { echo "FAILED: $shot is not a PNG"; exit 1; }
  size=$(stat -c %s "$shot")
  [ "$size" -gt 50000 ] || { echo "FAILED: $shot is only $size bytes"; exit 1; }
  width=$((16#$(od -An -tx1 -j16 -N4 "$shot" | tr -d ' \n')))
  height=$((16#$(od -An -tx1 -j20 -N4 "$shot" | tr -d ' \n')))
  [ "$width" -ge 800 ] && [ "$height" -ge 600 ] || { echo "FAILED: $shot is ${width}x${height}"; exit 1; }
  echo "Screenshot $(basename "$shot"): ${width}x${height}, $size bytes"
done

# The installed desktop entry and metainfo, validated with Debian's tools.
desktop-file-validate "$work/root/usr/share/applications/$app_id.desktop"
appstreamcli validate --no-net "$work/root/usr/share/metainfo/$app_id.metainfo.xml"

echo "apt installed $(grep -c '^Setting up' "$work/apt.log") packages (log: $work/apt.log)"
echo "Root after the install: $(du -sm "$work/root" | cut -f1) MiB (removed; the screenshots stay in $work)"
rm -rf "$work/root"
echo "check-package: OK ($(( $(date +%s) - start )) s)"
