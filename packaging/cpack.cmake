# SPDX-License-Identifier: GPL-3.0-or-later
# CPack: a Debian package and a tarball of the same install tree.
#   cmake --build build && (cd build && cpack -G DEB)   -> headroom_<version>_<arch>.deb
#   (cd build && cpack -G TGZ)                           -> headroom-<version>-linux-<arch>.tar.gz
# scripts/check-package.sh builds the .deb and installs it on a clean Debian 12.

set(CPACK_PACKAGE_NAME headroom)
set(CPACK_PACKAGE_VENDOR "The Headroom developers")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "GPU memory planner for transformer training")
# Debian's extended description, lines under 80 columns (CPack indents them
# and marks the empty line as a paragraph break).
string(CONCAT CPACK_PACKAGE_DESCRIPTION
  "Will this training run fit on my GPU, and what should I change so that it\n"
  "does? Headroom predicts the GPU memory of one training or inference step of\n"
  "a transformer model from a table of every tensor the step creates, with the\n"
  "formula and source of each.\n"
  "\n"
  "The desktop application (headroom) shows the breakdown at the peak, the\n"
  "timeline of one step, the technique ladder and sweeps over batch and\n"
  "sequence length, in English and Korean. The command-line tool\n"
  "(headroom-cli) prints the same plans, searches what fits, and exports\n"
  "Hugging Face, DeepSpeed and accelerate configurations.")
set(CPACK_PACKAGE_CONTACT "The Headroom developers <headroom@example.org>")
set(CPACK_PACKAGE_HOMEPAGE_URL ${HEADROOM_HOMEPAGE})
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_RESOURCE_FILE_README ${PROJECT_SOURCE_DIR}/README.md)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB TGZ)
# Only the install tree goes into a source-less package; no source packages.
set(CPACK_SOURCE_GENERATOR "")

# Tarball: one top-level folder, bin/ and share/ inside; the app finds its
# translations relative to bin/, so it runs from wherever it is unpacked.
set(CPACK_ARCHIVE_FILE_NAME "headroom-${PROJECT_VERSION}-linux-${CMAKE_SYSTEM_PROCESSOR}")
set(CPACK_PACKAGE_FILE_NAME "headroom-${PROJECT_VERSION}-linux-${CMAKE_SYSTEM_PROCESSOR}")

# Debian package.
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)     # headroom_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${CPACK_PACKAGE_CONTACT})
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE ${HEADROOM_HOMEPAGE})
# Depends: dpkg-shlibdeps reads the libraries the programs link and writes
# the packages and minimum versions (Qt 6 Core, Gui, Widgets, Svg, QCustomPlot,
# libcurl4 for the Hub, libstdc++...; Qt PrintSupport comes through QCustomPlot's own Depends). Without it (not a Debian host, or dpkg-dev
# missing) the list below, the Debian 12 names, is used instead.
find_program(HEADROOM_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(HEADROOM_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(headroom_depends "libc6, libstdc++6, libgcc-s1")
  if(HEADROOM_HAVE_CURL)
    string(APPEND headroom_depends ", libcurl4")
  endif()
  if(HEADROOM_WITH_GUI)
    string(APPEND headroom_depends ", libqt6core6 (>= 6.4), libqt6gui6 (>= 6.4), libqt6widgets6 (>= 6.4), "
           "libqt6printsupport6 (>= 6.4), libqcustomplot2.1-qt6")
    if(HEADROOM_HAVE_SVG)
      string(APPEND headroom_depends ", libqt6svg6 (>= 6.4)")
    endif()
  endif()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS ${headroom_depends})
  message(STATUS "dpkg-shlibdeps not found: the .deb declares Debian 12's package names as its dependencies")
endif()
if(HEADROOM_WITH_GUI)
  # Korean text needs a CJK font (the app's Korean UI), and Qt's own
  # Korean strings (dialog buttons) come from qt6-translations-l10n.
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "fonts-noto-cjk, qt6-translations-l10n")
  # Native Wayland instead of XWayland.
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "qt6-wayland")
endif()

include(CPack)
