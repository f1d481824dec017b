#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the libFuzzer targets (tests/fuzz) with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer in build-fuzz/, then runs each for a bounded time.
#   scripts/fuzz.sh [seconds per target, default 60] [target...]
# Each target starts from its seed corpus (tests/fuzz/corpus/<target>, read
# only) plus the regression inputs; new interesting inputs go to
# build-fuzz/corpus/<target>. A crashing input is kept under
# tests/fuzz/crashes/<target>/ and the script exits 1: fix the bug, then move
# the input to tests/fuzz/regressions/<target>/ where test_fuzz_regressions
# replays it in every normal build (docs/robustness.md).
# HEADROOM_FUZZ_SEED=N makes a run reproducible: libFuzzer's seed N, and a
# corpus started empty each run (build-fuzz/corpus-seed<N>/), so a given
# binary walks the same inputs in the same order and a longer run only goes
# further. CI (scripts/test.sh) gates on such a run; without it each run
# explores from a random seed and the corpus it kept from earlier runs.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_hfconfig fuzz_safetensors fuzz_scenario fuzz_measurement fuzz_hub)

cxx=${HEADROOM_FUZZ_CXX:-}
if [ -z "$cxx" ]; then
  for candidate in clang++-14 clang++-15 clang++; do
    command -v "$candidate" >/dev/null && { cxx=$candidate; break; }
  done
fi
[ -n "$cxx" ] || { echo "fuzz.sh: no clang++ found (scripts/install-deps.sh --fuzz installs it)" >&2; exit 1; }
cc=${cxx/clang++/clang}

build=build-fuzz
mkdir -p "$build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" \
      -DHEADROOM_FUZZ=ON -DHEADROOM_WITH_GUI=OFF -DHEADROOM_WITH_TESTS=OFF -DHEADROOM_WARNINGS_AS_ERRORS=ON \
      > "$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"

# detect_leaks: the readers allocate nothing that outlives a call, so a leak
# is a bug like any other. A slow unit (> 10 s) or a 2 GB allocation is one too.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for target in "${targets[@]}"; do
  name=${target#fuzz_}
  corpus=$build/corpus/$target
  seed_option=()
  if [ -n "${HEADROOM_FUZZ_SEED:-}" ]; then
    corpus=$build/corpus-seed$HEADROOM_FUZZ_SEED/$target
    rm -rf "$corpus"
    seed_option=(-seed="$HEADROOM_FUZZ_SEED")
  fi
  crashes=tests/fuzz/crashes/$target
  mkdir -p "$corpus" "$crashes"
  seeds=(tests/fuzz/corpus/$target)
  [ -d tests/fuzz/regressions/$name ] && seeds+=(tests/fuzz/regressions/$name)
  # The real config.json files the importer's tests use are seeds too.
  [ "$target" = fuzz_hfconfig ] && seeds+=(tests/data/configs)
  echo "== $target: ${seconds}s${HEADROOM_FUZZ_SEED:+, seed $HEADROOM_FUZZ_SEED}"
  if ! "$build/tests/fuzz/$target" ${seed_option[@]+"${seed_option[@]}"} -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -print_final_stats=1 -artifact_prefix="$crashes/" "$corpus" "${seeds[@]}" \
        > "$build/$target.log" 2>&1; then
    status=1
    tail -n 60 "$build/$target.log"
    echo "fuzz.sh: $target found a failing input; it is under $crashes/" >&2
  else
    grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ *DONE)' "$build/$target.log" || true
  fi
done
# An empty crashes folder is not worth keeping around.
find tests/fuzz/crashes -type d -empty -delete 2>/dev/null || true
exit $status
