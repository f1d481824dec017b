#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The pre-release sanitizer run (docs/robustness.md): builds everything, the
# desktop app and its GUI tests included, with AddressSanitizer and
# UndefinedBehaviorSanitizer in build-sanitize/ and runs the whole CTest suite.
# Any report fails the run: UB aborts (-fno-sanitize-recover), ASan always does.
#   scripts/sanitize.sh [extra CMake arguments, e.g. -DCMAKE_CXX_COMPILER=clang++-14]
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-sanitize
mkdir -p "$build"
flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHEADROOM_WITH_GUI=ON -DHEADROOM_WARNINGS_AS_ERRORS=ON \
      -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
      -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" "$@" \
      > "$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)"
# Leaks: on, with Qt's and fontconfig's process-lifetime caches suppressed
# (tests/sanitizers/lsan.supp). GUI tests run offscreen (tests/CMakeLists.txt).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
cd "$build"
ctest --output-on-failure -j"$(nproc)"
