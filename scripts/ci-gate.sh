#!/usr/bin/env bash
# The CI gate: one interleaved run of a product's base and PR builds on the same machine,
# rounds until the PR/base ratio is known to --precision (or --max-time), then
# `vpnlab diff RUN --threshold X`. A script rather than a `vpnlab gate` verb: it only
# strings together verbs that exist (run, diff), so what CI runs is what a user can run by
# hand, step by step; everything measured and judged stays in vpnlab, which tests it.
#
#   scripts/ci-gate.sh --product NAME --base /path/old-binary --pr /path/new-binary
#                      [--topology topologies/quick.toml] [--threshold 0.1] [--precision 3%]
#                      [--max-time 10m] [--samples 30] [--duration 3s] [--out results/gate]
#                      [--threshold-cpu X] [--threshold-rss X] [--threshold-p99 X] [--vpnlab ./build/lab/vpnlab]
#
# Exit: 0 the PR is not slower beyond the threshold; 3 it is (the gate fired); 4 a build is
# broken (never came up, or no valid row); 1 an error; 2 usage; 130 interrupted.
# Writes RUN/gate.md and appends it to $GITHUB_STEP_SUMMARY when that is set.
# calls: date grep tail kill
set -euo pipefail

usage() { echo "usage: $0 --product NAME --base PATH --pr PATH [--topology FILE] [--threshold X] [--precision P] [--max-time D] [--samples N] [--duration D] [--out DIR] [--threshold-cpu X] [--threshold-rss X] [--threshold-p99 X] [--vpnlab PATH]" >&2; exit 2; }
usage_error() { echo "ci-gate: error: $1" >&2; usage; }
product='' base='' pr='' topology=topologies/quick.toml threshold=0.1 precision=3% max_time=10m samples=30 duration='' out=results/gate
costs=()  # --threshold-cpu/-rss/-p99, passed to vpnlab diff as they are
vpnlab="$(cd "$(dirname "$0")/.." && pwd)/build/lab/vpnlab"
while [ $# -gt 0 ]; do
  case "$1" in
    --product|--base|--pr|--topology|--threshold|--precision|--max-time|--samples|--duration|--out|--vpnlab|--threshold-cpu|--threshold-rss|--threshold-p99)
      [ $# -ge 2 ] || usage_error "$1 needs a value" ;;
    *) usage_error "unknown argument '$1'" ;;
  esac
  case "$1" in
    --product) product="$2" ;; --base) base="$2" ;; --pr) pr="$2" ;; --topology) topology="$2" ;;
    --threshold) threshold="$2" ;; --precision) precision="$2" ;; --max-time) max_time="$2" ;;
    --samples) samples="$2" ;; --duration) duration="$2" ;; --out) out="$2" ;; --vpnlab) vpnlab="$2" ;;
    --threshold-cpu|--threshold-rss|--threshold-p99) costs+=("$1" "$2") ;;
  esac
  shift 2
done
# The round limit must leave room for the 5 rounds adaptive sampling takes before its first
# look (said here in this script's own options: it sets no --min-rounds).
case "$samples" in ''|*[!0-9]*) usage_error "--samples '$samples' is not a whole number" ;; esac
[ "$samples" -ge 5 ] || usage_error "--samples $samples is below 5: the gate takes 5 rounds before its first look; give --samples 5 or more"
if [ -z "$product" ] || [ -z "$base" ] || [ -z "$pr" ]; then usage; fi
[ -x "$vpnlab" ] || { echo "ci-gate: error: $vpnlab is not an executable vpnlab (build it, or give --vpnlab)" >&2; exit 1; }

summary() {  # the Markdown summary: into the run directory and the job's step summary
  local file="$1"
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$file" >> "$GITHUB_STEP_SUMMARY"; fi
}

mkdir -p "$out"
log="$out/gate-run-$(date +%Y%m%d-%H%M%S)-$$.txt"
args=(run "$topology" --product "$product@base=$base" --product "$product@pr=$pr"
      --precision "$precision" --max-time "$max_time" --samples "$samples" --out "$out" --json)
[ -n "$duration" ] && args+=(--duration "$duration")
echo "ci-gate: vpnlab ${args[*]}"
# vpnlab runs as this script's child: a TERM, INT or HUP to the script is passed on, and the
# script waits for vpnlab's own teardown (and its lock) before it exits 130.
vpnlab_pid=
# shellcheck disable=SC2317  # reached through the traps below, which shellcheck does not follow
forward() {
  trap '' TERM INT HUP
  echo "ci-gate: $1: stopping vpnlab (pid $vpnlab_pid) and waiting for its teardown" >&2
  [ -n "$vpnlab_pid" ] && kill -"$1" "$vpnlab_pid" 2>/dev/null
  [ -n "$vpnlab_pid" ] && wait "$vpnlab_pid" 2>/dev/null
  echo "ci-gate: interrupted" >&2
  exit 130
}
trap 'forward TERM' TERM
trap 'forward INT' INT
trap 'forward HUP' HUP
set +e
# stdout: run --json's one document; stderr: the log, the table and its notes.
"$vpnlab" "${args[@]}" > "$log.json" 2> "$log" &
vpnlab_pid=$!
wait "$vpnlab_pid"
rc=$?
set -e
trap - TERM INT HUP
cat "$log"
# The document's top-level "run_dir" (keys at two spaces; run directories hold no quote).
run=$(grep -oP '^  "run_dir": "\K[^"]*' "$log.json" | head -1 || true)
if [ "$rc" -eq 130 ]; then echo "ci-gate: interrupted" >&2; exit 130; fi
if [ "$rc" -eq 4 ]; then
  md="${run:-$out}/gate.md"
  { echo "## vpnlab gate: $product — broken build"; echo; echo '```'; tail -5 "$log"; echo '```'; } > "$md"
  summary "$md"
  tail -5 "$log" >&2
  echo "ci-gate: broken: a build of $product produced no valid row (the reasons are in ${run:-$out}/results.csv)" >&2
  exit 4
fi
if [ "$rc" -ne 0 ] && [ "$rc" -ne 5 ] || [ -z "$run" ]; then
  tail -20 "$log" >&2
  echo "ci-gate: error: the run failed (exit $rc)" >&2
  exit 1
fi
[ "$rc" -eq 5 ] && echo "ci-gate: warning: some rows failed or are invalid (every build still has valid ones)" >&2

set +e
"$vpnlab" diff "$run" --threshold "$threshold" "${costs[@]}"
gate=$?
set -e
md="$run/gate.md"
{
  echo "## vpnlab gate: $product@pr against $product@base"
  echo
  "$vpnlab" diff "$run" --threshold "$threshold" "${costs[@]}" --markdown || true
  echo
  grep '^sampling: ' "$log" || true
  echo
  echo "Run directory: \`$run\` (interleaved rounds of both builds on one machine)."
} > "$md"
summary "$md"
case "$gate" in
  0) echo "ci-gate: pass: $product@pr is not slower than @base by more than $threshold" ;;
  3) echo "ci-gate: FAIL: $product@pr is slower than @base by more than $threshold, or costlier beyond a cost threshold, even at its interval's best (see $md)" >&2 ;;
  *) echo "ci-gate: error: vpnlab diff exited $gate" >&2; exit 1 ;;
esac
exit "$gate"
