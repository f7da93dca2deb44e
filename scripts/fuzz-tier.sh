#!/usr/bin/env bash
# The fuzz tier: every fuzz target (fuzz/fuzz_<input>.cpp) built with clang-14's libFuzzer,
# ASan and UBSan in build-fuzz, then run for VPNLAB_FUZZ_SECONDS each (default 25) by
# `ctest -L fuzz`, with an RSS limit and a per-input timeout. New inputs stay in the build
# tree; a crash is written to build-fuzz/fuzz/crashes/ and fails the tier: keep it in
# fuzz/corpus/<input>/ with its fix, and the unit tier replays it forever. Part of the
# README's test command and so of .ci/run; install-deps --tests installs clang-14.
#   scripts/fuzz-tier.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-build-fuzz}"
seconds="${VPNLAB_FUZZ_SECONDS:-25}"
command -v clang++-14 >/dev/null || { echo "fuzz-tier: no clang++-14: run scripts/install-deps.sh --tests" >&2; exit 1; }
CXX=clang++-14 cmake -S . -B "$dir" -DVPNLAB_FUZZ=ON -DVPNLAB_FUZZ_SECONDS="$seconds" >/dev/null
cmake --build "$dir" -j2 --target fuzz_targets
ctest --test-dir "$dir" -L fuzz -j2 --output-on-failure
