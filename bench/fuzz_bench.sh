#!/usr/bin/env bash
# The fuzz bench: every fuzz target run for a fixed time from its seeds alone (a fresh
# corpus each time, so two runs of the bench compare), two at a time, and one table of what
# libFuzzer says at the end: runs, executions per second, edges (cov) and features (ft)
# covered, corpus size, peak RSS. A crash, leak, sanitizer report or timeout fails the bench
# and is kept in BUILD_DIR/fuzz/crashes/ (copy it into fuzz/corpus/<input>/ with its fix).
#   bench/fuzz_bench.sh [BUILD_DIR]            (a build made by scripts/fuzz-tier.sh)
#   VPNLAB_FUZZ_BENCH_SECONDS=600 bench/fuzz_bench.sh   the ten-minute campaign
#   VPNLAB_FUZZ_BENCH_TARGETS="product cli_args" ...     only those targets
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-build-fuzz}"
seconds="${VPNLAB_FUZZ_BENCH_SECONDS:-25}"
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz_bench: VPNLAB_FUZZ_BENCH_SECONDS='$seconds' is not a whole number of seconds" >&2; exit 2; }
[[ -d "$dir/fuzz" ]] || { echo "fuzz_bench: no $dir/fuzz: run scripts/fuzz-tier.sh first" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/vpnlab-fuzz-bench.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
mkdir -p "$dir/fuzz/crashes"

inputs=()
for src in fuzz/fuzz_*.cpp; do
  input=${src#fuzz/fuzz_}
  input=${input%.cpp}
  if [[ -n "${VPNLAB_FUZZ_BENCH_TARGETS:-}" && " $VPNLAB_FUZZ_BENCH_TARGETS " != *" $input "* ]]; then continue; fi
  [[ -x "$dir/fuzz/fuzz_$input" ]] || { echo "fuzz_bench: $dir/fuzz/fuzz_$input is not built: run scripts/fuzz-tier.sh" >&2; exit 2; }
  inputs+=("$input")
done

run_one() {  # input: one target, its log in $work/INPUT.log, its status in $work/INPUT.rc
  local input=$1
  mkdir -p "$work/corpus-$input"
  local rc=0
  "$dir/fuzz/fuzz_$input" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$dir/fuzz/crashes/$input-" "$work/corpus-$input" "fuzz/corpus/$input" >"$work/$input.log" 2>&1 || rc=$?
  echo "$rc" >"$work/$input.rc"
}
export -f run_one
export dir seconds work
((${#inputs[@]} > 0)) || { echo "fuzz_bench: no target named in VPNLAB_FUZZ_BENCH_TARGETS='${VPNLAB_FUZZ_BENCH_TARGETS:-}'" >&2; exit 2; }

echo "fuzz_bench: ${#inputs[@]} targets, ${seconds} s each from their seeds, two at a time ($(date -u +%FT%TZ))"
start=$SECONDS
# shellcheck disable=SC2016  # $1 is bash -c's own argument, expanded there
printf '%s\n' "${inputs[@]}" | xargs -P 2 -I{} bash -c 'run_one "$1"' _ {}

failed=0
printf '%-14s %10s %8s %6s %7s %7s %9s  %s\n' target runs exec/s cov ft corpus peak_rss result
for input in "${inputs[@]}"; do
  log="$work/$input.log"
  final_stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$done_line")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$done_line")
  corp=$(sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p' <<<"$done_line")
  result=ok
  if [[ "$(cat "$work/$input.rc")" != 0 ]]; then
    result="FAILED: $(grep -m1 -E 'ERROR: |fuzz property failed|SUMMARY: ' "$log" || echo "exit $(cat "$work/$input.rc")")"
    failed=$((failed + 1))
    cp -- "$log" "$dir/fuzz/crashes/$input.log"
  fi
  printf '%-14s %10s %8s %6s %7s %7s %6s MB  %s\n' "$input" "$(final_stat number_of_executed_units)" "$(final_stat average_exec_per_sec)" \
    "${cov:--}" "${ft:--}" "${corp:--}" "$(final_stat peak_rss_mb)" "$result"
done
echo "fuzz_bench: $((SECONDS - start)) s of wall time; $failed of ${#inputs[@]} targets failed"
[[ $failed == 0 ]]
