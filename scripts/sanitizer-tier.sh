#!/usr/bin/env bash
# The sanitizer tier: the unit tier (and the vpnlab binary one of its tests runs) built with
# AddressSanitizer, LeakSanitizer and UndefinedBehaviorSanitizer (-DVPNLAB_SANITIZE=ON) in
# build-asan, and run there. Every report is fatal: the first one fails its test, with the
# stack. GCC 12's libasan/libubsan are enough (no clang needed). Part of the README's test
# command and so of .ci/run; ccache makes a second build of the same sources quick.
#   scripts/sanitizer-tier.sh [BUILD_DIR]   default: build-asan beside build/
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-build-asan}"
cmake -S . -B "$dir" -DVPNLAB_SANITIZE=ON >/dev/null
cmake --build "$dir" -j2 --target unit_tests vpnlab
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:strict_string_checks=1:check_initialization_order=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
ctest --test-dir "$dir" -L unit -j2 --output-on-failure
